import Foundation

/// Every name a country goes by, to the ISO 3166 code: its two- and three-letter codes, its
/// English names, and its names in every language Debian's iso-codes translates (Deutschland,
/// Allemagne, Alemania → DE). An org with State and Country/Territory Picklists takes only its own
/// labels, so a name typed or imported is mapped to the org's before it is queued, when it names
/// one country only. Read once per process from iso-codes when it is installed (forceterm's
/// package depends on it); without it, codes and the org's own labels still match.
public struct CountryNames: Sendable {
    /// Folded name → the codes it names (more than one: ambiguous).
    let codesByName: [String: Set<String>]

    public init(codesByName: [String: Set<String>]) {
        self.codesByName = codesByName
    }

    /// The codes `text` may name, folded as `fold` does.
    public func codes(for text: String) -> Set<String> { codesByName[Self.fold(text)] ?? [] }

    /// Case, accents, punctuation and spacing aside: "Côte d'Ivoire" and "cote divoire" agree.
    public static func fold(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        return String(folded.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// Names people type that are no country's code or name in iso-codes.
    static let commonAliases: [String: String] = [
        "UK": "GB", "Great Britain": "GB", "England": "GB", "Scotland": "GB", "Wales": "GB", "Northern Ireland": "GB",
        "Britain": "GB", "America": "US", "United States of America": "US", "Holland": "NL", "Russia": "RU",
        "South Korea": "KR", "North Korea": "KP", "Czech Republic": "CZ", "Vatican": "VA", "Ivory Coast": "CI",
    ]

    /// The names from iso-codes at `root` (`/usr/share` on Debian), with the common aliases.
    public static func load(root: String = "/usr/share") -> CountryNames {
        var names: [String: Set<String>] = [:]
        func add(_ name: String, _ code: String) {
            let key = fold(name)
            if !key.isEmpty { names[key, default: []].insert(code) }
        }
        var englishToCode: [String: String] = [:]
        if let data = FileManager.default.contents(atPath: root + "/iso-codes/json/iso_3166-1.json"),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let entries = json["3166-1"] as? [[String: String]]
        {
            for entry in entries {
                guard let code = entry["alpha_2"] else { continue }
                add(code, code)
                if let alpha3 = entry["alpha_3"] { add(alpha3, code) }
                for key in ["name", "common_name", "official_name"] {
                    guard let name = entry[key] else { continue }
                    add(name, code)
                    englishToCode[name] = code
                }
            }
        }
        // Each language's translations: the message ids are the English names above.
        let locales = (try? FileManager.default.contentsOfDirectory(atPath: root + "/locale")) ?? []
        for locale in locales {
            let path = "\(root)/locale/\(locale)/LC_MESSAGES/iso_3166-1.mo"
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            for (english, translated) in GettextCatalog.pairs(data) {
                guard let code = englishToCode[english] else { continue }
                add(translated, code)
            }
        }
        for (alias, code) in commonAliases { add(alias, code) }
        return CountryNames(codesByName: names)
    }

    /// Loaded at first use, once per process.
    public static let system = load()
}

/// The message pairs of a GNU gettext `.mo` catalogue (magic, revision, count, the offsets of
/// the original and translated string tables; each entry a length and an offset).
enum GettextCatalog {
    static func pairs(_ data: Data) -> [(String, String)] {
        let bytes = [UInt8](data)
        guard bytes.count >= 28 else { return [] }
        func word(_ offset: Int, littleEndian: Bool) -> Int? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            let b = bytes[offset..<offset + 4].map(UInt32.init)
            return Int(littleEndian ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24)
        }
        let little: Bool
        switch word(0, littleEndian: true) {
        case 0x9504_12de?: little = true
        case 0xde12_0495?: little = false
        default: return []
        }
        guard let count = word(8, littleEndian: little), let originals = word(12, littleEndian: little),
            let translations = word(16, littleEndian: little), count < 100_000
        else { return [] }
        func string(table: Int, index: Int) -> String? {
            guard let length = word(table + index * 8, littleEndian: little), let offset = word(table + index * 8 + 4, littleEndian: little),
                offset >= 0, length >= 0, offset + length <= bytes.count
            else { return nil }
            return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
        }
        var pairs: [(String, String)] = []
        for index in 0..<count {
            guard let original = string(table: originals, index: index), !original.isEmpty,
                let translated = string(table: translations, index: index), !translated.isEmpty
            else { continue }
            // A context ("msgctxt\u{4}msgid") or plural forms ("a\0b") keep their first form.
            let id = original.split(separator: "\u{4}").last.map { String($0.split(separator: "\0").first ?? $0) } ?? original
            pairs.append((id, String(translated.split(separator: "\0").first ?? Substring(translated))))
        }
        return pairs
    }
}

/// The countries (and their states) an org with State and Country/Territory Picklists offers, from
/// its describe: what the form offers and what a typed or imported name is mapped to.
public struct AddressChoices: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var code: String
        public var label: String
    }

    public let countries: [Entry]
    /// Country code → its states (none: any state text is taken).
    public let states: [String: [Entry]]

    public init(countries: [Entry], states: [String: [Entry]]) {
        self.countries = countries
        self.states = states
    }

    /// What a typed country became: the org's label, or why it cannot be one.
    public enum Match: Sendable, Equatable {
        case country(Entry)
        case ambiguous([Entry])
        case unknown(suggestions: [Entry])
    }

    /// The org's country `text` names: its label or code exactly, else one country of every name
    /// it goes by (`names`).
    public func country(_ text: String, names: CountryNames = .system) -> Match {
        let folded = CountryNames.fold(text)
        if let exact = countries.first(where: { CountryNames.fold($0.label) == folded || $0.code.caseInsensitiveCompare(text.trimmingWhitespace) == .orderedSame }) {
            return .country(exact)
        }
        let found = names.codes(for: text).compactMap { code in countries.first { $0.code == code } }
        switch found.count {
        case 1: return .country(found[0])
        case 0:
            let prefix = String(folded.prefix(3))
            let near = countries.filter { CountryNames.fold($0.label).hasPrefix(prefix) }
            return .unknown(suggestions: Array(near.prefix(5)))
        default: return .ambiguous(found.sorted { $0.label < $1.label })
        }
    }

    /// The state of `countryCode` that `text` names, by label or code; nil when it names none.
    public func state(_ text: String, of countryCode: String) -> Entry? {
        let folded = CountryNames.fold(text)
        return (states[countryCode] ?? []).first { CountryNames.fold($0.label) == folded || CountryNames.fold($0.code) == folded }
    }
}
