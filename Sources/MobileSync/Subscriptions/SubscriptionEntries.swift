import ForceJSON
import SmartStore

extension SyncsSoup {
    /// The subscriptions to run beside the config's syncs, as entries of a sync run, oldest first:
    /// read at each run, so one made in another process (the CLI while the TUI is open) joins the
    /// next. One being removed is left out: its unsubscribe finishes it.
    public func subscriptionEntries() throws -> [SyncsConfig.Entry] {
        try all().compactMap { state in
            guard let subscription = state.subscription, subscription.state != .removing, let name = state.name else { return nil }
            return SyncsConfig.Entry(name: name, target: state.target, options: state.options, soupName: state.soupName)
        }
    }

    /// Every subscription's state, oldest first.
    public func subscriptions() throws -> [SyncState] {
        try all().filter { $0.subscription != nil }
    }
}

extension SyncManager {
    /// Removes the records waiting to leave (`SyncMembers.leaving`) that a sync has sent and
    /// nothing holds any more, in every soup, under the sync lock. A sync run ends with it, after
    /// its sync ups and downs. Returns how many records left.
    public func sweepLeavingRecords() async throws -> Int {
        try checkAcceptingSyncs()
        guard try store.read({ try SyncMembers.existing(in: $0) }) != nil else { return 0 }
        let members = try SyncMembers(store: store)
        try await holdStoreLock()
        defer { releaseStoreLock() }
        let soups = try store.read { try members.soupsWithLeavingRecords(in: $0) }
        var removed = 0
        for soup in soups {
            removed += try store.write { transaction in
                let states = try syncs.all(in: transaction).filter { $0.soupName == soup }
                let release = SubscriptionRelease(
                    soupName: soup, idFieldName: states.first.map(Self.idFieldName(of:)) ?? SyncDownTarget.defaultIdFieldName,
                    configHolders: try syncs.configHolders(of: soup, in: transaction), members: members)
                return try release.sweepLeaving(in: transaction)
            }
        }
        return removed
    }
}

/// Where one subscription stands, for `forceterm subscriptions` and the TUI's Syncs tab.
public struct SubscriptionSummary: Sendable, Equatable {
    public var name: String
    public var soupName: String
    public var selection: Subscription.Selection
    public var state: Subscription.State
    /// Records of the soup it holds now.
    public var held: Int
    /// When its last run ended (epoch ms); 0 before the first.
    public var lastSync: Int64
    public var error: String

    /// Every subscription of `store`, oldest first.
    public static func all(in store: SmartStore) throws -> [SubscriptionSummary] {
        guard try store.read({ try $0.hasSoup(SyncState.soupName) }) else { return [] }
        let subscriptions = try SyncsSoup(store: store).subscriptions()
        guard !subscriptions.isEmpty else { return [] }
        let members = try SyncMembers(store: store)
        return try store.read { transaction in
            try subscriptions.compactMap { state in
                guard let subscription = state.subscription else { return nil }
                let held = try members.heldCount(syncId: state.id, soup: state.soupName, idFieldName: SyncManager.idFieldName(of: state), in: transaction)
                return SubscriptionSummary(
                    name: subscription.name, soupName: state.soupName, selection: subscription.selection, state: subscription.state, held: held,
                    lastSync: state.endTime, error: state.error)
            }
        }
    }

    /// Records of each soup waiting to send their change before they leave.
    public static func waiting(in store: SmartStore) throws -> [String: Int] {
        guard try store.read({ try SyncMembers.existing(in: $0) }) != nil else { return [:] }
        let members = try SyncMembers(store: store)
        return try store.read { try members.leavingCounts(in: $0) }
    }
}
