import Foundation

/// Settings of a running org.
public struct OrgSettings: Sendable {
    /// Access-token lifetime in seconds (`--token-ttl`).
    public var tokenLifetime: Int64 = 7200
    /// API requests per user per day (`--api-limit`); then 403 REQUEST_LIMIT_EXCEEDED.
    public var dailyAPILimit: Int = 100_000
    /// Largest accepted request body.
    public var maximumBodyBytes: Int = 8 * 1024 * 1024
    /// `private`: users see and change only the records they own (admins see all).
    public var sharing: Sharing = .public

    public enum Sharing: String, Sendable, CaseIterable { case `public`, `private` }
    /// Connected apps besides the built-in `forceterm`: client id → client secret
    /// (from `connected-apps.json` in the data directory).
    public var connectedApps: [String: String] = [:]
    /// Briefcase rules for `/connect/briefcase/priming-records` (from `briefcases.json`).
    public var briefcases = BriefcaseConfiguration(rules: [])
    /// Added to every data API request (`--latency`), to show a slow network.
    public var latencyMilliseconds: Int = 0
    /// Share of data API requests refused with 503 before doing anything (`--fail-rate`), to
    /// show retries; between 0 and 1.
    public var failureRate: Double = 0
    /// The first this-many data API requests are refused with 503 (`--fail-first`): a
    /// deterministic fault for tests of client retries.
    public var failFirstRequests: Int = 0
    /// The mobile policy (`--pin-length`, `--screen-lock`) of the built-in app and of every
    /// connected app that sets none of its own, sent in the identity answer's `mobile_policy`.
    public var mobilePolicy = MobilePolicy()
    /// Connected apps' own policies (`mobilePolicy` in `connected-apps.json`), by client id.
    public var connectedAppPolicies: [String: MobilePolicy] = [:]
    /// Seconds a save waits for a record another job holds locked before UNABLE_TO_LOCK_ROW.
    public var lockWaitSeconds: Int64 = 10
    /// Client ids whose username-password flow is blocked (`"passwordFlow": false` in
    /// connected-apps.json; `serve --block-password-flow` for the built-in app).
    public var passwordFlowBlocked: Set<String> = []
    /// The production rules to enforce whatever the org's database says (tests); nil: the org's
    /// own, as `localorg rules` sets them, read again within a second of a change.
    public var rules: ProductionRules?
    /// How long a Streaming API connect is held without events: Salesforce's advice, 110 s.
    public var streamingTimeoutMilliseconds = 110_000
    /// How long after that a client that has not come back is forgotten (Salesforce: 40 s after
    /// events; the deadline itself otherwise).
    public var streamingClientGraceMilliseconds = 30_000
    /// Objects the org has not selected for Change Data Capture (`--no-change-events`): their
    /// channel does not exist for a subscriber, and `/data/ChangeEvents` carries none of their events.
    public var objectsWithoutChangeEvents: Set<String> = []
    public init() {}
}
