extension ContentCoding {
    /// The codings of `contentEncoding` the `rebuilt` estimator re-applies (`BodyReencoder`), in the
    /// order they were applied; nil when the body is not encoded or one of its codings is unknown or not
    /// re-encoded (deflate, whose wrapper — zlib or raw — and level a client cannot know).
    static func reencoded(_ contentEncoding: String?) -> [ContentCoding]? {
        guard let codings = contentEncoding.flatMap(ContentCoding.list), !codings.isEmpty,
            codings.count <= ContentDecoder.maximumCodings, !codings.contains(.deflate)
        else { return nil }
        return codings
    }
}
