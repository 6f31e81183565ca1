import ForceJSON
import Foundation
import SmartStore

/// Subscriptions made and removed at run time: named sync downs kept in syncs_soup beside the
/// config's, as the Mobile SDK keeps the syncs an app creates by name. Every change to one is
/// written under the sync lock, so a sync running meanwhile (here or in another process) never
/// saves over it.
extension SyncManager {
    /// Stores the subscription `name` to the records of `soup` that `condition` selects, checked
    /// offline first (`SubscriptionCondition`); the same name again changes its condition. The
    /// state is NEW: `reSync(name:)` (or the next sync run) fetches its records.
    public func subscribe(name: String, soup: String, condition text: String) async throws -> SyncState {
        let (name, base, condition) = try await checkedSubscription(name: name, soup: soup, condition: text)
        _ = try SyncMembers(store: store)
        try await holdStoreLock()
        defer { releaseStoreLock() }
        return try store.write { transaction in
            let target = SyncTarget.down(base.target(condition: condition.text))
            guard let id = try syncs.lookupId(name: name, in: transaction), var state = try syncs.state(id: id, in: transaction) else {
                var state = SyncState(name: name, target: target, options: SyncOptions(mergeMode: base.mergeMode), soupName: soup)
                state.subscription = Subscription(name: name, selection: .condition(condition.text), countable: condition.isSelfContained)
                return try syncs.create(state, in: transaction)
            }
            guard var subscription = state.subscription, subscription.state != .removing else {
                throw MobileSyncError.invalidSubscription(name: name, reason: "it is being removed; run forceterm unsubscribe \(name) to finish, then subscribe again")
            }
            guard state.soupName == soup, case let .condition(previous) = subscription.selection else {
                throw MobileSyncError.invalidSubscription(
                    name: name, reason: "it holds another soup or an account; unsubscribe it first, or choose another name")
            }
            if previous == condition.text, state.target == target { return state }
            // The old records stay until the new set is known (its first run's ghost check
            // lets go of those outside it): nothing is removed before the new condition is fetched.
            // The difference alone is fetched while the store holds exactly the old set, current
            // to the high-water mark: complete, or changed again before the new one ever ran.
            let exact = subscription.state == .complete || (subscription.previousCondition != nil && state.status == .new)
            subscription.previousCondition = subscription.state == .complete ? previous : subscription.previousCondition
            subscription.countable = condition.isSelfContained
            state.subscription = subscription
            state.reselect(.condition(condition.text), target: target, now: Self.now(), keepingHighWater: exact)
            try syncs.save(state, in: transaction)
            return state
        }
    }

    /// The checks `subscribe` makes before it stores anything, alone, needing no lock: the TUI
    /// asks them at once when a sync of its own holds the lock, so a refusal is said while the
    /// prompt is still open.
    public func checkSubscription(name: String, soup: String, condition text: String) async throws {
        _ = try await checkedSubscription(name: name, soup: soup, condition: text)
    }

    private func checkedSubscription(name: String, soup: String, condition text: String) async throws -> (String, SubscriptionBase, SubscriptionCondition) {
        try checkAcceptingSyncs()
        let name = try Self.checkedName(name)
        let states = try syncs.all()
        try Self.refuseConfigNames([name], of: name, in: states)
        let base = try SubscriptionBase.of(
            soup: soup, name: name, syncs: states, recordType: try recordType(in: soup), describedObjects: Self.describedObjects(in: states))
        let described = try await DescribedFields.storedOrAsked(base.sobjectType, store: store, syncs: syncs, remote: remote)
        let condition = try SubscriptionCondition.validate(
            text, name: name, object: base.sobjectType, allowed: base.filterableFields(described: described), described: described)
        return (name, base, condition)
    }

    /// Refuses `names` (a subscription's syncs) when a sync of the config has one of them, or one
    /// that differs only in case, which would read as the same sync on the Syncs tab.
    static func refuseConfigNames(_ names: [String], of subscription: String, in states: [SyncState]) throws(MobileSyncError) {
        for state in states where state.subscription == nil {
            guard let taken = state.name, let name = names.first(where: { $0.lowercased() == taken.lowercased() }) else { continue }
            throw .invalidSubscription(
                name: subscription,
                reason: taken == name
                    ? "usersyncs.json has a sync named \(taken), and the config's syncs cannot be changed at run time; choose another name"
                    : "usersyncs.json has a sync named \(taken), which differs only in case; choose another name")
        }
    }

