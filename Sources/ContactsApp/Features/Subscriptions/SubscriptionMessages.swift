import MobileSync

/// The words of the subscription keys (`a`, `d` on Syncs, `b`), kept to a toast's line.
extension Messages {
    public var noListToSubscribe: String { "No list to subscribe from: the config fills no soup with records" }
    public var emptySubscriptionCondition: String { "Type one SOQL condition, as after WHERE: MailingCity = 'Zürich'" }
    public var emptySubscriptionName: String { "Type a name: the Syncs tab and forceterm unsubscribe use it" }
    public var subscriptionsNeedSync: String {
        "Subscriptions are kept by the sync; offline, forceterm subscribe NAME --soup S --where C --no-wait stores one"
    }
    public var offlineNeedsAnAccount: String { "\(key(.toggleOffline)) takes an account offline with its contacts: pick one on its tab" }

    public func notASubscription(_ name: String) -> String {
        "\(name) is a sync of usersyncs.json; \(key(.deleteRecord)) removes only subscriptions (\(key(.subscribe)) adds one)"
    }

    public func offlineNeedsServerAccount(_ name: String) -> String {
        "\(name) is not on the server yet: \(key(.sync)) sends it, then \(key(.toggleOffline)) takes it offline"
    }

    /// The question before `name` is removed; `held` are its syncs' summaries (an account has two).
    public func unsubscribeQuestion(_ name: String, held: [SubscriptionSummary]) -> String {
        let records = held.map { Self.plural($0.held, "record") + " of \($0.soupName)" }.joined(separator: " and ")
        return "Stop carrying \(name)? Its \(records.isEmpty ? "records" : records) leave the store unless another sync holds them;"
            + " a record with an unsent change leaves once it is sent."
    }

    /// Said before a subscription of that name is changed to another condition.
    public func replacesSubscription(_ name: String, selects: Subscription.Selection?) -> String {
        let what =
            switch selects {
            case let .condition(text)?: " (\(text))"
            case let .account(id)?: " (the account \(id))"
            case nil: ""
            }
        return "\(name) exists\(what): Enter again changes it to this condition, or give another name"
    }

    public func offlineTakenBack(_ name: String) -> String { "\(name): not taken offline after all" }

    /// "zurich holds 13 records of contacts"; an account's: "acme holds 1 record of accounts and 7 of contacts".
    public func holds(_ name: String, _ counts: [(held: Int, soup: String)]) -> String {
        guard !counts.isEmpty else { return "\(name) holds nothing yet" }
        let parts = counts.enumerated().map { index, count in
            index == 0 ? "\(Self.plural(count.held, "record")) of \(count.soup)" : "\(count.held) of \(count.soup)"
        }
        let total = counts.reduce(0) { $0 + $1.held }
        return "\(name) holds " + parts.joined(separator: " and ") + (total == 0 ? ": nothing on the server matches" : "")
    }

    public func subscriptionQueued(_ change: SubscriptionChange) -> String {
        switch change {
        case .add: "\(change.name): stored once this sync ends, then fetched"
        case .remove: "\(change.name): removing after this sync"
        }
    }

    public func subscribed(_ name: String, syncs: Int, fetching: Bool) -> String {
        let what = syncs > 1 ? "\(name) and its contacts are" : "\(name) is"
        return fetching ? "\(what) subscribed; fetching" : "\(what) subscribed; \(key(.sync)) fetches it once signed in"
    }

    public func unsubscribed(_ name: String, _ outcome: SubscriptionRelease.Outcome) -> String {
        var parts = ["\(name) removed: \(Self.plural(outcome.removed, "record")) left the store"]
        if outcome.waiting > 0 { parts.append("\(outcome.waiting) wait\(outcome.waiting == 1 ? "s" : "") to send a change") }
        if outcome.kept > 0 { parts.append("\(outcome.kept) kept (other syncs hold them)") }
        return parts.joined(separator: ", ")
    }
}
