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
/// - none of its records refers to another through an object value (a parent by external id,
///   which a sync up of the same wave may be creating);
/// - it shares no soup and no sObject type with them (the same record kept in two soups would be
///   written in either order), and none of them is a parent_children sync up (two soups).
public enum SyncUpWaves {
    public static func plan(_ ups: [SyncsConfig.Entry], store: SmartStore) throws -> [[SyncsConfig.Entry]] {
        var waves: [[SyncsConfig.Entry]] = []
        var waveSoups: Set<String> = []
        var waveTypes: Set<String> = []
        var waveStandsAlone = true
        for entry in ups {
            guard case let .up(target) = entry.target else { continue }
            let planner = SyncUpPlanner(target: target, options: entry.options, soupName: entry.soupName)
            // The fields a write may send; nil: every field.
            let sent = planner.createFields.flatMap { create in planner.updateFields.map { Set(create).union($0) } }
            let pending = try store.read { try PendingChanges(soup: entry.soupName, idField: target.idFieldName, sentFields: sent, in: $0) }
            let standsAlone = target.parentChildren != nil || pending.deletes || pending.refersToOthers
            if waves.isEmpty || standsAlone || waveStandsAlone || waveSoups.contains(entry.soupName) || !waveTypes.isDisjoint(with: pending.types) {
                waves.append([entry])
                (waveSoups, waveTypes) = ([entry.soupName], pending.types)
                waveStandsAlone = standsAlone
            } else {
                waves[waves.count - 1].append(entry)
                waveSoups.insert(entry.soupName)
                waveTypes.formUnion(pending.types)
            }
        }
        return waves
    }

    /// What a soup's records with local changes hold that orders its sync up.
    struct PendingChanges {
        var deletes = false
        /// A sent field holds a `local_` id or an object (a reference by external id).
        var refersToOthers = false
        /// The records' sObject types (`attributes.type`).
        var types: Set<String> = []

        init(soup: String, idField: String, sentFields: Set<String>?, in transaction: StoreTransaction) throws {
            guard try transaction.hasSoup(soup) else { return }
            for record in try SyncUpTask.dirtyRecords(soup: soup, in: transaction) {
                if record.flag(LocalField.locallyDeleted) { deletes = true }
                if let type = record["attributes"]?["type"]?.stringValue { types.insert(type) }
                if !refersToOthers {
                    refersToOthers = record.contains { field, value in
                        guard field != idField, field != "attributes", !field.hasPrefix("_"), sentFields?.contains(field) ?? true else { return false }
                        return value.stringValue.map(LocalField.isLocalId) == true || value.objectValue != nil
                    }
                }
            }
        }
    }
}
