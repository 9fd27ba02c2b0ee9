/// The name of an object member (`JSONEncoding.key(_:)`), a literal with nothing JSON would escape:
/// written as it is where a string literal is expected, or made once (`JSONKey(prebuilt:)`, kept in a
/// `static let`) with its text `,"name":` ready, which the text encoder copies in one move without a
/// test of its length (`PaddedText`) — for the members every record has.
struct JSONKey: ExpressibleByStringLiteral, @unchecked Sendable {
    let name: StaticString
    /// `,"name":` in `PaddedText`, for a prebuilt key; nil for a literal.
    let text: UnsafePointer<UInt8>?
    /// The length of `,"name":`.
    let textCount: Int

    init(stringLiteral name: StaticString) {
        self.name = name
        text = nil
        textCount = name.withUTF8Buffer { $0.count } &+ 4
    }

    init(_ name: StaticString) { self.init(stringLiteral: name) }

    /// A key with its text made now, for the life of the program.
    init(prebuilt name: StaticString) {
        self.name = name
        let utf8 = name.withUTF8Buffer { Array($0) }
        textCount = utf8.count + 4
        text = PaddedText.make([UInt8(ascii: ","), UInt8(ascii: "\"")] + utf8 + [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }
}
