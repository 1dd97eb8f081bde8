import HeraldModel
import HeraldServerModel
import Testing

@Suite struct JSONShapeTests {
    private func problem(_ text: String, depth: Int = 4) -> JSONShape.Problem? {
        JSONShape.problem(in: Array(text.utf8), maxDepth: depth)
    }

    @Test func depthAtTheLimitPassesAndOneMoreFails() {
        #expect(problem(#"{"a":[{"b":[1]}]}"#) == nil)
        #expect(problem(#"{"a":[{"b":[[1]]}]}"#) == .tooDeep(limit: 4))
        #expect(
            problem(String(repeating: "[", count: 500) + String(repeating: "]", count: 500), depth: 32)
                == .tooDeep(limit: 32))
    }

    @Test func bracketsAndQuotesInsideStringsAreText() {
        #expect(problem(#"{"a":"[[[[[[{{{{","b":"\"[[[[[[\\"}"#) == nil)
        #expect(problem(#"{"k\"ey":1,"k\\\"ey":2}"#) == nil)
    }

    @Test func repeatedKeysAreFoundAtAnyDepthAfterEscapes() {
        #expect(problem(#"{"a":1,"a":2}"#) == .duplicateKey("a"))
        #expect(problem(#"{"x":{"y":{"a":1,"b":2,"a":3}}}"#) == .duplicateKey("a"))
        #expect(problem(#"{"a":1,"\u0061":2}"#) == .duplicateKey("a"))
        #expect(problem(#"{"😀":1,"\ud83d\ude00":2}"#) == .duplicateKey("😀"))
        // Canonically equivalent keys are the same Swift string, as the decoder sees them.
        #expect(problem("{\"\u{E9}\":1,\"e\u{301}\":2}") != nil)
    }

    @Test func theSameKeyInDifferentObjectsIsFine() {
        #expect(problem(#"[{"id":1},{"id":2}]"#) == nil)
        #expect(problem(#"{"a":{"id":1},"b":{"id":2},"id":3}"#) == nil)
        #expect(problem(#"{"a":["a","a"],"b":"a"}"#) == nil, "values that look like keys are values")
    }

    @Test func textThatIsNotJSONIsLeftToTheDecoder() {
        #expect(problem(#"{"a":"unterminated"#) == nil)
        #expect(problem("]]]") == nil)
        #expect(problem("plain text") == nil)
        #expect(problem(#"{"a\u12"#) == nil)
    }
}
