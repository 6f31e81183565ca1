import Foundation

/// One content line of a vCard: `group.NAME;PARAM=value:value`, unfolded and decoded.
public struct VCardProperty: Sendable, Equatable {
    /// `item1` in `item1.EMAIL` (Apple's labels); nil if none.
    public var group: String?
    /// Uppercased: `TEL`, `X-SALESFORCE-ACCOUNTID`.
    public var name: String
    /// Keys uppercased; values split on unquoted commas, quotes removed. vCard 2.1's bare
    /// parameters (`TEL;WORK;VOICE:`) become TYPE values; TYPE values are lowercased.
    public var parameters: [String: [String]]
    /// The value after unfolding and after decoding quoted-printable or base64 text, still escaped.
    public var value: String

    public init(name: String, parameters: [String: [String]] = [:], value: String, group: String? = nil) {
        self.group = group
        self.name = name.uppercased()
        self.parameters = parameters
        self.value = value
    }

    /// A text value, escaped from plain text.
    public init(name: String, parameters: [String: [String]] = [:], text: String) {
        self.init(name: name, parameters: parameters, value: VCardFormat.escape(text))
    }

    /// A structured value (N, ADR, ORG): each component escaped, joined with `;`.
    public init(name: String, parameters: [String: [String]] = [:], components: [String]) {
        self.init(name: name, parameters: parameters, value: components.map(VCardFormat.escape).joined(separator: ";"))
    }

    /// The whole value unescaped.
    public var text: String { VCardFormat.unescape(value) }

    /// The value split on unescaped `;`, each part unescaped.
    public var components: [String] { VCardFormat.split(value, on: ";").map(VCardFormat.unescape) }

    /// The TYPE values, lowercased; `pref` also for vCard 4.0's `PREF=1`.
    public var types: Set<String> {
        var types = Set((parameters["TYPE"] ?? []).map { $0.lowercased() })
        if parameters["PREF"] != nil { types.insert("pref") }
        return types
    }
}

/// One card: its version, its properties in file order (without BEGIN, END and VERSION), and the
/// line its BEGIN:VCARD is on, so a bad card can be named.
public struct VCard: Sendable, Equatable {
    public var version: String
    public var properties: [VCardProperty]
    public var line: Int
    /// The line of its END:VCARD (0 for a card made here).
    public var endLine = 0

    public init(version: String = "4.0", properties: [VCardProperty] = [], line: Int = 0) {
        self.version = version
        self.properties = properties
        self.line = line
    }

    public func first(_ name: String) -> VCardProperty? {
        let wanted = name.uppercased()
        return properties.first { $0.name == wanted }
    }

    public func all(_ name: String) -> [VCardProperty] {
        let wanted = name.uppercased()
        return properties.filter { $0.name == wanted }
    }

    /// Apple's labels for grouped properties (`item1.EMAIL` with `item1.X-ABLabel:_$!<Work>!$_`),
    /// by lowercased group, lowercased and without Apple's `_$!<…>!$_` wrapping.
    public var groupLabels: [String: String] {
        var labels: [String: String] = [:]
        for property in properties where property.name == "X-ABLABEL" {
            guard let group = property.group?.lowercased() else { continue }
            var label = property.text.trimmingWhitespace
            if label.hasPrefix("_$!<"), label.hasSuffix(">!$_") { label = String(label.dropFirst(4).dropLast(4)) }
            if !label.isEmpty { labels[group] = label.lowercased() }
        }
        return labels
    }
}

/// Why a vCard file cannot be read, with the line.
public struct VCardSyntaxError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let reason: String
    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }
    public var description: String { "line \(line): \(reason)" }
}

/// vCard 2.1 (quoted-printable, bare parameters), 3.0 (RFC 2426) and 4.0 (RFC 6350), read; 4.0
/// written.
public enum VCardFormat {
    // MARK: Reading

