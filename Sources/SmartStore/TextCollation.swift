import Foundation
import GRDB

/// `smartstore_text`: the order people expect of a list of names. Case and accents are ignored
/// ("ñúñez" sorts with the Ns, "de la Cruz" with the Ds); binary order only breaks ties, so two
/// values are equal under it only when identical. Every connection of a store registers it, so
/// indexes may use it.
public enum TextCollation {
    public static let name = "smartstore_text"

    static let collation = DatabaseCollation(name) { compare($0, $1) }

    public static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        let order = foldedOrder(lhs, rhs)
        return order == .orderedSame ? binaryOrder(lhs, rhs) : order
    }

    /// ASCII is compared byte by byte, lowercased; anything else through Foundation's folding.
    static func foldedOrder(_ lhs: String, _ rhs: String) -> ComparisonResult {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case let (a?, b?):
                if a >= 0x80 || b >= 0x80 { return unicodeOrder(lhs, rhs) }
                let (x, y) = (lowercase(a), lowercase(b))
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            }
        }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }

    private static func unicodeOrder(_ lhs: String, _ rhs: String) -> ComparisonResult {
        let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive, .widthInsensitive]
        let left = lhs.folding(options: options, locale: nil).lowercased()
        let right = rhs.folding(options: options, locale: nil).lowercased()
        if left == right { return .orderedSame }
        return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars) ? .orderedAscending : .orderedDescending
    }

    private static func binaryOrder(_ lhs: String, _ rhs: String) -> ComparisonResult {
        if lhs.utf8.elementsEqual(rhs.utf8) { return .orderedSame }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? .orderedAscending : .orderedDescending
    }
}

extension SmartStore {
    /// Adds an index that orders a soup by `path` under `smartstore_text` (then entry id), so a
    /// list sorted that way pages without sorting the soup. Does nothing when it exists. The path
    /// must have a column of its own (a string or full_text index spec).
    public func ensureTextSortIndex(soup: String, path: String) throws {
        try write { transaction in try transaction.ensureTextSortIndex(soup: soup, path: path) }
    }
}

extension StoreTransaction {
    public func ensureTextSortIndex(soup name: String, path: String) throws {
        let info = try soupInfo(name)
        guard let column = info.indexSpec(forPath: path)?.columnName else {
            throw SmartStoreError.database(message: "cannot sort \(name) by \(path): it has no indexed column")
        }
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(column)_text_idx ON \(info.tableName) (\(column) COLLATE \(TextCollation.name), id)")
    }
}
