/// Where one direction of a connection sends its reassembled bytes: the connection's consumer, if any.
struct StreamDelivery {
    unowned(unsafe) let consumer: (any TCPStreamConsumer)?
    /// `consumer` when it is the application-layer analysis (the default), unretained: a call through
    /// the existential retains and releases the object, and data is delivered on every packet.
    let applicationLayer: Unmanaged<ApplicationLayerAnalysis>?
    let direction: FlowDirection

    init(
        consumer: (any TCPStreamConsumer)?, applicationLayer: Unmanaged<ApplicationLayerAnalysis>?,
        direction: FlowDirection
    ) {
        self.consumer = consumer
        self.applicationLayer = applicationLayer
        self.direction = direction
    }

    func data(_ bytes: UnsafeRawBufferPointer, at offset: Int64, origin: PacketOrigin) {
        guard !bytes.isEmpty else { return }
        if let applicationLayer {
            return applicationLayer._withUnsafeGuaranteedRef {
                $0.streamData(bytes, offset: offset, direction: direction, origin: origin)
            }
        }
        consumer?.streamData(bytes, offset: offset, direction: direction, origin: origin)
    }

    func gap(at offset: Int64, length: Int64, reason: StreamGapReason) {
        guard length > 0 else { return }
        consumer?.streamGap(offset: offset, length: length, direction: direction, reason: reason)
    }

    func ended() { consumer?.streamEnded(direction: direction) }
}
