import ForceJSON
import Foundation
import SalesforceIds
import SmartStore

extension SyncManager {
    /// Takes one account and its contacts offline (the SDK's briefcase idea: "take this account
    /// with me"), as two SOQL syncs of one subscription: `NAME`, the account into the soup that
    /// holds accounts, and `NAME.contacts`, its contacts into the soup that holds contacts. Each
    /// runs incrementally and has its ghost check by id, so a contact created under the account
    /// arrives and one moved to another account leaves. Not parent_children: its incremental
    /// query asks only for parents modified since, so a contact added under an unchanged account
    /// would never come. The same name with another account moves the subscription to it.
    public func subscribe(name: String, account: String) async throws -> [SyncState] {
        try checkAcceptingSyncs()
        let name = try Self.checkedName(name)
        guard SalesforceId.isValid(account, keyPrefix: SalesforceId.standardKeyPrefix(of: "Account")) else {
            throw MobileSyncError.invalidSubscription(
                name: name, reason: "\(account) is not an account id (15 or 18 letters and digits starting with 001)")
        }
        let states = try syncs.all()
        let names = [name, Self.contactsSyncName(of: name)]
        try Self.refuseConfigNames(names, of: name, in: states)
        let described = Self.describedObjects(in: states)
        let parts: [(syncName: String, object: String, condition: String)] = [
            (name, "Account", "Id = '\(account)'"), (Self.contactsSyncName(of: name), "Contact", "AccountId = '\(account)'"),
        ]
        var targets: [(syncName: String, soup: String, target: SyncDownTarget, mergeMode: MergeMode)] = []
        for part in parts {
            guard let soup = SubscriptionBase.soup(of: part.object, syncs: states) else {
                throw MobileSyncError.invalidSubscription(
                    name: name, reason: "no sync of the config fetches or sends \(part.object) records, so forceterm has no soup to keep them in")
            }
            let base = try SubscriptionBase.of(soup: soup, name: name, syncs: states, recordType: part.object, describedObjects: described)
            targets.append((part.syncName, soup, base.target(condition: part.condition), base.mergeMode))
        }
        _ = try SyncMembers(store: store)
        try await holdStoreLock()
        defer { releaseStoreLock() }
        return try store.write { transaction in
            try targets.map { part in
                let target = SyncTarget.down(part.target)
                guard let id = try syncs.lookupId(name: part.syncName, in: transaction), var state = try syncs.state(id: id, in: transaction) else {
                    var state = SyncState(name: part.syncName, target: target, options: SyncOptions(mergeMode: part.mergeMode), soupName: part.soup)
                    // `Id = 'X'` and `AccountId = 'X'` are the records' own fields: counts can be trusted.
                    state.subscription = Subscription(name: name, selection: .account(account), countable: true)
                    return try syncs.create(state, in: transaction)
                }
                guard let subscription = state.subscription, subscription.name == name, case .account = subscription.selection,
                    subscription.state != .removing
                else {
                    throw MobileSyncError.invalidSubscription(
                        name: name, reason: "\(part.syncName) is already a subscription of another kind; unsubscribe it first, or choose another name")
                }
                if state.target == target { return state }
                state.subscription?.countable = true
                state.reselect(.account(account), target: target, now: Self.now())
                try syncs.save(state, in: transaction)
                return state
            }
        }
    }

    /// The second sync of an account subscription: its contacts.
    public static func contactsSyncName(of name: String) -> String { name + ".contacts" }
}

extension SubscriptionBase {
    /// The soup the config keeps `object`'s records in: that of its SOQL sync down of the object,
    /// or else the soup it sends named after the object (`contacts` for Contact).
    static func soup(of object: String, syncs: [SyncState]) -> String? {
        let config = syncs.filter { $0.subscription == nil }
        for state in config {
            guard case let .down(target) = state.target, case let .soql(query, _) = target.kind,
                SoqlQuery(query).objectName?.caseInsensitiveCompare(object) == .orderedSame
            else { continue }
            return state.soupName
        }
        return config.first { $0.type == .syncUp && $0.soupName.lowercased() == object.lowercased() + "s" }?.soupName
    }
}
