/// A subscription the TUI asks the sync service to keep: a condition over a soup's object
/// (`forceterm subscribe NAME --soup S --where C`) or one account and its contacts (`--account`).
public enum SubscriptionRequest: Sendable, Equatable {
    case condition(name: String, soup: String, condition: String)
    case account(name: String, id: String)

    public var name: String {
        switch self {
        case let .condition(name, _, _), let .account(name, _): name
        }
    }
}

/// A change to the subscriptions asked while a sync runs: made once it has ended, since both
/// write under the sync lock the running sync holds.
public enum SubscriptionChange: Sendable, Equatable {
    case add(SubscriptionRequest)
    case remove(name: String)

    public var name: String {
        switch self {
        case let .add(request): request.name
        case let .remove(name): name
        }
    }
}
