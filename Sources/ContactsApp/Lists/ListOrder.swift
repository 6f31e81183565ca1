/// A soup's records in list order, as entry ids: read once (one walk of the sort index) and then
/// used by every keystroke of a search, which reads only its matching ids from the full-text index
/// and places them by rank here, with no sort and no scan, however many records it matches.
/// It is a snapshot: `ListOrder.place` counts the records it has never seen, and the list reads the
/// order again after its own writes.
struct ListOrder: Sendable {
    /// The entry id at each position.
    let ids: [Int64]
    private let ranks: EntryRanks

    init(ids: [Int64]) {
        self.ids = ids
        ranks = EntryRanks(ids)
    }

    var count: Int { ids.count }

    func rank(of entryId: Int64) -> Int? { ranks.rank(of: entryId) }

    /// Where the records of `entryIds` sit in this order, and how many of them it does not hold
    /// (created after the order was read, or deleted before).
    func place(_ entryIds: [Int64]) -> (matches: SearchMatches, unknown: Int) {
        var matches = SearchMatches(positions: ids.count)
        var unknown = 0
        for id in entryIds {
            if let rank = ranks.rank(of: id) { matches.insert(rank) } else { unknown += 1 }
        }
        return (matches, unknown)
    }
}

/// Entry id → position. Entry ids are mostly dense (SQLite's AUTOINCREMENT), so a flat array
/// indexed by id serves; ids scattered by much churn get a dictionary instead.
private enum EntryRanks: Sendable {
    case dense(base: Int64, ranks: [Int32])
    case sparse([Int64: Int32])

    init(_ ids: [Int64]) {
        guard let low = ids.min(), let high = ids.max() else {
            self = .sparse([:])
            return
        }
        let span = high - low + 1
        if span <= Int64(ids.count) * 4 + 1_024 {
            var ranks = [Int32](repeating: -1, count: Int(span))
            for (rank, id) in ids.enumerated() { ranks[Int(id - low)] = Int32(rank) }
            self = .dense(base: low, ranks: ranks)
        } else {
            var ranks: [Int64: Int32] = [:]
            ranks.reserveCapacity(ids.count)
            for (rank, id) in ids.enumerated() { ranks[id] = Int32(rank) }
            self = .sparse(ranks)
        }
    }

    func rank(of id: Int64) -> Int? {
        switch self {
        case let .dense(base, ranks):
            let index = id - base
            guard index >= 0, index < Int64(ranks.count), ranks[Int(index)] >= 0 else { return nil }
            return Int(ranks[Int(index)])
        case let .sparse(ranks):
            return ranks[id].map(Int.init)
        }
    }
}

/// Which positions of a `ListOrder` a search matches, one bit per position, so finding the n-th
/// match or a record's index among the matches counts bits instead of querying.
struct SearchMatches: Sendable {
    private var words: [UInt64]
    private(set) var count = 0

    init(positions: Int) {
        words = [UInt64](repeating: 0, count: (positions + 63) / 64)
    }

    mutating func insert(_ rank: Int) {
        let bit = UInt64(1) << UInt64(rank % 64)
        if words[rank / 64] & bit == 0 {
            words[rank / 64] |= bit
            count += 1
        }
    }

    func contains(_ rank: Int) -> Bool {
        rank >= 0 && rank / 64 < words.count && words[rank / 64] & (UInt64(1) << UInt64(rank % 64)) != 0
    }

    /// The index among the matches of the match at position `rank` (how many matches precede it).
    func index(ofRank rank: Int) -> Int {
        let whole = min(rank / 64, words.count)
        var before = 0
        for word in words[..<whole] { before += word.nonzeroBitCount }
        guard whole < words.count else { return before }
        let lowerBits = (UInt64(1) << UInt64(rank % 64)) - 1
        return before + (words[whole] & lowerBits).nonzeroBitCount
    }

    /// The positions of the matches numbered `offset` ..< `offset + limit`, in order.
    func ranks(from offset: Int, limit: Int) -> [Int] {
        guard limit > 0, offset < count else { return [] }
        var skipped = 0
        var result: [Int] = []
        result.reserveCapacity(max(0, min(limit, count - offset)))
        for (index, word) in words.enumerated() where word != 0 {
            let bits = word.nonzeroBitCount
            if skipped + bits <= offset {
                skipped += bits
                continue
            }
            var remaining = word
            while remaining != 0 {
                let bit = remaining.trailingZeroBitCount
                remaining &= remaining - 1
                if skipped >= offset {
                    result.append(index * 64 + bit)
                    if result.count == limit { return result }
                }
                skipped += 1
            }
        }
        return result
    }
}