    /// Every card in `text`. Accepts a BOM, CRLF / LF / CR line ends, folded lines, quoted-printable
    /// soft line breaks, blank lines between cards and lowercase names. Throws `VCardSyntaxError`.
    public static func parse(_ text: String) throws -> [VCard] {
        let lines = logicalLines(text)
        var cards: [VCard] = []
        var current: VCard?
        for (number, line) in lines {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard let colon = unquotedColon(in: line) else {
                throw VCardSyntaxError(line: number, reason: "\"\(line.prefix(40))\" is not a vCard line (NAME:value)")
            }
            var property = try header(String(line[..<colon]), line: number)
            property.value = String(line[line.index(after: colon)...])
            switch property.name {
            case "BEGIN":
                guard property.value.trimmingCharacters(in: .whitespaces).uppercased() == "VCARD" else {
                    throw VCardSyntaxError(line: number, reason: "BEGIN:\(property.value) is not a vCard; only BEGIN:VCARD starts one")
                }
                if current != nil { throw VCardSyntaxError(line: number, reason: "a card starts before the previous one ended (END:VCARD missing)") }
                current = VCard(version: "3.0", line: number)
            case "END":
                guard var card = current else { throw VCardSyntaxError(line: number, reason: "END:VCARD without BEGIN:VCARD") }
                card.endLine = number
                cards.append(card)
                current = nil
            case "VERSION":
                guard current != nil else { throw VCardSyntaxError(line: number, reason: "VERSION outside a card (BEGIN:VCARD missing)") }
                current?.version = property.value.trimmingCharacters(in: .whitespaces)
            default:
                guard current != nil else {
                    throw VCardSyntaxError(line: number, reason: "\(property.name) is outside a card (BEGIN:VCARD missing)")
                }
                current?.properties.append(decoded(property))
            }
        }
        if let card = current {
            throw VCardSyntaxError(line: card.line, reason: "the card that starts here has no END:VCARD")
        }
        return cards
    }

    /// Content lines with the line each starts on: folds joined (a line end then a space or tab),
    /// and a quoted-printable value whose line ends in `=` joined with the next line.
    static func logicalLines(_ text: String) -> [(Int, String)] {
        var body = Substring(text)
        if body.first == "\u{FEFF}" { body = body.dropFirst() }
        // Split on CRLF or LF ("\r\n" is one Character in Swift); on CR only in a file without
        // them (classic Mac OS). iPhone exports end lines with CR CR LF: one line end. A lone CR
        // elsewhere is part of a value (Thunderbird writes one), read as a line break in it.
        let hasLineFeeds = body.contains { $0 == "\n" || $0 == "\r\n" }
        var physical: [String] = []
        var current = ""
        var position = body.startIndex
        while position < body.endIndex {
            let character = body[position]
            let next = body.index(after: position)
            if character == "\n" || character == "\r\n" || (character == "\r" && !hasLineFeeds) {
                physical.append(current)
                current = ""
            } else if character == "\r" {
                if next < body.endIndex, body[next] == "\r\n" || body[next] == "\n" {
                    // CR CR LF: the LF ends the line.
                } else {
                    current += "\\n"
                }
            } else {
                current.append(character)
            }
            position = next
        }
        physical.append(current)
        var lines: [(Int, String)] = []
        var index = 0
        while index < physical.count {
            let start = index + 1
            var line = physical[index]
            index += 1
            while index < physical.count {
                let next = physical[index]
                if let first = next.first, first == " " || first == "\t" {
                    line += next.dropFirst()
                    index += 1
                } else if isQuotedPrintable(line), line.hasSuffix("=") {
                    line = String(line.dropLast()) + next
                    index += 1
                } else {
                    break
                }
            }
            lines.append((start, line))
        }
        return lines
    }

    static func isQuotedPrintable(_ line: String) -> Bool {
        guard let colon = unquotedColon(in: line) else { return false }
        return line[..<colon].uppercased().contains("QUOTED-PRINTABLE")
    }

