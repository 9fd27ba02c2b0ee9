import Testing
@testable import WireTally

@Suite struct InsightsPathTemplateTests {
    @Test(arguments: [
        ("/users/123", "/users/{id}"),
        ("/users/123/orders/-7", "/users/{id}/orders/{id}"),
        ("/api/status?client=3&x=1", "/api/status"),
        ("/a/b#frag", "/a/b"),
        ("/items/4f0c2a9e-7b1d-4c3e-9f2a-0123456789AB", "/items/{uuid}"),
        ("/blobs/5f2b9c0e1d3a4b6c8d9e", "/blobs/{hash}"),
        ("/commit/da39a3ee5e6b4b0d3255bfef95601890afd80709/tree", "/commit/{hash}/tree"),
        ("/reports/2026-11-22", "/reports/{date}"),
        ("/s/dGhpcyBpcyBhIHRva2VuMTIz", "/s/{token}"),
        ("/img/12345.jpg", "/img/{id}.jpg"),
        ("/v2/users/", "/v2/users/"),
        ("/index.html", "/index.html"),
        ("/deadbeefcafebabe", "/deadbeefcafebabe"),  // hex letters without a digit: a word, not a hash
        ("/a1b2", "/a1b2"),
        ("", "/"),
        ("?q=1", "/"),
        ("*", "*"),
        ("http://example.com/users/9?x", "/users/{id}"),
        ("http://example.com", "/"),
        ("https://example.com?x=1", "/"),
        ("/files/7.tar.gz", "/files/7.tar.gz"),
        ("/img/12345.JPEG", "/img/{id}.JPEG"),
        ("/img/12345.jpeg2", "/img/12345.jpeg2"),
        ("/img/.12345", "/img/.12345"),
        ("//double//slash", "//double//slash"),
        ("/caf\u{E9}/42/na\u{EF}ve", "/caf\u{E9}/{id}/na\u{EF}ve"),
        // bytes, not characters: a combining mark after `/` does not hide the `/`
        ("/users/\u{301}12/9", "/users/\u{301}12/{id}"),
        ("/a?b/123", "/a"),
        ("/x/123#/456", "/x/{id}"),
        ("mailto://", "/"),
    ])
    func templates(_ target: String, _ expected: String) {
        #expect(PathTemplate.template(of: target) == expected)
    }

    @Test func wordsAndVersionsStay() {
        #expect(PathTemplate.template(of: "/api/v1/search/recent-items") == "/api/v1/search/recent-items")
        #expect(PathTemplate.template(of: "/very-long-word-with-dashes-only") == "/very-long-word-with-dashes-only")
    }
}
