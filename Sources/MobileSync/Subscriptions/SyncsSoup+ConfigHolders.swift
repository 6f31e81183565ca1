import SmartStore

extension SyncsSoup {
    /// The config syncs down that fill `soup` with records: a record whose `__sync_id__` names one
    /// of them is held by it. Subscriptions are not among them; they hold through `SyncMembers`.
    public func configHolders(of soup: String, in transaction: StoreTransaction) throws -> Set<Int64> {
        var holders: Set<Int64> = []
        for state in try all(in: transaction) where state.subscription == nil {
            guard case let .down(target) = state.target else { continue }
            if target.filledSoups(soupName: state.soupName).contains(where: { $0.soupName == soup && $0.holdsRecords }) {
                holders.insert(state.id)
            }
        }
        return holders
    }
}
