/// Where one direction of a connection sends its reassembled bytes: the connection's consumer, if any.
struct StreamDelivery {
    unowned(unsafe) let consumer: (any TCPStreamConsumer)?
    let direction: FlowDirection

    init(consumer: (any TCPStreamConsumer)?, direction: FlowDirection) {
        self.consumer = consumer
        self.direction = direction
    }

    func data(_ bytes: UnsafeRawBufferPointer, at offset: Int64, origin: PacketOrigin) {
        guard !bytes.isEmpty else { return }
        consumer?.streamData(bytes, offset: offset, direction: direction, origin: origin)
    }

    func gap(at offset: Int64, length: Int64, reason: StreamGapReason) {
        guard length > 0 else { return }
        consumer?.streamGap(offset: offset, length: length, direction: direction, reason: reason)
    }

    func ended() { consumer?.streamEnded(direction: direction) }
}
