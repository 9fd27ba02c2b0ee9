/// How many frames of one kind a direction carried and their bytes (9-byte headers included).
package struct HTTP2FrameCount: Hashable, Sendable {
    package var frames = 0
    package var bytes: Int64 = 0
    package init(frames: Int = 0, bytes: Int64 = 0) {
        self.frames = frames
        self.bytes = bytes
    }
}

/// The frames of one direction by type, and the client preface.
///
/// A frame is counted when its header is read; its bytes as they are read (a frame cut by the end of
/// the stream counts the bytes seen; bytes of a frame lost in a gap count as the frame's).
package struct HTTP2FrameTotals: Hashable, Sendable {
    /// Types 0 (DATA) to 9 (CONTINUATION), by type number.
    package private(set) var known = [HTTP2FrameCount](repeating: HTTP2FrameCount(), count: 10)
    /// Frames of any other type (extensions).
    package var unknown = HTTP2FrameCount()
    /// Bytes of the client connection preface seen (24 when it was there; the server sends none).
    package var prefaceBytes = 0

    package init() {}

    /// The count for frame type `type` (types above 9 share `unknown`).
    package subscript(type: UInt8) -> HTTP2FrameCount {
        get { HTTP2FrameType.isKnown(type) ? known[Int(type)] : unknown }
        set {
            if HTTP2FrameType.isKnown(type) { known[Int(type)] = newValue } else { unknown = newValue }
        }
    }

    /// Every frame of the direction.
    package var all: HTTP2FrameCount {
        known.reduce(unknown) { HTTP2FrameCount(frames: $0.frames + $1.frames, bytes: $0.bytes + $1.bytes) }
    }
}
