/// Salesforce record ids: 15 case-sensitive characters (3-character key prefix, pod, record
/// number) plus a 3-character suffix that encodes the case of the first 15, so 18-character ids
/// survive case-insensitive systems.
public enum SalesforceId {
    static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")

    /// The 3-character checksum suffix of a 15-character id: one letter per 5-character chunk,
    /// with bit i set when the chunk's i-th character is an uppercase A–Z.
    public static func checksumSuffix(of id15: some StringProtocol) -> String {
        let characters = Array(id15.utf8)
        precondition(characters.count == 15, "a 15-character id is needed")
        var suffix = ""
        for chunk in 0..<3 {
            var bits = 0
            for position in 0..<5 where (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(characters[chunk * 5 + position]) {
                bits |= 1 << position
            }
            suffix.append(suffixAlphabet[bits])
        }
        return suffix
    }

    /// Turns a 15- or 18-character id into its canonical 18-character form, or nil when the text
    /// is not shaped like an id or its suffix is impossible (it marks a digit as uppercase). An
    /// 18-character id whose case was lost is restored from its suffix.
    public static func canonical(_ text: some StringProtocol) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 15 || bytes.count == 18,
            bytes.allSatisfy({ isAlphanumeric($0) })
        else { return nil }
        if bytes.count == 15 {
            let id15 = String(decoding: bytes, as: UTF8.self)
            return id15 + checksumSuffix(of: id15)
        }
        var first15 = Array(bytes[0..<15])
        let suffix = Array(String(decoding: bytes[15..<18], as: UTF8.self).uppercased().utf8)
        for chunk in 0..<3 {
            guard let bits = suffixAlphabet.firstIndex(of: Character(UnicodeScalar(suffix[chunk]))) else { return nil }
            for position in 0..<5 {
                let index = chunk * 5 + position
                let character = first15[index]
                let isUpper = bits & (1 << position) != 0
                // The suffix says a digit is an uppercase letter: no id has this suffix.
                if isUpper, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character) { return nil }
                if isUpper, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(character) {
                    first15[index] = character - 32
                } else if !isUpper, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(character) {
                    first15[index] = character + 32
                }
            }
        }
        let id15 = String(decoding: first15, as: UTF8.self)
        return id15 + checksumSuffix(of: id15)
    }

    /// 15 or 18 letters and digits: what an id looks like, valid or not.
    public static func isShapedLikeId(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        return (bytes.count == 15 || bytes.count == 18) && bytes.allSatisfy { isAlphanumeric($0) }
    }

    /// The key prefix (object type) of a canonical id.
    public static func keyPrefix(of id: String) -> String { String(id.prefix(3)) }

    /// Whether `text` is a real id of an object whose ids start with `keyPrefix` (nil: any
    /// object): 15 characters with that prefix, or 18 whose last three are the checksum of the
    /// first 15 as written. A company called `TheOrganization` is not an account id.
    public static func isValid(_ text: some StringProtocol, keyPrefix: String?) -> Bool {
        guard isShapedLikeId(text) else { return false }
        if let keyPrefix, !text.hasPrefix(keyPrefix) { return false }
        guard text.utf8.count == 18 else { return keyPrefix != nil }
        return checksumSuffix(of: text.prefix(15)) == text.suffix(3)
    }

    /// The key prefixes of standard objects every org has, which ids of their records start with.
    public static func standardKeyPrefix(of sObjectType: String) -> String? {
        switch sObjectType.lowercased() {
        case "account": "001"
        case "contact": "003"
        case "user": "005"
        case "opportunity": "006"
        case "lead": "00Q"
        case "case": "500"
        case "campaign": "701"
        default: nil
        }
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }
}
