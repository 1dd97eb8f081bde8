import Foundation
import Testing

@testable import HeraldSandbox

/// The payload scanner against the full parser it replaces: the same answer for every body the
/// scanner decides, across hand-written edge cases and every one-byte change of real payloads,
/// but two. The full parser (`JSONDecoder`) would take a trailing comma (`{"aps":{},}`), which RFC
/// 8259 and so the scanner refuse; and of a key given twice it keeps the first, where the scanner
/// keeps the last, as Foundation's `JSONSerialization` did (``verdicts()`` pins the scanner's
/// answers for both orders).
@Suite("APNs payload scanner")
struct APNsPayloadScannerTests {
    private static let payloads = [
        #"{"aps":{"alert":{"title":"Your order shipped","body":"Arrives Friday"},"badge":1,"sound":"default"},"notificationId":"n-1","type":"order.shipped","hasDetail":"false"}"#,
        #"{ "data" : [1, -2.5, 0, true, false, null, "x\"y\\z\/\u00e9\n"], "aps" : { "content-available" : 1 } }"#,
        "{\"aps\":{\"alert\":\"Caf\u{e9} \u{1F600}\"},\"n\":{\"a\":[[],{}]}}",
    ]

    private static let edgeCases = [
        "", " ", "{}", "[]", "null", "1", #""aps""#, #"{"aps":{}}"#, #"{"aps":1}"#, #"{"aps":[]}"#,
        #"{"aps":null}"#, #"{"aps":"x"}"#, #"{"aps":{},"aps":1}"#, #"{"aps":1,"aps":{}}"#, #"{"APS":{}}"#,
        #"{"aps":{}} "#, #" {"aps":{}}"#, "\t{\"aps\":{}}\r\n", #"{"aps":{}}x"#, #"{"aps":{}}{}"#, #"{"aps":{},}"#,
        #"{,"aps":{}}"#, #"{"aps":{}"#, #"{"aps" {}}"#, #"{"aps":{"a":}}"#, #"{aps:{}}"#, #"{'aps':{}}"#,
        #"{"aps":{"b":01}}"#, #"{"aps":{"b":-0}}"#, #"{"aps":{"b":1.}}"#, #"{"aps":{"b":.5}}"#,
        #"{"aps":{"b":-}}"#, #"{"aps":{"b":+1}}"#, #"{"aps":{"b":1e5}}"#, #"{"aps":{"b":1E+2}}"#,
        #"{"aps":{"b":1e}}"#, #"{"aps":{"b":12345678901234567890}}"#, #"{"aps":{"b":0.1}}"#,
        #"{"aps":{"b":tru}}"#, #"{"aps":{"b":nul}}"#, #"{"aps":{"b":True}}"#, #"{"aps":{"b":"\x"}}"#,
        #"{"aps":{"b":"\u12"}}"#, #"{"aps":{"b":"\u12G4"}}"#, #"{"aps":{"b":"\uD83D\uDE00"}}"#,
        #"{"aps":{"b":"\uD83D"}}"#, #"{"aps":{"b":"\uDE00"}}"#, #"{"\u0061ps":{}}"#, "{\"aps\":{\"b\":\"tab\tin\"}}",
        "{\"aps\":{\"b\":\"nul\u{0}\"}}", #"{"aps":{"b":[1,2,]}}"#, #"{"aps":{"b":[,1]}}"#, #"{"aps":{"b":[1 2]}}"#,
    ]

    private static func check(_ body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let scanned = APNsPayloadScanner.isPushPayload(body) else { return false }
        guard !hasApsTwice(body) else { return true }
        let parsed = APNsRequestReader.parsesAsPushPayload(body) && !hasTrailingComma(body)
        #expect(
            scanned == parsed, "scanner \(scanned), parser \(parsed): \(String(decoding: body, as: UTF8.self))",
            sourceLocation: sourceLocation)
        return true
    }

    /// Whether `"aps"` appears twice: the parsers keep different ones of the two.
    private static func hasApsTwice(_ body: [UInt8]) -> Bool {
        String(decoding: body, as: UTF8.self).ranges(of: #""aps""#).count > 1
    }

    /// Whether a `,` outside every string is followed by `}` or `]` (whitespace between).
    private static func hasTrailingComma(_ body: [UInt8]) -> Bool {
        var inString = false
        var escaped = false
        var afterComma = false
        for byte in body {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                afterComma = false
            case UInt8(ascii: ","): afterComma = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if afterComma { return true }
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: afterComma = false
            }
        }
        return false
    }

    @Test("what it accepts and refuses, by hand")
    func verdicts() {
        let accepted = [#"{"aps":{}}"#, #" {"aps":{"alert":"hi"},"x":[1,{"y":null}]} "#, #"{"aps":1,"aps":{}}"#]
        for body in accepted { #expect(APNsPayloadScanner.isPushPayload(Array(body.utf8)) == true, "\(body)") }
        let refused = [
            "", "[]", "{}", #"{"aps":[]}"#, #"{"aps":{},"aps":1}"#, #"{"aps":{}}x"#, #"{"aps":{"b":01}}"#,
            #"{"aps":{},}"#, #"{"aps":{"b":[1,]}}"#,
        ]
        for body in refused { #expect(APNsPayloadScanner.isPushPayload(Array(body.utf8)) == false, "\(body)") }
        #expect(APNsPayloadScanner.isPushPayload([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) == false, "not UTF-8")
    }

    @Test("the full parser's answer for every edge case the scanner decides")
    func edgeCasesMatchTheParser() {
        var decided = 0
        for body in Self.edgeCases where Self.check(Array(body.utf8)) { decided += 1 }
        #expect(decided >= Self.edgeCases.count - 12, "the scanner decides most cases itself")
    }

    @Test("nesting: as deep as the full parser goes, and refused one level deeper")
    func nesting() {
        let limit = APNsPayloadScanner.maximumDepth
        for depth in [limit - 3, limit - 2, limit - 1, limit, limit + 1] {
            let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let body = #"{"aps":{"a":"# + arrays + "}}"
            #expect(Self.check(Array(body.utf8)), "depth \(depth)")
        }
    }

    @Test("the full parser's answer for every truncation, deletion and one-byte change of real payloads")
    func mutationsMatchTheParser() {
        let replacements = Array(#""\{}[],: 0-e.aU"#.utf8) + [0x01, 0xC3, 0xFF, 0x7F]
        var cases = 0
        var decided = 0
        for payload in Self.payloads.map({ Array($0.utf8) }) {
            var bodies: [[UInt8]] = [payload]
            for end in 0..<payload.count { bodies.append(Array(payload[..<end])) }
            for position in payload.indices {
                var deleted = payload
                deleted.remove(at: position)
                bodies.append(deleted)
                for byte in replacements where byte != payload[position] {
                    var changed = payload
                    changed[position] = byte
                    bodies.append(changed)
                }
            }
            for body in bodies {
                cases += 1
                if Self.check(body) { decided += 1 }
            }
        }
        #expect(cases > 5_000)
        #expect(decided * 10 >= cases * 9, "the scanner decided \(decided) of \(cases) itself")
    }
}
