import Foundation
import Testing

@testable import HeraldStore

@Suite("Flat JSON object parser")
struct FlatJSONObjectTests {
    @Test("reads what JSONEncoder writes, escapes included, exactly as JSONDecoder does")
    func matchesJSONDecoder() throws {
        let samples: [[String: String]] = [
            [:], ["orderId": "42"],
            ["q": "quote \" backslash \\ slash / newline \n tab \t nul \u{0} bell \u{07}", "emoji": "👩‍👩‍👧 é ñ 中"],
            ["": "", "k": String(repeating: "x", count: 2000)],
        ]
        for sample in samples {
            for formatting in [
                JSONEncoder.OutputFormatting(), [.sortedKeys, .withoutEscapingSlashes], [.prettyPrinted],
            ] {
                let encoder = JSONEncoder()
                encoder.outputFormatting = formatting
                let text = String(decoding: try encoder.encode(sample), as: UTF8.self)
                #expect(FlatJSONObject.parse(text) == sample, "\(text)")
            }
        }
        #expect(FlatJSONObject.parse(#"{"a":"\ud83d\ude00","b":"\u00e9"}"#) == ["a": "😀", "b": "é"])
        #expect(try StoreJSON.decodeData(StoreJSON.encodeData(["a": "b\"c"])) == ["a": "b\"c"])
    }

    @Test("anything but a flat object of strings is refused, so the caller falls back")
    func refusesOtherShapes() {
        for text in [
            "", "[]", #"{"a":1}"#, #"{"a":null}"#, #"{"a":"b""#, #"{"a":"b"} x"#, #"{"a":"\x"}"#,
            #"{"a":"\ud83d"}"#, "{\"a\":\"line\nbreak\"}", #"{"a" "b"}"#, #"{"a":"b",}"#,
        ] {
            #expect(FlatJSONObject.parse(text) == nil, "\(text)")
        }
    }
}
