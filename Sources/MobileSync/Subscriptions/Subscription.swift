import ForceJSON

/// Beyond the SDK: what makes a sync down a subscription, a slice of the org the user chose while
/// forceterm runs (`forceterm subscribe`), as Realm's Flexible Sync has them. It is kept in the
/// sync's own state under `subscription`, so SDK tooling still reads the state as a named sync
/// down, and a config load (`usersyncs.json`, the base set) never takes it for one of its own.
public struct Subscription: Sendable, Equatable {
    /// What the subscription holds.
    public enum Selection: Sendable, Equatable {
        /// `--soup SOUP --where CONDITION`: one SOQL condition over the soup's object.
        case condition(String)
        /// `--account ID`: the account (in the sync named after the subscription) or its
        /// contacts (in `NAME.contacts`).
        case account(String)
    }

    /// Realm's subscription states, and `removing` while an unsubscribe lets records go.
    public enum State: String, Sendable, Equatable, CaseIterable {
        /// Stored, its first sync not yet complete.
        case pending
        /// Its first sync and ghost check completed; later syncs keep it current.
        case complete
        /// Its last sync failed; the state's `error` says why.
        case error
        /// Being unsubscribed: its records leave unless something else holds them.
        case removing
    }

    /// The name the user gave; the syncs of one `--account` subscription share it.
    public var name: String
    public var selection: Selection
    public var state: State
    /// The condition before the user changed it, kept until the difference has been fetched.
    public var previousCondition: String?
    /// The condition is self-contained (`SubscriptionCondition.isSelfContained`): right after a
    /// complete run, equal counts on both sides say nothing left the set or joined it.
    public var countable: Bool

    public init(name: String, selection: Selection, state: State = .pending, previousCondition: String? = nil, countable: Bool = false) {
        self.name = name
        self.selection = selection
        self.state = state
        self.previousCondition = previousCondition
        self.countable = countable
    }

    public var json: JSONValue {
        var object: JSONObject = ["name": .string(name), "state": .string(state.rawValue)]
        switch selection {
        case let .condition(condition): object["where"] = .string(condition)
        case let .account(id): object["account"] = .string(id)
        }
        if let previousCondition { object["previousWhere"] = .string(previousCondition) }
        if countable { object["countable"] = .bool(true) }
        return .object(object)
    }

    /// Reads `subscription` from a stored state; a damaged one is named rather than dropped, since
    /// a state read as a plain sync would then be overwritten by a config sync of the same name.
    public init(json: JSONValue) throws(MobileSyncError) {
        guard json.objectValue != nil else { throw .invalidConfig("a sync's \"subscription\" must be an object, found \(json)") }
        let name = try JSONFields.requiredString(json["name"], key: "name", in: "a subscription")
        let condition = try JSONFields.string(json["where"], key: "where")
        let account = try JSONFields.string(json["account"], key: "account")
        let selection: Selection
        switch (condition, account) {
        case let (condition?, nil): selection = .condition(condition)
        case let (nil, account?): selection = .account(account)
        default: throw .invalidConfig("the subscription \(name) needs either \"where\" or \"account\"")
        }
        let rawState = try JSONFields.string(json["state"], key: "state") ?? State.pending.rawValue
        guard let state = State(rawValue: rawState) else {
            throw .invalidConfig("the subscription \(name) has an unknown state \"\(rawState)\"; use one of \(State.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.init(
            name: name, selection: selection, state: state, previousCondition: try JSONFields.string(json["previousWhere"], key: "previousWhere"),
            countable: json["countable"]?.boolValue ?? false)
    }
}
