@_exported import SalesforceIds

extension SalesforceId {
    static let base62Alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    /// Characters 4–6 of every id localorg makes: a fixed "pod" and the reserved character.
    static let podAndReserved = "Lo0"
    static let recordNumberWidth = 9

    /// A new 18-character id: key prefix, pod, reserved character, then the record number in base 62.
    static func make(keyPrefix: String, number: Int64) -> String {
        var digits: [Character] = []
        var remaining = number
        repeat {
            digits.append(base62Alphabet[Int(remaining % 62)])
            remaining /= 62
        } while remaining > 0
        let padded = String(repeating: "0", count: max(0, recordNumberWidth - digits.count)) + String(digits.reversed())
        let id15 = keyPrefix + podAndReserved + padded
        return id15 + checksumSuffix(of: id15)
    }
}
