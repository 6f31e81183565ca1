import Foundation

/// Counts API calls per user per UTC day, for `Sforce-Limit-Info` and the daily limit.
actor APIUsage {
    private var counts: [String: (day: Int64, count: Int)] = [:]

    /// Counts one call and returns the count so far today.
    func record(userId: String) -> Int {
        let today = OrgStore.now() / 86_400
        var entry = counts[userId] ?? (today, 0)
        if entry.day != today { entry = (today, 0) }
        entry.count += 1
        counts[userId] = entry
        return entry.count
    }
}

/// Counts the data API requests refused by `--fail-first`.
actor InjectedFailures {
    private var refused = 0

    /// True while fewer than `limit` requests have been refused; counts this one.
    func shouldRefuse(limit: Int) -> Bool {
        guard refused < limit else { return false }
        refused += 1
        return true
    }
}
