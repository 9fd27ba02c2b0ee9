/// Members of an object that are all null, in order (`"http2":null,"http3":null,"tls":null` of an
/// HTTP/1.x exchange without TLS), with their text made once, so the text encoder copies them at once
/// instead of writing a key and a `null` for each.
///
/// Made once, as `HTTPRecordLayout`'s constants, for the program's life.
struct NullMembers: @unchecked Sendable {
    /// The members' names, in order.
    let keys: [JSONKey]
    /// `,"a":null,"b":null…` in `PaddedText`.
    let text: UnsafePointer<UInt8>
    /// The length of `text`.
    let textCount: Int
    /// The members as the steps of a run (each a `number` step: a leaf), for the CSV encoder's column
    /// resolver: under the keys' own literals, so the resolver's steps for them are those of the same
    /// keys written one by one (a name held by value gets a copy kept for the program's life).
    let steps: [NumberRunStep]

    /// What tells these members from others (`CSVColumnResolver`'s run identity).
    var identity: UnsafeRawPointer { UnsafeRawPointer(text) }

    init(_ keys: [JSONKey]) {
        self.keys = keys
        var text: [UInt8] = []
        for key in keys {
            text += [UInt8(ascii: ","), UInt8(ascii: "\"")]
            key.name.withUTF8Buffer { text += $0 }
            text += Array("\":null".utf8)
        }
        self.text = PaddedText.make(text)
        textCount = text.count
        steps = keys.enumerated().map { index, key in
            let name = key.name
            let bytes = name.hasPointerRepresentation
                ? UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
                : PaddedText.immortalCopy(of: name.withUTF8Buffer { Array($0) })
            return .number(index, name, bytes)
        }
    }
}
