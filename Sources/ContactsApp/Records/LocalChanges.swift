import Foundation
import ForceJSON
import MobileSync

/// How a local change marks a document, exactly as the Mobile SDK's MobileSyncExplorer does
/// (mobilesync-semantics.md §5.1 and §6.2). Pure functions, so the rules are tested on their own.
public enum LocalChanges {
    /// A new record: `attributes.type`, a `local_` id, `__local__` and `__locally_created__` true,
    /// the other flags false.
    public static func created(fields: JSONObject, sObjectType: String, localId: String) -> JSONObject {
        LocalEdit.created(fields: fields, sObjectType: sObjectType, localId: localId)
    }

    /// An edited record: the new field values, `__local__` and `__locally_updated__` true, and the
    /// base of each changed field kept for the sync's field-level merge. A record created here
    /// stays created. `nil` when nothing changed, so an unchanged save writes nothing.
    public static func updated(_ document: JSONObject, fields: JSONObject) -> JSONObject? {
        LocalEdit.updated(document, fields: fields)
    }

    /// A deleted record: kept, with `__local__` and `__locally_deleted__` true, until sync up deletes it
    /// on the server. A record created here is kept too (the iOS sample's way), so undelete still works;
    /// sync up then drops it without calling the server.
    public static func deleted(_ document: JSONObject) -> JSONObject {
        LocalEdit.deleted(document)
    }

    /// An undeleted record: `__locally_deleted__` false and `__local__` true while other changes remain.
    public static func undeleted(_ document: JSONObject) -> JSONObject {
        LocalEdit.undeleted(document)
    }

    /// A temporary id for a record created here, in the Android SDK's shape `local_<nanoseconds>`;
    /// MobileSync's `LocalField.isLocalId` checks the `local_` prefix.
    public static func newLocalId(now: Date = Date()) -> String {
        let nanoseconds = UInt64(now.timeIntervalSince1970 * 1_000_000_000)
        return "\(LocalField.localIdPrefix)\(nanoseconds)\(UInt16.random(in: 100...999))"
    }
}
