import ContactsApp
import MobileSync

/// The TUI's subscriptions: the same store writes as `forceterm subscribe --no-wait` and
/// `forceterm unsubscribe`, each a short wait on the sync manager under its lock. The sync that
/// follows a subscribe fetches its records with progress on the status line.
extension StoreSyncService {
    public func subscribe(_ request: SubscriptionRequest) throws -> [String] {
        let manager = try subscriptionManager()
        let states = try AsyncCommand.wait {
            switch request {
            case let .condition(name, soup, condition): [try await manager.subscribe(name: name, soup: soup, condition: condition)]
            case let .account(name, id): try await manager.subscribe(name: name, account: id)
            }
        }
        return states.compactMap(\.name)
    }

    public func checkSubscription(_ request: SubscriptionRequest) throws {
        guard case let .condition(name, soup, condition) = request else { return }
        let manager = try subscriptionManager()
        try AsyncCommand.wait { try await manager.checkSubscription(name: name, soup: soup, condition: condition) }
    }

    /// A manager for one subscription change. The org is asked only for an object whose
    /// description no sync has kept.
    private func subscriptionManager() throws -> SyncManager {
        let remote: any SyncRemote =
            if let session = try? session() { ForceClientRemote(client: try StoreDevice.naming(session.client, store: store)) } else { OfflineRemote() }
        return try SyncManager(store: store, remote: remote, lockTimeout: SyncManager.briefLockWait)
    }

    public func unsubscribe(name: String) throws -> SubscriptionRelease.Outcome {
        let manager = try SyncManager(store: store, remote: OfflineRemote(), lockTimeout: SyncManager.briefLockWait)
        return try AsyncCommand.wait { try await manager.unsubscribe(name: name) }
    }
}
