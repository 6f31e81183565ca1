/// Serialises JSON values: compact by default, or indented for people to read.
public enum JSONWriter {
    public static func string(_ value: JSONValue, pretty: Bool = false) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(value, into: &bytes, pretty: pretty)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func string(_ object: JSONObject, pretty: Bool = false) -> String {
        string(.object(object), pretty: pretty)
    }

    public static func write(_ value: JSONValue, into bytes: inout [UInt8], pretty: Bool = false) {
        write(value, into: &bytes, indent: pretty ? 0 : nil)
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int?) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case let .int(i): out.append(contentsOf: String(i).utf8)
        case let .double(d): writeDouble(d, into: &out)
        case let .string(s): writeString(s, into: &out)
        case let .array(items):
            guard !items.isEmpty else {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                newline(into: &out, indent: indent.map { $0 + 1 })
                write(item, into: &out, indent: indent.map { $0 + 1 })
            }
            newline(into: &out, indent: indent)
            out.append(UInt8(ascii: "]"))
        case let .object(object):
            guard !object.isEmpty else {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, item) in object {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                newline(into: &out, indent: indent.map { $0 + 1 })
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(item, into: &out, indent: indent.map { $0 + 1 })
            }
            newline(into: &out, indent: indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(into out: inout [UInt8], indent: Int?) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private static func writeDouble(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        // Keep whole doubles visibly floating ("2.0"), as Swift's description does.
        out.append(contentsOf: d.description.utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { buffer in
            var runStart = 0
            for (index, byte) in buffer.enumerated() {
                let escape: UInt8?
                switch byte {
                case 0x22: escape = UInt8(ascii: "\"")
                case 0x5C: escape = UInt8(ascii: "\\")
                case 0x0A: escape = UInt8(ascii: "n")
                case 0x0D: escape = UInt8(ascii: "r")
                case 0x09: escape = UInt8(ascii: "t")
                case 0x00..<0x20: escape = UInt8(ascii: "u")
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index]))
                runStart = index + 1
                out.append(UInt8(ascii: "\\"))
                if let escape, escape != UInt8(ascii: "u") {
                    out.append(escape)
                } else {
                    out.append(contentsOf: "u00".utf8)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0xF)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<buffer.count]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
