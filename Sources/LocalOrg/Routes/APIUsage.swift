import Foundation

extension LocalOrgAPI {
    /// The supported API version a URL's number names (`60.0` → 60), or nil: not a number, out of
    /// range (a huge, infinite or NaN one included: converting those to Int traps, which the fuzzer
    /// found), or, with `wholeOnly`, not a whole number.
    static func supportedVersion(_ text: some StringProtocol, wholeOnly: Bool = false) -> Int? {
        guard let number = Double(text), number.isFinite,
            number >= Double(supportedVersions.lowerBound), number < Double(supportedVersions.upperBound + 1),
            !wholeOnly || number == number.rounded()
        else { return nil }
        return Int(number)
    }
}

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

/// `/services/data`: the versions served, with Salesforce's release names.
extension LocalOrgAPI {
    static func releaseLabel(_ version: Int) -> String {
        // Salesforce's own list writes this one with a typographic apostrophe.
        if version == 42 { return "Spring \u{2019}18" }
        let seasons = ["Winter", "Spring", "Summer"]
        let sinceWinter24 = version - 59
        let season = ((sinceWinter24 % 3) + 3) % 3
        let year = 24 + Int((Double(sinceWinter24) / 3).rounded(.down))
        return "\(seasons[season]) '\(year)"
    }

    func versions() -> APIResponse {
        .json(
            .array(
                Self.supportedVersions.map { version in
                    ["label": .string(Self.releaseLabel(version)), "url": .string("/services/data/v\(version).0"), "version": .string("\(version).0")]
                }))
    }
}
