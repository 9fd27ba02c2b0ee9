import Glibc

/// Keeps a capture file that shrinks while it is mapped from crashing the process.
///
/// Touching a mapped page that lies past the end of a file truncated underneath the mapping raises
/// SIGBUS, which would end the process. The guard handles it: every window is registered here while
/// it is mapped, and a SIGBUS inside a registered window maps zero-filled pages over the window from
/// the faulting page on (so the access that faulted, and every later one, reads zeros) and marks the
/// window damaged (`MappedFileWindow.isDamaged`); the input then ends the file where `fstat` now
/// says it ends. A SIGBUS anywhere else goes to the handler that was installed before (the process's
/// usual crash report).
///
/// The handler runs in the faulting thread and only reads the slot table and calls `mmap` (no locks,
/// no allocation); slots are written under a lock by the threads that map and unmap windows.
enum MappingFaultGuard {
    /// One registered window: its address range and whether a fault has zeroed part of it.
    struct Slot {
        var start = 0
        var end = 0
        var isDamaged = false
    }

    /// Windows mapped at once at most (each input maps one at a time; batches in flight keep a few).
    static let capacity = 1024

    private nonisolated(unsafe) static let slots: UnsafeMutablePointer<Slot> = {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(), count: capacity)
        return slots
    }()
    private nonisolated(unsafe) static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()
    private nonisolated(unsafe) static let previousAction = UnsafeMutablePointer<sigaction>.allocate(capacity: 1)
    private nonisolated(unsafe) static var isInstalled = false
    /// Read once before the handler is installed (the handler calls nothing it need not).
    private nonisolated(unsafe) static var pageSize = 0

    /// Registers the mapped range `start..<start + length`; returns its slot (whose `isDamaged` the
    /// window reads), or nil when all slots are taken. Installs the handler on first use.
    static func register(start: UnsafeRawPointer, length: Int) -> UnsafeMutablePointer<Slot>? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        if !isInstalled { installHandler() }
        guard let index = (0..<capacity).first(where: { slots[$0].end == 0 }) else { return nil }
        slots[index].isDamaged = false
        slots[index].start = Int(bitPattern: start)
        slots[index].end = Int(bitPattern: start) + length
        return slots + index
    }

    /// Frees `slot` (before its window is unmapped).
    static func unregister(_ slot: UnsafeMutablePointer<Slot>) {
        pthread_mutex_lock(lock)
        slot.pointee.end = 0
        slot.pointee.start = 0
        pthread_mutex_unlock(lock)
    }

    private static func installHandler() {
        pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, info, _ in MappingFaultGuard.handleBusError(info) }
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        isInstalled = sigaction(SIGBUS, &action, previousAction) == 0
    }

    /// Zero-fills the rest of the registered window holding the faulting address, or hands the
    /// signal back to the previous handler (restored: the faulting access, run again, reaches it).
    private static func handleBusError(_ info: UnsafeMutablePointer<siginfo_t>?) {
        let address = info.map { Int(bitPattern: $0.pointee._sifields._sigfault.si_addr) } ?? 0
        for index in 0..<capacity {
            let slot = slots + index
            let start = slot.pointee.start
            let end = slot.pointee.end
            guard address >= start && address < end else { continue }
            let page = address & ~(pageSize - 1)
            let zeros = mmap(
                UnsafeMutableRawPointer(bitPattern: page), end - page, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
                -1, 0)
            if zeros != MAP_FAILED {
                slot.pointee.isDamaged = true
                return
            }
            break
        }
        sigaction(SIGBUS, previousAction, nil)
    }
}
