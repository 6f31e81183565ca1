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

    /// ASCII is compared byte by byte, lowercased; other text through a table of folded letters
    /// when it can be (`tableOrder`), else through Foundation's folding. The table is made from
    /// Foundation's folding and agrees with it (`TextCollationTests`), so indexes built with any
    /// of the three stay in order.
    static func foldedOrder(_ lhs: String, _ rhs: String) -> ComparisonResult {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case let (a?, b?):
                if a >= 0x80 || b >= 0x80 { return tableOrder(lhs, rhs) ?? foundationOrder(lhs, rhs) }
                let (x, y) = (lowercase(a), lowercase(b))
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            }
        }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }

    static func foundationOrder(_ lhs: String, _ rhs: String) -> ComparisonResult {
        let left = fold(lhs)
        let right = fold(rhs)
        if left == right { return .orderedSame }
        return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars) ? .orderedAscending : .orderedDescending
    }

    /// `text` with case, accents and width folded away, as the collation compares it (a search
    /// without a full-text index matches on this).
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
    }

    /// The scalars with a table entry: every two-byte one in UTF-8 (Latin, Greek, Cyrillic,
    /// Armenian, Hebrew, Arabic, …), which names outside East Asia are written in.
    static let tabled: ClosedRange<UInt32> = 0x80...0x7FF
    /// CJK Unified Ideographs, which folding leaves as they are.
    static let unfolded: ClosedRange<UInt32> = 0x4E00...0x9FFF

    /// Each tabled scalar folded on its own. `nil` where that could differ from folding it inside
    /// a string: combining marks (they fold with the letter before them), and scalars whose folded
    /// form holds one or has a canonical decomposition (String equality would see through it).
    private static let folds: [[Unicode.Scalar]?] = tabled.map { value in
        // Marks of class 0 count too: Thaana's vowel signs fold away after a letter, not alone.
        let marks: Set<Unicode.GeneralCategory> = [.nonspacingMark, .spacingMark, .enclosingMark]
        guard let scalar = Unicode.Scalar(value), scalar.properties.canonicalCombiningClass == .notReordered,
            !marks.contains(scalar.properties.generalCategory)
        else { return nil }
        let folded = Array(fold(String(Character(scalar))).unicodeScalars)
        let plain = folded.allSatisfy { folded in
            folded.properties.canonicalCombiningClass == .notReordered
                && Array(String(Character(folded)).decomposedStringWithCanonicalMapping.unicodeScalars) == [folded]
        }
        return plain ? folded : nil
    }

    /// The folded order of two strings made of ASCII, tabled and unfolded scalars; `nil` when
    /// either holds another one.
    static func tableOrder(_ lhs: String, _ rhs: String) -> ComparisonResult? {
        var left = FoldedScalars(lhs.unicodeScalars)
        var right = FoldedScalars(rhs.unicodeScalars)
        while true {
            guard let a = left.next(), let b = right.next() else { return nil }
            switch (a, b) {
            case (.end, .end): return .orderedSame
            case (.end, .scalar): return .orderedAscending
            case (.scalar, .end): return .orderedDescending
            case let (.scalar(x), .scalar(y)):
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            }
        }
    }

    /// A string's scalars folded one by one; `nil` at a scalar the table does not cover.
    private struct FoldedScalars {
        enum Item { case scalar(UInt32), end }

        var scalars: String.UnicodeScalarView.Iterator
        var pending: ArraySlice<Unicode.Scalar> = []

        init(_ view: String.UnicodeScalarView) { scalars = view.makeIterator() }

        mutating func next() -> Item? {
            while true {
                if let first = pending.popFirst() { return .scalar(first.value) }
                guard let scalar = scalars.next() else { return .end }
                let value = scalar.value
                if value < 0x80 { return .scalar(UInt32(TextCollation.lowercase(UInt8(value)))) }
                if unfolded.contains(value) { return .scalar(value) }
                guard tabled.contains(value), let folded = folds[Int(value - tabled.lowerBound)] else { return nil }
                pending = folded[...]
            }
        }
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
