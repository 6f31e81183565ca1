import ForceJSON
import Foundation

/// How a local change marks a document: the Mobile SDK's flags (`LocalField`: `__local__`,
/// `__locally_created__`, …), plus the base of the change (`__base__`), which sync up needs to
/// send only what changed here and to merge with the server's changes field by field. Pure functions over one document; callers
/// write the result in the same transaction that read the document.
public enum LocalEdit {
    /// A new record: `attributes.type`, a `local_` id, `__local__` and `__locally_created__` true,
    /// the other flags false. It has no base: every field is new.
    public static func created(
        fields: JSONObject, sObjectType: String, localId: String, idFieldName: String = "Id",
        now: Int64 = LocalEdit.now()
    ) -> JSONObject {
        var document: JSONObject = ["attributes": ["type": .string(sObjectType)], idFieldName: .string(localId)]
        for (key, value) in fields { document[key] = value }
        document[LocalField.local] = true
        document[LocalField.locallyCreated] = true
        document[LocalField.locallyUpdated] = false
        document[LocalField.locallyDeleted] = false
        document[LocalField.localSince] = .int(now)
        return document
    }

    /// The time a change is saved, in epoch milliseconds.
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// When the document's unsent change began: kept if it has one already, else now.
    static func since(_ document: JSONObject, now: Int64) -> JSONValue {
        document.isDirty ? document[LocalField.localSince] ?? .int(now) : .int(now)
    }

    /// An edited record: the new field values, `__local__` and `__locally_updated__` true, and the
    /// value each field had before its first change since the last sync kept as its base. A record
    /// created here stays created (no base). `nil` when nothing changed, so an unchanged save
    /// writes nothing.
    public static func updated(_ document: JSONObject, fields: JSONObject, now: Int64 = LocalEdit.now()) -> JSONObject? {
        var changed = document
        var base = document.isLocallyCreated ? nil : document.baseValues
        var anyChange = false
        for (key, value) in fields where !FieldValues.same(document[key], value) {
            if base != nil, base?[key] == nil { base?[key] = document[key] ?? .null }
            changed[key] = value
            anyChange = true
        }
        guard anyChange else { return nil }
        if let base { changed[LocalField.base] = .object(base) }
        changed[LocalField.localSince] = since(document, now: now)
        changed[LocalField.local] = true
        changed[LocalField.locallyUpdated] = true
        return changed
    }

    /// A deleted record: kept, with `__local__` and `__locally_deleted__` true, until sync up deletes
    /// it on the server (a record created here is then dropped without calling the server).
    public static func deleted(_ document: JSONObject, now: Int64 = LocalEdit.now()) -> JSONObject {
        var changed = document
        changed[LocalField.localSince] = since(document, now: now)
        changed[LocalField.local] = true
        changed[LocalField.locallyDeleted] = true
        return changed
    }

    /// An undeleted record: `__locally_deleted__` false, and `__local__` true while it is created
    /// or has other local changes.
    /// A record deleted here and changed on the server (a conflict) takes the server's changes:
    /// undoing the delete settles that conflict.
    public static func undeleted(_ document: JSONObject) -> JSONObject {
        var changed = document
        changed[LocalField.locallyDeleted] = false
        if let conflict = RecordConflict(document[LocalField.conflict]), conflict.fields == nil, let server = conflict.server {
            changed.removeValue(forKey: LocalField.conflict)
            return FieldMerge().merge(local: changed, server: server, now: conflict.detectedAt).record
        }
        let hasChanges = document.isLocallyCreated || document.isLocallyUpdated || document[LocalField.base]?.objectValue?.isEmpty == false
        changed[LocalField.local] = .bool(hasChanges || document.hasConflict)
        if !hasChanges && !document.hasConflict { changed.removeValue(forKey: LocalField.localSince) }
        return changed
    }
}
