import MobileSync

/// The sync the `s` key runs: sync up, then sync down, reporting progress. forceterm's store sync
/// service implements it over MobileSync; a thrown error's description is shown to the user as
/// "Sync failed: <reason>".
public protocol SyncService: Sendable {
    func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary
    /// The same, bringing down only what `scope` says (a service that cannot narrow runs everything).
    func syncUpThenDown(_ scope: SyncScope, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary
    /// The session as it stands now (the service reads the saved credentials again before each
    /// sync, so a sign-in made elsewhere counts).
    var sessionState: SessionState { get }
    /// Whether the org's host can be reached now (a connection, no request): asked while
    /// offline, so the link's return starts a sync at once.
    func linkIsUp() async -> Bool
    /// Lets go of what the service keeps between syncs (a connection to the org), before the
    /// process exits.
    func close()
    /// Checks and stores a subscription, as `forceterm subscribe --no-wait` does; the next sync
    /// fetches its records. Returns the names of the syncs it stored; throws why it was refused.
    /// Called while no sync of this process runs (it writes under the sync lock).
    func subscribe(_ request: SubscriptionRequest) throws -> [String]
    /// The checks `subscribe` makes, storing nothing and needing no lock: asked while a sync runs.
    func checkSubscription(_ request: SubscriptionRequest) throws
    /// Removes a subscription and lets go of its records, as `forceterm unsubscribe` does.
    func unsubscribe(name: String) throws -> SubscriptionRelease.Outcome
}

extension SyncService {
    public func syncUpThenDown(_ scope: SyncScope, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        try await syncUpThenDown(progress: progress)
    }
    public var sessionState: SessionState { .signedIn }
    public func linkIsUp() async -> Bool { true }
    public func close() {}
    public func subscribe(_ request: SubscriptionRequest) throws -> [String] { throw SyncFailure(reason: Self.keepsNoSubscriptions) }
    public func unsubscribe(name: String) throws -> SubscriptionRelease.Outcome { throw SyncFailure(reason: Self.keepsNoSubscriptions) }
    public func checkSubscription(_ request: SubscriptionRequest) throws { throw SyncFailure(reason: Self.keepsNoSubscriptions) }
    static var keepsNoSubscriptions: String { "this sync keeps no subscriptions; use forceterm subscribe" }
}
