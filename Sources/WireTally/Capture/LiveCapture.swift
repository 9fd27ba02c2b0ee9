import CPcap
import Glibc

/// Packets captured live from a network interface through libpcap: immediate mode (each packet is
/// handed over as it arrives), nanosecond timestamps, the BPF filter applied in the kernel. Reads do
/// not block longer than the timeout, also in immediate mode (where libpcap itself would wait for a
/// packet forever): the handle is non-blocking and we poll its descriptor; a signal ends the wait.
package final class LiveCapture {
    /// How a live capture is opened.
    package struct Settings: Sendable {
        package var interface: String
        package var filter: String?
        /// Bytes kept of each packet.
        package var snaplen: Int32 = 262_144
        package var promiscuous = false
        /// How long a read waits for a packet before returning empty-handed.
        package var timeoutMilliseconds: Int32 = 200
        /// The kernel's capture buffer. libpcap's default (2 MiB) holds only 32 loopback segments of
        /// 64 KiB: a burst of them (a response of a few hundred kB on `lo`) while the reader was behind
        /// (a busy machine) overflowed it and the kernel dropped packets. 32 MiB holds 512 of them
        /// (tcpdump's `-B` sets the same buffer).
        package var bufferBytes: Int32 = 32 << 20

        package init(interface: String, filter: String? = nil) {
            self.interface = interface
            self.filter = filter
        }
    }

    /// One read: a packet, or nothing before the timeout.
    package enum Event {
        case packet(CapturedPacket)
        case timeout
    }

    /// Counters from `pcap_stats`.
    package struct Statistics: Sendable {
        /// Packets the kernel saw for this capture (passed by the filter).
        package var received: Int
        /// Dropped because the capture buffer was full (we did not read fast enough).
        package var dropped: Int
        /// Dropped by the interface or its driver.
        package var interfaceDropped: Int
    }

    package let settings: Settings
    /// The link type of the interface's packets.
    package let linkType: LinkType
    /// libpcap's warning when the capture started with a restriction (promiscuous mode or the
    /// timestamp type not supported…).
    package let activationWarning: String?
    private let handle: OpaquePointer
    /// The descriptor to poll for packets.
    private let descriptor: Int32
    private var frameNumber = 0

    /// Opens and activates the capture. Throws a `LiveCaptureError` that says what to do when the
    /// process lacks the right to capture or the interface does not exist.
    package init(_ settings: Settings) throws(LiveCaptureError) {
        self.settings = settings
        let name = settings.interface
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_create(name, &errorBuffer) else {
            throw .failed(interface: name, reason: String(nulTerminated: errorBuffer))
        }
        pcap_set_snaplen(handle, settings.snaplen)
        pcap_set_promisc(handle, settings.promiscuous ? 1 : 0)
        pcap_set_immediate_mode(handle, 1)
        pcap_set_timeout(handle, settings.timeoutMilliseconds)
        pcap_set_buffer_size(handle, settings.bufferBytes)
        pcap_set_tstamp_precision(handle, Int32(PCAP_TSTAMP_PRECISION_NANO))
        let status = pcap_activate(handle)
        if status < 0 {
            let error = Self.activationError(status, handle: handle, interface: name)
            pcap_close(handle)
            throw error
        }
        // Everything that can fail is done before the properties are set: a throwing init whose
        // properties are all set runs `deinit`, which would close the handle a second time.
        do throws(LiveCaptureError) {
            if let filter = settings.filter { try Self.install(filter, on: handle) }
            guard pcap_get_selectable_fd(handle) >= 0, pcap_setnonblock(handle, 1, &errorBuffer) == 0 else {
                let reason = String(nulTerminated: errorBuffer)
                throw .failed(interface: name, reason: reason.isEmpty ? "cannot poll the capture" : reason)
            }
        } catch {
            pcap_close(handle)
            throw error
        }
        self.handle = handle
        descriptor = pcap_get_selectable_fd(handle)
        activationWarning = status > 0 ? Self.warningText(status, handle: handle) : nil
        linkType = Self.linkType(dlt: pcap_datalink(handle))
    }

    /// Compiles `filter` for the handle and has the kernel apply it.
    private static func install(_ filter: String, on handle: OpaquePointer) throws(LiveCaptureError) {
        var program = bpf_program()
        guard pcap_compile(handle, &program, filter, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw .badFilter(expression: filter, reason: String(cString: pcap_geterr(handle)))
        }
        defer { pcap_freecode(&program) }
        guard pcap_setfilter(handle, &program) == 0 else {
            throw .badFilter(expression: filter, reason: String(cString: pcap_geterr(handle)))
        }
    }

    deinit { pcap_close(handle) }

    /// Waits for the next packet, up to the read timeout (or until a signal comes). The packet's bytes
    /// stay valid until the next call. Throws when the capture cannot go on (the interface went away).
    package func next() throws(LiveCaptureError) -> Event {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        var status = pcap_next_ex(handle, &header, &data)
        if status == 0 {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, settings.timeoutMilliseconds) > 0 else { return .timeout }
            status = pcap_next_ex(handle, &header, &data)
        }
        switch status {
        case 1:
            guard let header, let data else { return .timeout }
            frameNumber += 1
            let time = header.pointee.ts
            return .packet(CapturedPacket(
                frameNumber: frameNumber,
                timestamp: Timestamp(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_usec)),
                linkType: linkType, originalLength: Int(header.pointee.len),
                bytes: UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen))))
        case 0, PCAP_ERROR_BREAK:
            return .timeout
        default:
            throw .failed(interface: settings.interface, reason: String(cString: pcap_geterr(handle)))
        }
    }

    /// The kernel's counters for this capture (zeros when libpcap cannot give them).
    package func statistics() -> Statistics {
        var stats = pcap_stat()
        guard pcap_stats(handle, &stats) == 0 else { return Statistics(received: 0, dropped: 0, interfaceDropped: 0) }
        return Statistics(received: Int(stats.ps_recv), dropped: Int(stats.ps_drop), interfaceDropped: Int(stats.ps_ifdrop))
    }

    /// Our link type for a libpcap DLT value (they coincide except for raw IP).
    static func linkType(dlt: Int32) -> LinkType {
        switch dlt {
        case DLT_RAW: return .raw
        default: return LinkType(rawValue: UInt32(bitPattern: dlt))
        }
    }

    private static func warningText(_ status: Int32, handle: OpaquePointer) -> String {
        let detail = String(cString: pcap_geterr(handle))
        let kind = String(cString: pcap_statustostr(status))
        return detail.isEmpty ? kind : "\(kind): \(detail)"
    }

    private static func activationError(_ status: Int32, handle: OpaquePointer, interface: String) -> LiveCaptureError {
        let detail = String(cString: pcap_geterr(handle))
        switch status {
        case PCAP_ERROR_PERM_DENIED, PCAP_ERROR_PROMISC_PERM_DENIED:
            return .permissionDenied(interface: interface, detail: detail.isEmpty ? "permission denied" : detail)
        case PCAP_ERROR_NO_SUCH_DEVICE:
            let available = ((try? NetworkInterface.all()) ?? []).map(\.name)
            return .noSuchInterface(interface, available: available)
        case PCAP_ERROR_IFACE_NOT_UP:
            return .failed(interface: interface, reason: "the interface is down")
        default:
            let reason = detail.isEmpty ? String(cString: pcap_statustostr(status)) : detail
            return .failed(interface: interface, reason: reason)
        }
    }
}
