import Foundation
import ForceJSON
import MobileSync

/// How a local change marks a document, exactly as the Mobile SDK's MobileSyncExplorer does
/// (mobilesync-semantics.md §5.1 and §6.2). Pure functions, so the rules are tested on their own.
public enum LocalChanges {
    /// A new record: `attributes.type`, a `local_` id, `__local__` and `__locally_created__` true,
    /// the other flags false.
    public static func created(fields: JSONObject, sObjectType: String, localId: String) -> JSONObject {
        var document: JSONObject = ["attributes": ["type": .string(sObjectType)], "Id": .string(localId)]
        for (key, value) in fields { document[key] = value }
        document[LocalFlag.local] = true
        document[LocalFlag.created] = true
        document[LocalFlag.updated] = false
        document[LocalFlag.deleted] = false
        return document
    }

    /// An edited record: the new field values, `__local__` and `__locally_updated__` true. A record
    /// created here stays created. `nil` when nothing changed, so an unchanged save writes nothing.
    public static func updated(_ document: JSONObject, fields: JSONObject) -> JSONObject? {
        var changed = document
        var anyChange = false
        for (key, value) in fields where (document[key] ?? .null) != value {
            changed[key] = value
            anyChange = true
        }
        guard anyChange else { return nil }
        changed[LocalFlag.local] = true
        changed[LocalFlag.updated] = true
        return changed
    }

    /// A deleted record: kept, with `__local__` and `__locally_deleted__` true, until sync up deletes it
    /// on the server. A record created here is kept too (the iOS sample's way), so undelete still works;
    /// sync up then drops it without calling the server.
    public static func deleted(_ document: JSONObject) -> JSONObject {
        var changed = document
        changed[LocalFlag.local] = true
        changed[LocalFlag.deleted] = true
        return changed
    }

    /// An undeleted record: `__locally_deleted__` false and `__local__` = created || updated.
    public static func undeleted(_ document: JSONObject) -> JSONObject {
        var changed = document
        changed[LocalFlag.deleted] = false
        // Read as the list reads them, so a created flag stored as "1" (iOS) keeps the create pending.
        changed[LocalFlag.local] = .bool(LocalRecord.flag(LocalFlag.created, in: changed) || LocalRecord.flag(LocalFlag.updated, in: changed))
        return changed
    }

    /// A temporary id for a record created here, in the Android SDK's shape `local_<nanoseconds>`;
    /// MobileSync's `LocalField.isLocalId` checks the `local_` prefix.
    public static func newLocalId(now: Date = Date()) -> String {
        let nanoseconds = UInt64(now.timeIntervalSince1970 * 1_000_000_000)
        return "\(LocalField.localIdPrefix)\(nanoseconds)\(UInt16.random(in: 100...999))"
    }
}
