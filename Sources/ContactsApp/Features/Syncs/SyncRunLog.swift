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

    /// When the last run completed; nil when none was recorded (a store synced by an older
    /// forceterm or another app).
    public static func lastCompleted(in store: SmartStore) throws -> Int64? {
        guard try store.hasSoup(soupName) else { return nil }
        return try store.query(.exact(soupName, path: entryPath, matchKey: "last", pageSize: 1)).first?["completedAt"]?.int64Value
    }
}
