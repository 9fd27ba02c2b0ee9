import Synchronization

/// The TLS secrets one analysis decrypts with: the key logs it was given (`--keylog` files, pcapng
/// Decryption Secrets Blocks) and a log that grows while capturing. Shared by every connection of the
/// analysis; another thread may add to it (a live capture following a key log file).
package final class TLSKeyStore: Sendable {
    private let logs: Mutex<[TLSKeyLog]>
    /// The logs grow while the analysis runs (a live capture following key log files): a connection
    /// whose secrets are not there yet when its first protected record comes holds its records a while
    /// (`TLSConnectionAnalysis.maxHeldRecordBytes`) and looks again at each next one.
    package let isGrowing: Bool

    /// A store of the given logs (in the order a secret is looked up: the first log having a secret of
    /// a connection gives it); `growing`: see `isGrowing`.
    package init(_ logs: [TLSKeyLog] = [], growing: Bool = false) {
        self.logs = Mutex(logs)
        isGrowing = growing
    }

    /// Adds a complete key log.
    package func add(_ log: TLSKeyLog) {
        logs.withLock { $0.append(log) }
    }

    /// Changes log `index` in place (a followed log taking the lines appended since the last look).
    package func update(_ index: Int, _ change: (inout TLSKeyLog) -> Void) {
        logs.withLock { change(&$0[index]) }
    }

    /// The logs, as they are now.
    package var snapshot: [TLSKeyLog] { logs.withLock { $0 } }

    /// How many logs the store has.
    package var logCount: Int { logs.withLock { $0.count } }

    /// Every secret the logs have for the connection whose ClientHello carried `clientRandom`; nil when
    /// none has any.
    package func secrets(clientRandom: [UInt8]) -> TLSKeyLog.Secrets? {
        logs.withLock { logs in
            var found: TLSKeyLog.Secrets?
            for log in logs {
                guard let secrets = log.secrets(clientRandom: clientRandom) else { continue }
                guard var merged = found else {
                    found = secrets
                    continue
                }
                merged.masterSecret = merged.masterSecret ?? secrets.masterSecret
                merged.clientEarlyTraffic = merged.clientEarlyTraffic ?? secrets.clientEarlyTraffic
                merged.clientHandshakeTraffic = merged.clientHandshakeTraffic ?? secrets.clientHandshakeTraffic
                merged.serverHandshakeTraffic = merged.serverHandshakeTraffic ?? secrets.serverHandshakeTraffic
                merged.clientApplicationTraffic = merged.clientApplicationTraffic ?? secrets.clientApplicationTraffic
                merged.serverApplicationTraffic = merged.serverApplicationTraffic ?? secrets.serverApplicationTraffic
                found = merged
            }
            return found
        }
    }

    /// Secrets taken, over all logs.
    package var secretCount: Int { logs.withLock { $0.reduce(0) { $0 + $1.secretCount } } }

    /// The lines that could not be used, per log (by index), without any secret.
    package var problems: [[TLSKeyLog.Problem]] { logs.withLock { $0.map(\.problems) } }
}

extension TLSKeyStore {
    /// A store of the key log files `paths` (NSS key log format), read whole.
    package static func reading(files paths: [String]) throws(TLSKeyLogFileError) -> TLSKeyStore {
        var logs: [TLSKeyLog] = []
        for path in paths {
            do {
                logs.append(TLSKeyLog(try AppLogFile.read(path)))
            } catch {
                throw .cannotOpen(path: path, reason: (error as? AppLogError).map { "\($0)" } ?? "\(error)")
            }
        }
        return TLSKeyStore(logs)
    }
}

/// Why a key log file could not be read. Never holds a secret.
package enum TLSKeyLogFileError: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)

    package var description: String {
        switch self {
        case let .cannotOpen(_, reason): "key log \(reason)"
        }
    }
}
