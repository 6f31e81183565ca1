import Foundation
import MobileSync
import SmartStore

/// The Syncs tab and the status line's "last sync": the named syncs as `syncs_soup` holds them,
/// read again on demand (on start, while a sync runs, after it ends). Reading never creates the
/// soup, so a store that was never synced stays untouched.
public struct SyncsViewModel: Sendable {
    public let store: SmartStore
    public private(set) var syncs: [SyncState] = []
    public private(set) var selectedIndex = 0
    /// Why the states could not be read, shown instead of the table.
    public private(set) var loadError: String?
    /// The first unsent changes, oldest first, and how many there are in all.
    public private(set) var outbox: [OutboxEntry] = []
    public private(set) var outboxTotal = 0
    /// The subscriptions (one per sync: an account's are two) and the records of each soup that
    /// wait to send a change before they leave.
    public private(set) var subscriptions: [SubscriptionSummary] = []
    public private(set) var leaving: [String: Int] = [:]
    /// Rows of the outbox read at most: the tab shows a screenful, `forceterm status` lists all.
    static let outboxRows = 100

    public init(store: SmartStore) {
        self.store = store
    }

    public var selected: SyncState? { syncs.indices.contains(selectedIndex) ? syncs[selectedIndex] : nil }

    /// The summary of `state`'s subscription, when it is one.
    public func subscription(of state: SyncState) -> SubscriptionSummary? {
        guard let name = state.subscription?.name else { return nil }
        return subscriptions.first { $0.name == name && $0.soupName == state.soupName }
    }

    /// When the last run of the named syncs completed (epoch ms), if one ever did: from
    /// `SyncRunLog`, else (a store synced elsewhere) the newest end of a DONE sync.
    public var lastSuccessfulRun: Int64? {
        lastCompletedRun ?? syncs.filter { $0.status == .done && $0.endTime > 0 }.map(\.endTime).max()
    }

    /// As `lastSuccessfulRun`, while a run is under way: its syncs that are done already are not a
    /// completed run, so only the log counts.
    public var lastSuccessfulRunBeforeThisOne: Int64? { lastCompletedRun }

    private var lastCompletedRun: Int64?

    /// `counting` false leaves the subscriptions' counts as they were: a running sync reads the
    /// states on every tick, and the counts join the soups.
    public mutating func refresh(counting: Bool = true) {
        do {
            syncs = try store.hasSoup(SyncState.soupName) ? SyncsSoup(store: store).all() : []
            if counting { (subscriptions, leaving) = (try SubscriptionSummary.all(in: store), try SubscriptionSummary.waiting(in: store)) }
            lastCompletedRun = try SyncRunLog.lastCompleted(in: store)
            loadError = nil
        } catch {
            loadError = "cannot read the sync states: \(error)"
        }
        selectedIndex = min(max(selectedIndex, 0), max(syncs.count - 1, 0))
    }

    /// Reads the unsent changes of `kinds` again; `any` false (none counted) skips the reading.
    public mutating func refreshOutbox(kinds: [RecordKind], any: Bool) {
        guard any else {
            (outbox, outboxTotal) = ([], 0)
            return
        }
        if let read = try? Outbox.entries(in: store, kinds: kinds, limit: Self.outboxRows) { (outbox, outboxTotal) = read }
    }

    public mutating func move(by delta: Int) {
        selectedIndex = min(max(selectedIndex + delta, 0), max(syncs.count - 1, 0))
    }
}

/// How a sync's numbers read on screen. UTC unless a time zone is given, so tests are stable.
public enum SyncText {
    /// "2025-03-04 10:00:05" for epoch milliseconds; "never" for none.
    public static func time(_ milliseconds: Int64, timeZone: TimeZone = .current) -> String {
        guard milliseconds > 0 else { return "never" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }

    /// "12 of 40" / "12" / "–" for a run's progress and total.
    public static func totals(_ state: SyncState) -> String {
        guard state.totalSize >= 0 else { return "–" }
        return "\(state.totalSize)"
    }

    /// "syncDown" / "syncUp" in words.
    public static func kind(_ state: SyncState) -> String { state.type == .syncDown ? "down" : "up" }
}
