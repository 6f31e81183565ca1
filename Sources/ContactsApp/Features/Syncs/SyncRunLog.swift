import ForceJSON
import Foundation
import SmartStore

/// When a whole run of the named syncs (`forceterm sync`, or `s`) last completed, in the soup
/// `sync_runs`. The status line's "last sync" reads it: the syncs' own end times cannot say it,
/// since a sync up with nothing to send ends DONE during a run that then fails offline.
public enum SyncRunLog {
    public static let soupName = "sync_runs"
    static let entryPath = "run"

    /// Records that a run completed at `time` (epoch ms); one document, replaced.
    public static func recordCompleted(at time: Int64, in store: SmartStore) throws {
        try store.write { transaction in
            _ = try transaction.registerSoup(soupName, indexSpecs: [IndexSpec(path: entryPath, type: .string)])
            _ = try transaction.upsert([["run": "last", "completedAt": .int(time)]], in: soupName, externalIdPath: entryPath)
        }
    }

    /// Remembers which fields each sync down left out because the org hides them, and returns
    /// those whose list changed since it was last said (a sync that now leaves out none is
    /// forgotten, so a field hidden again is said again). `syncedDowns`: the sync downs that ran.
    public static func noteHiddenFields(_ hidden: [(name: String, fields: [String])], syncedDowns: [String],
                                        in store: SmartStore) throws -> [(name: String, fields: [String])] {
        try store.write { transaction in
            _ = try transaction.registerSoup(soupName, indexSpecs: [IndexSpec(path: entryPath, type: .string)])
            let said = try transaction.query(.exact(soupName, path: entryPath, matchKey: "hiddenFields", pageSize: 1)).first?["bySync"]?.objectValue ?? [:]
            var now = said
            for name in syncedDowns { now[name] = nil }
            var changed: [(name: String, fields: [String])] = []
            for (name, fields) in hidden {
                now[name] = .array(fields.map(JSONValue.string))
                if said[name]?.arrayValue?.compactMap(\.stringValue) != fields { changed.append((name, fields)) }
            }
            if now != said {
                _ = try transaction.upsert([["run": "hiddenFields", "bySync": .object(now)]], in: soupName, externalIdPath: entryPath)
            }
            return changed
        }
    }

    /// When the last run completed; nil when none was recorded (a store synced by an older
    /// forceterm or another app).
    public static func lastCompleted(in store: SmartStore) throws -> Int64? {
        guard try store.hasSoup(soupName) else { return nil }
        return try store.query(.exact(soupName, path: entryPath, matchKey: "last", pageSize: 1)).first?["completedAt"]?.int64Value
    }
}