    /// Removes the subscription `name` and lets go of its records: what nothing else holds leaves
    /// the store, except records with unsent changes, which leave once a sync has sent them.
    /// Marked `removing` first, so a process killed midway leaves a subscription that no sync
    /// runs and that the same command finishes.
    public func unsubscribe(name: String) async throws -> SubscriptionRelease.Outcome {
        try checkAcceptingSyncs()
        let family = try syncs.subscriptions().filter { $0.subscription?.name == name }
        guard !family.isEmpty else {
            if try syncs.state(name: name) != nil {
                throw MobileSyncError.cannotUnsubscribe(
                    name: name, reason: "it is a sync of usersyncs.json, not a subscription; remove it from the config instead")
            }
            throw MobileSyncError.cannotUnsubscribe(name: name, reason: "there is no subscription of that name (forceterm subscriptions lists them)")
        }
        let members = try SyncMembers(store: store)
        try await holdStoreLock()
        defer { releaseStoreLock() }
        // Every sync of the subscription (an account's two) is marked before any record goes.
        var marked: [SyncState] = []
        for found in family {
            guard var state = try syncs.state(id: found.id) else { continue }
            if state.subscription?.state != .removing {
                state.subscription?.state = .removing
                try syncs.save(state)
            }
            marked.append(state)
        }
        var outcome = SubscriptionRelease.Outcome()
        for state in marked {
            for soup in Self.filledSoups(of: state) {
                let held = try store.read { try members.ids(syncId: state.id, soup: soup, in: $0) }
                outcome = outcome + (try release(held, from: state.id, soup: soup, idFieldName: Self.idFieldName(of: state), members: members))
            }
            try store.write { transaction in try transaction.delete([state.id], from: SyncState.soupName) }
        }
        return outcome
    }

    /// Records let go per transaction by an unsubscribe: a large slice commits as it goes, and a
    /// kill loses at most one chunk's work, which the command then does again.
    static let releasedPerTransaction = 5_000

    static func checkedName(_ name: String) throws(MobileSyncError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed == name, !name.contains(where: \.isNewline) else {
            throw .invalidSubscription(name: name, reason: "a name needs at least one character and no spaces around it")
        }
        return name
    }

    /// The `attributes.type` of a record of `soup`, for a soup only sent up.
    private func recordType(in soup: String) throws -> String? {
        guard try store.read({ try $0.hasSoup(soup) }) else { return nil }
        let rows = try store.query(.all(soup, pageSize: 1))
        return rows.first?.objectValue?["attributes"]?["type"]?.stringValue
    }

    static func describedObjects(in states: [SyncState]) -> [String] {
        states.compactMap { state in
            guard case let .down(target) = state.target, case let .metadata(type) = target.kind else { return nil }
            return type
        }
    }

    static func filledSoups(of state: SyncState) -> [String] {
        guard case let .down(target) = state.target else { return [] }
        return target.filledSoups(soupName: state.soupName).filter(\.holdsRecords).map(\.soupName)
    }

    static func idFieldName(of state: SyncState) -> String {
        guard case let .down(target) = state.target else { return SyncDownTarget.defaultIdFieldName }
        return target.idFieldName
    }
}

extension SyncState {
    /// Points a subscription at another selection. Its next run fetches the new set whole, or,
    /// `keepingHighWater` (the store holds the old set, current to that mark), only what changed
    /// since; the ghost check after it fetches the difference (`releaseDifference`) and lets go
    /// of what the old set held outside the new one.
    mutating func reselect(_ selection: Subscription.Selection, target: SyncTarget, now: Int64, keepingHighWater: Bool = false) {
        subscription?.selection = selection
        subscription?.state = .pending
        self.target = target
        if !keepingHighWater { maxTimeStamp = -1 }
        idsComparedAt = 0
        transition(to: .new, now: now)
    }
}
