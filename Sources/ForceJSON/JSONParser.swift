/// A JSON syntax error, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    public let offset: Int

    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// Parses RFC 8259 JSON from UTF-8 bytes. Strict: no comments, no trailing commas, no NaN.
public struct JSONParser {
    /// Nesting deeper than this is refused rather than risking the stack on hostile input.
    public static let maximumDepth = 512

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in Result { () throws(JSONParseError) in try parse(buffer) } }
        return try result.get()
    }

    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let array = Array(bytes)
        let result = array.withUnsafeBufferPointer { buffer in Result { () throws(JSONParseError) in try parse(buffer) } }
        return try result.get()
    }

    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = Cursor(bytes: buffer)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// Parses text that must hold an object.
    public static func parseObject(_ text: String) throws(JSONParseError) -> JSONObject {
        guard case let .object(object) = try parse(text) else {
            throw JSONParseError(message: "expected an object", offset: 0)
        }
        return object
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard let byte = current else { throw error("unexpected end of input") }
            switch byte {
            case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
            case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1))
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character '\(Unicode.Scalar(byte))'")
            }
        }

        mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("unexpected end of input") }
            let start = literal.utf8Start
            for offset in 0..<count where bytes[index + offset] != start[offset] {
                throw error("invalid literal")
            }
            index += count
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONObject {
            guard depth <= JSONParser.maximumDepth else { throw error("nesting too deep") }
            index += 1
            var object = JSONObject()
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return object
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let key = try parseString()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
                index += 1
                skipWhitespace()
                object[key] = try parseValue(depth: depth)
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return object
                default: throw error("expected ',' or '}' in an object")
                }
            }
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> [JSONValue] {
            guard depth <= JSONParser.maximumDepth else { throw error("nesting too deep") }
            index += 1
            var array: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return array
            }
            while true {
                skipWhitespace()
                array.append(try parseValue(depth: depth))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return array
                default: throw error("expected ',' or ']' in an array")
                }
            }
        }

        mutating func parseString() throws(JSONParseError) -> String {
            index += 1  // opening quote
            let start = index
            // Fast path: no escapes.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    guard let string = String(validating: slice, as: UTF8.self) else {
                        throw JSONParseError(message: "invalid UTF-8 in a string", offset: start)
                    }
                    return string
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("control character in a string") }
                index += 1
            }
            var scratch = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let string = String(validating: scratch, as: UTF8.self) else {
                        throw JSONParseError(message: "invalid UTF-8 in a string", offset: start)
                    }
                    return string
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escaped = current else { throw error("unexpected end of input") }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""): scratch.append(0x22)
                    case UInt8(ascii: "\\"): scratch.append(0x5C)
                    case UInt8(ascii: "/"): scratch.append(0x2F)
                    case UInt8(ascii: "b"): scratch.append(0x08)
                    case UInt8(ascii: "f"): scratch.append(0x0C)
                    case UInt8(ascii: "n"): scratch.append(0x0A)
                    case UInt8(ascii: "r"): scratch.append(0x0D)
                    case UInt8(ascii: "t"): scratch.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try parseHex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                                bytes[index + 1] == UInt8(ascii: "u")
                            else { throw error("unpaired surrogate") }
                            index += 2
                            let low = try parseHex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            throw error("unpaired surrogate")
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                        scratch.append(contentsOf: String(Character(unicode)).utf8)
                    default:
                        throw error("invalid escape")
                    }
                default:
                    if byte < 0x20 { throw error("control character in a string") }
                    scratch.append(byte)
                    index += 1
                }
            }
            throw error("unterminated string")
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("unexpected end of input") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("invalid \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONValue {
            let start = index
            var isInteger = true
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, isDigit(first) else { throw error("invalid number") }
            if first == UInt8(ascii: "0") {
                index += 1
                if let next = current, isDigit(next) { throw error("leading zero in a number") }
            } else {
                while let byte = current, isDigit(byte) { index += 1 }
            }
            if current == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard let byte = current, isDigit(byte) else { throw error("invalid number") }
                while let byte = current, isDigit(byte) { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let byte = current, isDigit(byte) else { throw error("invalid number") }
                while let byte = current, isDigit(byte) { index += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .int(integer) }
            guard let double = Double(text), double.isFinite else {
                throw JSONParseError(message: "number out of range", offset: start)
            }
            return .double(double)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
