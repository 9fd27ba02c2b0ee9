import Foundation
import Testing
@testable import WireTally

/// Every connection's analyses (the application layer, and below it the TLS session, its plaintext
/// layer, the HTTP/1.x or HTTP/2 analysis) are freed once the records that hold the connection are
/// dropped: nothing keeps them alive by a retain cycle or a retain left unbalanced. Weak references
/// say so independently of LeakSanitizer, which cannot follow a reference stored in a multi-payload
/// enum (the case is kept in the pointer's spare high bits, so the stored word points nowhere).
@Suite struct AnalysisLifetimeTests {
    /// One object of the analysis, held weakly, and what it is.
    struct Watched {
        weak var object: AnyObject?
        let what: String
    }

    /// Analyses capture `name` (with its key log when it has one) and returns weak references to each
    /// connection and the analyses under it: the records, the only owners left after the run, are
    /// dropped on return.
    static func watchedObjects(_ name: String) throws -> [Watched] {
        var options = CaptureAnalyzer.Options()
        let keys = TestPaths.capture(name + ".keys")
        if FileManager.default.fileExists(atPath: keys) { options.tlsKeys = try TLSKeyStore.reading(files: [keys]) }
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")], options: options)
        var watched: [Watched] = []
        for connection in writer.rawConnections {
            let id = "\(name) connection \(connection.id)"
            watched.append(Watched(object: connection, what: id))
            guard let application = connection.consumer as? ApplicationLayerAnalysis else { continue }
            watched.append(Watched(object: application, what: "\(id): application layer"))
            if let http = application.http { watched.append(Watched(object: http, what: "\(id): HTTP/1.x")) }
            if let http2 = application.anyHTTP2 { watched.append(Watched(object: http2, what: "\(id): HTTP/2")) }
            if let tls = application.tls {
                watched.append(Watched(object: tls, what: "\(id): TLS"))
                if let plaintext = tls.plaintext { watched.append(Watched(object: plaintext, what: "\(id): TLS plaintext")) }
                if let child = tls.plaintext?.child { watched.append(Watched(object: child, what: "\(id): decrypted child")) }
            }
        }
        return watched
    }

    /// Keyed TLS (HTTP/1.1 and h2 inside, TLS 1.2 and 1.3), h2c by prior knowledge and by Upgrade, and
    /// cleartext HTTP/1.1: every analysis reached from a connection is gone with its records.
    @Test(arguments: ["tls13-h2", "h2-tls12", "tls13-http1", "tls12-http1", "tls-lossy", "h2-python", "h2-upgrade", "latency"])
    func analysesAreFreedWithTheirRecords(_ name: String) throws {
        let watched = try Self.watchedObjects(name)
        #expect(watched.contains { $0.what.hasSuffix("application layer") }, "\(name): no connection analysed")
        for object in watched {
            #expect(object.object == nil, "\(object.what) outlived the records that held it")
        }
    }
}
