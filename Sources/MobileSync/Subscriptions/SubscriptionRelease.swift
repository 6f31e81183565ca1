import ForceJSON
import SmartStore

/// Lets a subscription's records go (an unsubscribe, or records that left its slice): what
/// nothing else holds is removed, except a record with an unsent change, which stays as
/// `leaving` until a later sync has sent it. Never removes a record with local changes, and
/// re-checks that in the transaction that deletes.
public struct SubscriptionRelease: Sendable {
    /// What became of the records a release let go.
    public struct Outcome: Sendable, Equatable {
        /// Removed from the store.
        public var removed = 0
        /// Kept until their local change is sent (then they leave).
        public var waiting = 0
        /// Kept because a config sync or another subscription holds them.
        public var kept = 0

        public init(removed: Int = 0, waiting: Int = 0, kept: Int = 0) {
            self.removed = removed
            self.waiting = waiting
            self.kept = kept
        }

        static func + (left: Outcome, right: Outcome) -> Outcome {
            Outcome(removed: left.removed + right.removed, waiting: left.waiting + right.waiting, kept: left.kept + right.kept)
        }
    }

    public var soupName: String
    public var idFieldName: String
    /// The config syncs filling this soup: a record whose `__sync_id__` names one of them is theirs.
    public var configHolders: Set<Int64>
    let members: SyncMembers

    public init(soupName: String, idFieldName: String = "Id", configHolders: Set<Int64>, members: SyncMembers) {
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.configHolders = configHolders
        self.members = members
    }

    /// Lets `syncId` stop holding these records, a chunk at a time in the caller's transaction.
    public func release(_ ids: [String], from syncId: Int64, in transaction: StoreTransaction) throws -> Outcome {
        var outcome = Outcome()
        for chunk in ids.chunked(into: 1_000) {
            let chunk = Array(chunk)
            try members.drop(chunk, syncId: syncId, soup: soupName, in: transaction)
            let holders = try members.holders(of: chunk, soup: soupName, in: transaction)
            var leaving: [String] = []
            var removable: [Int64] = []
            for record in try transaction.entries(whereIndexed: idFieldName, isOneOf: chunk, in: soupName) {
                guard let id = record[idFieldName]?.stringValue, let entryId = record[SmartStore.soupEntryId]?.int64Value else { continue }
                if isHeld(record, holders: holders[id] ?? []) {
                    outcome.kept += 1
                } else if record.isDirty {
                    leaving.append(id)
                } else {
                    removable.append(entryId)
                }
            }
            try members.hold(leaving, syncId: SyncMembers.leaving, soup: soupName, in: transaction)
            try transaction.delete(removable, from: soupName)
            outcome.waiting += leaving.count
            outcome.removed += removable.count
        }
        return outcome
    }

    /// The records waiting to leave that may go now: clean ones nothing holds are removed with
    /// their row; one held again (fetched back by a sync, say) keeps the record and loses the row;
    /// one still dirty stays as it is. Returns how many records were removed.
    @discardableResult
    public func sweepLeaving(in transaction: StoreTransaction) throws -> Int {
        let waiting = try members.ids(syncId: SyncMembers.leaving, soup: soupName, in: transaction)
        var removed = 0
        for chunk in waiting.chunked(into: 1_000) {
            let chunk = Array(chunk)
            let holders = try members.holders(of: chunk, soup: soupName, in: transaction)
            var settled: [String] = []
            var removable: [Int64] = []
            var found: Set<String> = []
            for record in try transaction.entries(whereIndexed: idFieldName, isOneOf: chunk, in: soupName) {
                guard let id = record[idFieldName]?.stringValue, let entryId = record[SmartStore.soupEntryId]?.int64Value else { continue }
                found.insert(id)
                let others = (holders[id] ?? []).subtracting([SyncMembers.leaving])
                if isHeld(record, holders: others) {
                    settled.append(id)
                } else if !record.isDirty {
                    settled.append(id)
                    removable.append(entryId)
                }
            }
            // A row whose record is gone (sent as a delete, say) has nothing left to wait for.
            settled += chunk.filter { !found.contains($0) }
            try members.drop(settled, syncId: SyncMembers.leaving, soup: soupName, in: transaction)
            try transaction.delete(removable, from: soupName)
            removed += removable.count
        }
        return removed
    }

    /// Held by a config sync (its `__sync_id__`) or by a subscription's row.
    private func isHeld(_ record: JSONObject, holders: Set<Int64>) -> Bool {
        if let owner = record[LocalField.syncId]?.int64Value, configHolders.contains(owner) { return true }
        return holders.contains { $0 != SyncMembers.leaving }
    }
}
