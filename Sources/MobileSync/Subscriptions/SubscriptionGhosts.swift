import ForceJSON
import Foundation
import SmartStore

extension SyncManager {
    /// The ghost check of a subscription, by its member rows rather than `__sync_id__`: records
    /// of its set the store holds for another sync become its members (nothing is fetched), those
    /// the store lacks are fetched (shared since, as for any SOQL sync), and those that left the
    /// set are released: removed unless something else holds them or they have unsent changes.
    /// A subscription whose sync is DONE is complete after it. Returns what was removed and what
    /// arrived.
    func cleanSubscriptionGhosts(
        _ sync: SyncState, target: SyncDownTarget, task: SyncDownTask, force: Bool, justSynced: Bool
    ) async throws -> (removed: Int, arrived: Int) {
        let members = try SyncMembers(store: store)
        let soup = sync.soupName
        if justSynced, try await countsAgree(sync, target: target, members: members) { return (0, 0) }
        if let outcome = try await releaseDifference(sync, target: target, task: task, members: members) { return outcome }
        let cleaner = GhostCleaner(soupName: soup, idFieldName: target.idFieldName, syncId: sync.id)
        let local = try store.read { try members.ids(syncId: sync.id, soup: soup, in: $0) }
        let remote = try await task.remoteIds(target, state: sync, localIds: local)
        let held = try store.read { try Set(cleaner.allIds(in: $0)) }
        let adopted = remote.intersection(held).subtracting(local)
        if !adopted.isEmpty {
            try store.write { try members.hold(adopted.sorted(), syncId: sync.id, soup: soup, in: $0) }
        }
        let arrived = try await task.fetchArrivals(remote.subtracting(held).sorted(), of: target, state: sync)
        let left = GhostCleaner.ghosts(localIds: local, remoteIds: remote)
        // A condition the user changed lets go of the old set's records outside the new one: that
        // is what they asked for, not the server losing records, which the guard is for.
        try massDeletionGuard.check(
            deleting: left.count, of: try store.count(.all(soup)), soup: soup, force: force || sync.subscription?.previousCondition != nil)
        let outcome = try release(left, from: sync.id, soup: soup, idFieldName: target.idFieldName, members: members)
        if var state = try syncs.state(id: sync.id) {
            state.idsComparedAt = Self.now()
            if state.status == .done {
                state.subscription?.state = .complete
                state.subscription?.previousCondition = nil
            }
            try syncs.save(state)
        }
        return (outcome.removed, arrived)
    }

    /// A changed condition's check while the store holds the old set, current to the high-water
    /// mark the run kept (`reselect(keepingHighWater:)`): the records the new condition adds come
    /// in one query, the ids of those it leaves out in another, both as large as the change, not
    /// the set; then one count says whether anything else moved (a record of the old set deleted
    /// or changed since the mark, which neither query returns). A different count, or a query the
    /// org refuses, leaves it to the comparison of every id (nil).
    private func releaseDifference(
        _ sync: SyncState, target: SyncDownTarget, task: SyncDownTask, members: SyncMembers
    ) async throws -> (removed: Int, arrived: Int)? {
        guard let subscription = sync.subscription, let previous = subscription.previousCondition,
            case let .condition(current) = subscription.selection, sync.status == .done, sync.maxTimeStamp > 0,
            case let .soql(query, _) = target.kind, let object = SoqlQuery(query).objectName,
            let count = SoqlQuery(query).countOnly(keepingWhere: true)
        else { return nil }
        let soup = sync.soupName
        let idField = target.idFieldName
        do {
            let arrived = try await task.fetchWhere("NOT (\(previous))", of: target, state: sync)
            let leftOut = try await task.ids(of: "SELECT \(idField) FROM \(object) WHERE (\(previous)) AND (NOT (\(current)))", target: target)
            let local = Set(try store.read { try members.ids(syncId: sync.id, soup: soup, in: $0) })
            let outcome = try release(local.intersection(leftOut).sorted(), from: sync.id, soup: soup, idFieldName: idField, members: members)
            guard try await heldCount(of: sync, target: target, members: members, matches: count), var state = try syncs.state(id: sync.id) else { return nil }
            state.subscription?.state = .complete
            state.subscription?.previousCondition = nil
            try syncs.save(state)
            return (outcome.removed, arrived)
        } catch MobileSyncError.stoppedByRequest {
            throw MobileSyncError.stoppedByRequest
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
    }

    /// Right after a complete run of a self-contained condition, whether the server's count of its
    /// set is the count the store holds. Its set changes only with its own records, which that run
    /// returned, or through sharing and deletes, which change the count; one record leaving as
    /// another joins leaves it equal, and the id comparison every `idComparisonInterval` finds it.
    private func countsAgree(_ sync: SyncState, target: SyncDownTarget, members: SyncMembers) async throws -> Bool {
        guard let subscription = sync.subscription, subscription.countable, subscription.state == .complete,
            subscription.previousCondition == nil, sync.status == .done,
            sync.idsComparedAt + Int64(idComparisonInterval.components.seconds) * 1000 > Self.now(),
            case let .soql(query, _) = target.kind, let count = SoqlQuery(query).countOnly(keepingWhere: true)
        else { return false }
        return (try? await heldCount(of: sync, target: target, members: members, matches: count)) ?? false
    }

    /// Whether the server's answer to `count` (the condition's COUNT()) is the number of records
    /// the subscription holds here.
    private func heldCount(of sync: SyncState, target: SyncDownTarget, members: SyncMembers, matches count: SoqlQuery) async throws -> Bool {
        let server = try await remote.query(count.text, batchSize: nil).totalSize
        return server == (try store.read { try members.heldCount(syncId: sync.id, soup: sync.soupName, idFieldName: target.idFieldName, in: $0) })
    }

    /// Lets go of `ids` for the subscription sync `syncId`, a committed chunk at a time: what
    /// nothing else holds leaves, a record with an unsent change waits (`SubscriptionRelease`).
    func release(_ ids: [String], from syncId: Int64, soup: String, idFieldName: String, members: SyncMembers) throws -> SubscriptionRelease.Outcome {
        var outcome = SubscriptionRelease.Outcome()
        for chunk in ids.chunked(into: Self.releasedPerTransaction) {
            outcome =
                outcome
                + (try store.write { transaction in
                    let release = SubscriptionRelease(
                        soupName: soup, idFieldName: idFieldName, configHolders: try syncs.configHolders(of: soup, in: transaction), members: members)
                    return try release.release(Array(chunk), from: syncId, in: transaction)
                })
        }
        return outcome
    }
}
