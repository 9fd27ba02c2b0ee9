/// The keys and number runs every `http` record writes, made once: the keys prebuilt (the text encoder
/// copies each in one move), reached through one reference a record — each read of a `static let` is
/// a `swift_once` call, and a record has some forty of them.
final class HTTPRecordLayout: Sendable {
    static let shared = HTTPRecordLayout()

    let id = JSONKey(prebuilt: "id")
    let conn = JSONKey(prebuilt: "conn")
    let transport = JSONKey(prebuilt: "transport")
    let client = JSONKey(prebuilt: "client")
    let server = JSONKey(prebuilt: "server")
    let index = JSONKey(prebuilt: "index")
    let request = JSONKey(prebuilt: "request")
    let response = JSONKey(prebuilt: "response")
    let wire = JSONKey(prebuilt: "wire")
    let dnsIPBytes = JSONKey(prebuilt: "dns_ip_bytes")
    let cancel = JSONKey(prebuilt: "cancel")
    let timing = JSONKey(prebuilt: "timing")
    let http2 = JSONKey(prebuilt: "http2")
    let http3 = JSONKey(prebuilt: "http3")
    let tls = JSONKey(prebuilt: "tls")
    let flags = JSONKey(prebuilt: "flags")
    let method = JSONKey(prebuilt: "method")
    let target = JSONKey(prebuilt: "target")
    let host = JSONKey(prebuilt: "host")
    let version = JSONKey(prebuilt: "version")
    let streamId = JSONKey(prebuilt: "stream_id")
    let tsFirst = JSONKey(prebuilt: "ts_first")
    let tsLast = JSONKey(prebuilt: "ts_last")
    let status = JSONKey(prebuilt: "status")
    let reason = JSONKey(prebuilt: "reason")
    let contentEncoding = JSONKey(prebuilt: "content_encoding")
    let decodedBody = JSONKey(prebuilt: "decoded_body")

    /// `cancel` of an exchange not cancelled.
    let noCancel: NullMembers
    /// `http2`, `http3`, `tls` of an HTTP/1.x exchange without TLS.
    let noStreamNorTLS: NullMembers
    /// `content_encoding`, `decoded_body` of a message without a coding.
    let noBodyCoding: NullMembers

    /// `wire.up` and `wire.down`: a direction's members, upgraded bytes and what came after a cancel.
    let exchangeUp: NumberMembers<35>
    let exchangeDown: NumberMembers<35>
    /// `timing`: the eight phases in milliseconds.
    let timingPhases = NumberMembers<8>(object: ["blocked", "dns", "connect", "ssl", "send", "wait", "receive", "total"])
    /// A message's byte counts: the members of HTTP/2's and HTTP/3's `bytes` object, and HTTP/1.x's whole
    /// `bytes` member with its total.
    let messageByteMembers: NumberMembers<4>
    let messageBytesMember: NumberMembers<5>
    /// A response's `interim`.
    let interimMember = NumberMembers<2>(member: "interim", object: ["count", "bytes"])

    private init() {
        noCancel = NullMembers([cancel])
        noStreamNorTLS = NullMembers([http2, http3, tls])
        noBodyCoding = NullMembers([contentEncoding, decodedBody])
        let direction = RecordEncoding.directionMembers(missingBytes: false)
            + ["upgraded_payload_bytes", .object("after_cancel", RecordEncoding.counterNames)]
        exchangeUp = NumberMembers(member: "up", object: direction)
        exchangeDown = NumberMembers(member: "down", object: direction)
        let messageBytes: [NumberMember] = ["start_line", "headers", "body", "framing"]
        messageByteMembers = NumberMembers(messageBytes)
        messageBytesMember = NumberMembers(member: "bytes", object: messageBytes + ["total"])
    }
}
