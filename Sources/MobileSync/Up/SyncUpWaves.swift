import ForceJSON
import SmartStore

/// Which named sync ups can run side by side: the file's sync ups cut into waves, each wave's run
/// together (their round trips overlap: on a 3 s satellite link a quiet second-day sync waited
/// out one per soup), the waves one after another in the file's order.
///
/// A sync up joins the wave before it only when the order between them cannot matter:
/// - its records refer to no `local_` id (a contact of an account created here is sent with the
///   account's server id, so it waits for the account's sync up);
/// - neither it nor any sync up of the wave deletes a record (the server may delete others with it,
///   as an account takes its contacts: a contact changed here would then be saved or meet a
///   deletion depending on which request came first);
/// - it shares no soup with them, and none of them is a parent_children sync up (two soups).
public enum SyncUpWaves {
    public static func plan(_ ups: [SyncsConfig.Entry], store: SmartStore) throws -> [[SyncsConfig.Entry]] {
        var waves: [[SyncsConfig.Entry]] = []
        var waveSoups: Set<String> = []
        var waveStandsAlone = true
        for entry in ups {
            guard case let .up(target) = entry.target else { continue }
            let pending = try store.read { try PendingChanges(soup: entry.soupName, idField: target.idFieldName, in: $0) }
            let standsAlone = target.parentChildren != nil || pending.deletes || pending.refersToLocalIds
            if waves.isEmpty || standsAlone || waveStandsAlone || waveSoups.contains(entry.soupName) {
                waves.append([entry])
                waveSoups = [entry.soupName]
                waveStandsAlone = standsAlone
            } else {
                waves[waves.count - 1].append(entry)
                waveSoups.insert(entry.soupName)
            }
        }
        return waves
    }

    /// What a soup's records with local changes hold that orders its sync up.
    struct PendingChanges {
        var deletes = false
        var refersToLocalIds = false

        init(soup: String, idField: String, in transaction: StoreTransaction) throws {
            guard try transaction.hasSoup(soup) else { return }
            for record in try SyncUpTask.dirtyRecords(soup: soup, in: transaction) {
                if record.flag(LocalField.locallyDeleted) { deletes = true }
                if !refersToLocalIds {
                    refersToLocalIds = record.contains { field, value in
                        field != idField && !field.hasPrefix("_") && value.stringValue.map(LocalField.isLocalId) == true
                    }
                }
                if deletes && refersToLocalIds { return }
            }
        }
    }
}
