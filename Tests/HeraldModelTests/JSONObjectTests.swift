import Foundation
import HeraldServerModel
import Testing

@testable import HeraldModel

/// JSON walked as Swift values (the sandbox's provider checks, the credential and apps files),
/// read with `JSONDecoder` since the server does without `JSONSerialization`.
@Suite("JSON as Swift values")
struct JSONObjectTests {
    @Test("numbers read as Int when an Int holds them, else Double; true is never a number; null is kept")
    func reading() throws {
        let text =
            #"{"i":1,"f":1.5,"e":1e3,"big":1e300,"neg":-0,"t":true,"n":null,"s":"x","a":[1,"y",{}],"o":{"k":[]}}"#
        let object = try #require(JSONValue.object(Array(text.utf8)) as? [String: Any])
        #expect(object["i"] as? Int == 1 && object["f"] as? Double == 1.5 && object["e"] as? Int == 1_000)
        #expect(object["big"] as? Double == 1e300 && object["big"] as? Int == nil)
        #expect(object["neg"] as? Int == 0)
        let exact = try #require(JSONValue.object(Array("[9007199254740993,1.0]".utf8)) as? [Any])
        #expect(exact.first as? Int == 9_007_199_254_740_993 && exact[1] as? Int == 1)
        #expect(object["t"] as? Bool == true && object["t"] as? Int == nil && object["i"] as? Bool == nil)
        #expect(object["n"] as? JSONValue == .null && object["n"] != nil)
        #expect(object["s"] as? String == "x")
        let array = try #require(object["a"] as? [Any])
        #expect(array.count == 3 && array[0] as? Int == 1 && array[2] is [String: Any])
        #expect((object["o"] as? [String: Any])?["k"] is [Any])
        let twice = try #require(JSONValue.object(Array(#"{"a":1,"a":2}"#.utf8)) as? [String: Any])
        #expect(twice["a"] as? Int == 1, "of a key given twice, the first is kept")
        #expect(
            JSONValue.object(Array("[1,]".utf8)) as? [Int] == [1],
            "a trailing comma is taken, as JSONSerialization took it")
    }

    @Test("what is not JSON reads as nil", arguments: ["", "{", "{\"a\":}", "{'a':1}", "nul", "{\"a\":1}x"])
    func notJSON(_ text: String) {
        #expect(JSONValue.object(Array(text.utf8)) == nil)
    }

    @Test("writing: sorted keys, integers of every width with every digit, nested values; nil for anything else")
    func writing() throws {
        let value: [String: Any] = [
            "b": 2, "a": Int64(1_800_000_000), "c": UInt16(7), "d": 0.5, "e": Float(0.25), "f": true,
            "g": [1, "two", ["x": JSONValue.null, "y": JSONValue.number(3)]], "h": "\u{e9}/\"",
            "i": UInt64.max, "j": Int64.min, "k": 9_007_199_254_740_993,
        ]
        let bytes = try #require(JSONWriter.data(value))
        let expected =
            #"{"a":1800000000,"b":2,"c":7,"d":0.5,"e":0.25,"f":true,"g":[1,"two",{"x":null,"y":3}],"h":"é/\"","#
            + #""i":18446744073709551615,"j":-9223372036854775808,"k":9007199254740993}"#
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        let back = try #require(JSONValue.object(bytes) as? [String: Any])
        #expect(back["k"] as? Int == 9_007_199_254_740_993 && back["j"] as? Int == Int.min)
        #expect(back["i"] as? Double == Double(UInt64.max), "beyond Int: the nearest Double")
        #expect(JSONWriter.data(["d": Date()]) == nil)
        #expect(JSONWriter.data(["u": [URL(fileURLWithPath: "/")]]) == nil)
    }
}
