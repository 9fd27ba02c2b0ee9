/// One HTTP/2 message being gathered from the frames of its stream in one direction.
typealias HTTP2MessageBuilder = HTTPMessageBuilder<HTTP2StreamInfo>

extension HTTPMessageBuilder where Details == HTTP2StreamInfo {
    convenience init(kind: HTTPMessage.Kind, direction: FlowDirection, exchangeIndex: Int, streamID: UInt32) {
        self.init(kind: kind, direction: direction, exchangeIndex: exchangeIndex, info: HTTP2StreamInfo(streamID: streamID))
    }
}

extension HTTP2StreamInfo: HTTPStreamDetails {
    static var httpVersion: String { "HTTP/2" }
    func attach(to message: inout HTTPMessage) { message.http2 = self }
}
