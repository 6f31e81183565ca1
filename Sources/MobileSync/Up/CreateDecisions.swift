import ForceJSON
import SmartStore

/// The user's way out for a create the org did not take as it was: save it although the org's
/// duplicate rule matched other records, take a server record as the one a lost create made, or
/// send a create in doubt again. Each is a local change the next sync up carries out.
public struct CreateDecisions: Sendable {
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case noRecord
        case notACreate
        case notADuplicate
        case notInDoubt
        case copyChanged

        public var description: String {
            switch self {
            case .noRecord: "no such record in the store"
            case .notACreate: "the record is not a create waiting to be sent"
            case .notADuplicate: "the org did not refuse this record as a duplicate"
            case .notInDoubt: "the record is not a create in doubt (its create's answer was not lost, or it is settled)"
            case .copyChanged: "the server's record is also held here, with changes of its own: sync them, or revert them, first"
            }
        }
    }

    let store: SmartStore
    let soupName: String
    let idFieldName: String

    public init(store: SmartStore, soupName: String, idFieldName: String = "Id") {
        self.store = store
        self.soupName = soupName
        self.idFieldName = idFieldName
    }

    /// The next sync sends the create with `allowSave=true`: an alerting duplicate rule lets it
    /// through (a blocking one still refuses, and says so again).
    public func allowDuplicate(entryId: Int64) throws {
        try store.write { transaction in
            guard var record = try transaction.retrieve([entryId], from: soupName).first else { throw Refusal.noRecord }
            guard record.isLocallyCreated, !record.isLocallyDeleted else { throw Refusal.notACreate }
            guard RecordError.stored(record[LocalField.lastError]).contains(where: { $0.errorCode == "DUPLICATES_DETECTED" }) else {
                throw Refusal.notADuplicate
            }
            record[LocalField.allowDuplicate] = true
            record.removeValue(forKey: LocalField.lastError)
            _ = try transaction.update(record, id: entryId, in: soupName)
        }
    }

    /// Takes `serverId` (one the server made from this record's lost create) as this record.
    public func adopt(entryId: Int64, serverId: String) throws {
        let owner = try InFlightCreates.owningSyncDownId(soup: soupName, syncs: SyncsSoup(store: store))
        try store.write { transaction in
            guard let record = try transaction.retrieve([entryId], from: soupName).first else { throw Refusal.noRecord }
            guard record.isCreateInDoubt, let sent = record[LocalField.createInFlight]?["fields"]?.objectValue else { throw Refusal.notInDoubt }
            // A sync down may have stored the server's record beside ours meanwhile: it is this
            // record, so its copy goes, unless it holds changes of its own.
            let copies = try transaction.query(
                .smart("SELECT {\(soupName):_soup} FROM {\(soupName)} WHERE {\(soupName):\(idFieldName)} = ?", pageSize: 10),
                arguments: [.string(serverId)]
            ).compactMap { $0.arrayValue?.first?.objectValue }
            if copies.contains(where: \.isDirty) { throw Refusal.copyChanged }
            try transaction.delete(copies.compactMap(\.soupEntryId).filter { $0 != entryId }, from: soupName)
            _ = try InFlightCreates.adopt(
                serverId, entryId: entryId, fields: sent, serverIds: try LocalIdMap.all(in: transaction), soup: soupName,
                idFieldName: idFieldName, owningSyncDownId: owner, in: transaction)
            // The org's values (a flow's change on save, the codes it filled) win where this
            // record still holds what was sent; a field changed here since stays a change.
            guard let copy = copies.first, var adopted = try transaction.retrieve([entryId], from: soupName).first else { return }
            for (field, value) in copy where !DownloadedRecordWriter.isEngineOwned(field) && field != "attributes" {
                if adopted[field] == nil || FieldValues.same(adopted[field], sent[field]) { adopted[field] = value }
            }
            _ = try transaction.update(adopted, id: entryId, in: soupName)
        }
    }

    /// The create in doubt goes again on the next sync: the user found none of the candidates is it.
    public func sendAgain(entryId: Int64) throws {
        try store.write { transaction in
            guard var record = try transaction.retrieve([entryId], from: soupName).first else { throw Refusal.noRecord }
            guard record.isCreateInDoubt else { throw Refusal.notInDoubt }
            record.removeValue(forKey: LocalField.createInDoubt)
            record.removeValue(forKey: LocalField.createInFlight)
            record.removeValue(forKey: LocalField.lastError)
            _ = try transaction.update(record, id: entryId, in: soupName)
        }
    }
}
