import GRDB

/// FTS5 writes each transaction's words as a new segment and merges segments as they pile up
/// (four of a level by default), so a word's entries are written again at every level they climb.
/// A bulk load commits a page of records at a time: 50 commits for 100k contacts, and the merges
/// rewrote about 2,000 pages of 16 KB, each one more page through the cipher of an encrypted
/// store (`make bench-sync`). During the load merges wait; at its end one `optimize` writes every
/// entry once more, into a single segment, which is also what searches read fastest.
enum FullTextMerges {
    /// Segments a level may pile up to while merges wait. A first sync of 100k contacts makes about
    /// 50; a larger one is merged by FTS5 itself when a level reaches this many, which bounds both
    /// the segments a search reads meanwhile and FTS5's own limit (2,000).
    static let heldSegmentLimit = 128

    /// FTS5's defaults, restored when the load ends.
    static let defaultAutomerge = 4
    static let defaultCrisisMerge = 16

    /// Stops the merges of `ftsTable` until `mergeAndResume`. Kept in the table's own configuration,
    /// so a load whose process dies leaves it for `SoupBulkLoad.rebuildIndexes` to end.
    static func hold(_ db: Database, ftsTable: String) throws {
        try configure(db, ftsTable, "automerge", 0)
        try configure(db, ftsTable, "crisismerge", heldSegmentLimit)
    }

    /// Merges the segments into one and restores FTS5's default merging.
    static func mergeAndResume(_ db: Database, ftsTable: String) throws {
        try db.execute(sql: "INSERT INTO \(ftsTable) (\(ftsTable)) VALUES ('optimize')")
        try configure(db, ftsTable, "automerge", defaultAutomerge)
        try configure(db, ftsTable, "crisismerge", defaultCrisisMerge)
    }

    /// Through FTS5's own command, so every connection's FTS5 rereads it.
    private static func configure(_ db: Database, _ ftsTable: String, _ option: String, _ value: Int) throws {
        try db.execute(sql: "INSERT INTO \(ftsTable) (\(ftsTable), rank) VALUES (?, ?)", arguments: [option, value])
    }
}