    /// The colon that ends the name and parameters (a quoted parameter value may hold one).
    static func unquotedColon(in line: String) -> String.Index? {
        var quoted = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if character == "\"" { quoted.toggle() } else if character == ":" && !quoted { return index }
            index = line.index(after: index)
        }
        return nil
    }

    /// `group.NAME;PARAM=a,b;BARE` → the property without its value.
    static func header(_ text: String, line: Int) throws -> VCardProperty {
        let parts = split(text, on: ";", quotes: true)
        var name = parts.first ?? ""
        var group: String?
        if let dot = name.lastIndex(of: ".") {
            group = String(name[..<dot])
            name = String(name[name.index(after: dot)...])
        }
        guard !name.isEmpty else { throw VCardSyntaxError(line: line, reason: "a line has no property name before its value") }
        var parameters: [String: [String]] = [:]
        for part in parts.dropFirst() where !part.isEmpty {
            if let equals = part.firstIndex(of: "=") {
                let key = part[..<equals].uppercased()
                var values = split(String(part[part.index(after: equals)...]), on: ",", quotes: true).map { $0.replacingOccurrences(of: "\"", with: "") }
                // TYPE="work,voice" (RFC 6350's own example) lists two types.
                if key == "TYPE" { values = values.flatMap { $0.split(separator: ",").map { $0.lowercased() } } }
                parameters[key, default: []] += values
            } else {
                // vCard 2.1: `TEL;WORK;VOICE:` and `ENCODING`-less `QUOTED-PRINTABLE`.
                let bare = part.uppercased()
                if bare == "QUOTED-PRINTABLE" || bare == "BASE64" {
                    parameters["ENCODING", default: []].append(bare)
                } else {
                    parameters["TYPE", default: []].append(part.lowercased())
                }
            }
        }
        return VCardProperty(name: name, parameters: parameters, value: "", group: group)
    }

    /// Quoted-printable and base64 values turned into text (in the parameter's CHARSET), then
    /// escaped again so `text` and `components` read every property alike.
    static func decoded(_ property: VCardProperty) -> VCardProperty {
        let encoding = property.parameters["ENCODING"]?.first?.uppercased() ?? ""
        let bytes: Data?
        switch encoding {
        case "QUOTED-PRINTABLE": bytes = quotedPrintableBytes(property.value)
        case "B", "BASE64": bytes = Data(base64Encoded: property.value.filter { !$0.isWhitespace })
        default: return property
        }
        guard let bytes else { return property }
        let named = property.parameters["CHARSET"]?.first.flatMap(TextEncodingName.encoding(named:))
        let text =
            named.flatMap { String(data: bytes, encoding: $0) }
            ?? String(data: bytes, encoding: .utf8) ?? String(data: bytes, encoding: .windowsCP1252)
        guard let text else { return property }
        var decoded = property
        // Decoded text keeps vCard 2.1's structure (`;` between N's parts), and has no escapes.
        decoded.value = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "")
        decoded.parameters["ENCODING"] = nil
        decoded.parameters["CHARSET"] = nil
        return decoded
    }

    static func quotedPrintableBytes(_ text: String) -> Data {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "="), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        return Data(bytes)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// Splits on `separator` where it is not escaped with `\` (nor, with `quotes`, inside quotes).
    static func split(_ text: String, on separator: Character, quotes: Bool = false) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        var quoted = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && !quotes {
                current.append(character)
                escaped = true
            } else if character == "\"" && quotes {
                current.append(character)
                quoted.toggle()
            } else if character == separator && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    static func unescape(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        if escaped { result.append("\\") }
        return result
    }

    // MARK: Writing

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case ",": result += "\\,"
            case ";": result += "\\;"
            case "\r\n", "\n", "\r": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// One card as RFC 6350 text with CRLF line ends, lines folded at 75 octets (never inside a
    /// UTF-8 sequence, nor a character's cluster when it fits).
    public static func write(_ card: VCard) -> String {
        var lines = ["BEGIN:VCARD", "VERSION:\(card.version)"]
        for property in card.properties {
            var line = (property.group.map { $0 + "." } ?? "") + property.name
            for (key, values) in property.parameters.sorted(by: { $0.key < $1.key }) {
                let written = values.map { $0.contains(where: { ",;:".contains($0) }) ? "\"\($0)\"" : $0 }
                line += ";\(key)=" + written.joined(separator: ",")
            }
            lines.append(line + ":" + property.value)
        }
        lines.append("END:VCARD")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    static func fold(_ line: String) -> String {
        var result = ""
        var octets = 0
        var limit = 75
        for character in line {
            let size = character.utf8.count
            if octets + size > limit {
                result += "\r\n "
                octets = 1
                limit = 75
            }
            result.append(character)
            octets += size
        }
        return result
    }
}
