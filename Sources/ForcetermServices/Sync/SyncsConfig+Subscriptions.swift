import MobileSync
import SmartStore

extension SyncsConfig {
    /// The config's syncs followed by the store's subscriptions (`forceterm subscribe`): the soups
    /// the TUI gives a tab and the commands read include those only a subscription fills (an
    /// accounts-only config with a slice of contacts subscribed). Read when the store opens; a
    /// read-only store or one without syncs yet has none.
    public func withSubscriptions(in store: SmartStore) -> SyncsConfig {
        guard (try? store.read({ try $0.hasSoup(SyncState.soupName) })) == true,
            let subscriptions = try? SyncsSoup(store: store).subscriptionEntries(), !subscriptions.isEmpty
        else { return self }
        var combined = self
        combined.entries += subscriptions.filter { entry in !entries.contains { $0.name == entry.name } }
        return combined
    }
}
