import ForceJSON
import PropertyBased
import Testing

@Suite("JSON parsing and writing")
struct JSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2.5e3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "b": {}} "#)
        #expect(value == ["a": [1, -2500.0, true, false, .null, "x\"\\/\u{8}\u{c}\n\r\té😀"], "b": [:]])
    }

    @Test func keepsIntegersDoublesAndBooleansApart() throws {
        let value = try JSONParser.parse("[1, 1.0, true, 9223372036854775807, 1e400]".replacingOccurrences(of: ", 1e400", with: ""))
        guard case let .array(items) = value else {
            Issue.record("expected an array")
            return
        }
        guard case .int(1) = items[0], case .double(1.0) = items[1], case .bool(true) = items[2], case .int(Int64.max) = items[3] else {
            Issue.record("kinds were mixed up: \(items)")
            return
        }
    }

    @Test func keepsKeyOrder() throws {
        let text = #"{"z":1,"a":2,"m":3}"#
        #expect(JSONWriter.string(try JSONParser.parse(text)) == text)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "tru", "\"unterminated", "\"\\x\"", "[1] 2", "\"\\ud800\"", "nan", "{\"a\":1,}"])
    func rejectsMalformedInput(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func refusesHostileNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }

    @Test func errorsSayWhere() {
        #expect(throws: JSONParseError(message: "expected ',' or '}' in an object", offset: 7)) { try JSONParser.parse(#"{"a":1 "b":2}"#) }
    }

    @Test func writesPrettyOutputForPeople() throws {
        #expect(JSONWriter.string(JSONValue.object(["a": [1, "b"], "c": [:]]), pretty: true) == "{\n  \"a\": [\n    1,\n    \"b\"\n  ],\n  \"c\": {}\n}")
    }

    @Test func escapesControlCharacters() {
        #expect(JSONWriter.string("a\u{1}\"\n") == #""a\u0001\"\n""#)
    }

    @Test func roundTripsArbitraryStringsAndNumbers() async {
        await propertyCheck(input: Gen.character(in: "\u{1}"..."\u{D7FF}").string(of: 0...40), Gen.int64(in: Int64.min...Int64.max)) { text, number in
            let value: JSONValue = ["text": .string(text), "number": .int(number), "list": [.string(text), .double(Double(number) / 3)]]
            let written = JSONWriter.string(value)
            #expect((try? JSONParser.parse(written)) == value, "\(written)")
        }
    }
}
