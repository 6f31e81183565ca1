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
    public static func noteHiddenFields(
        _ hidden: [(name: String, fields: [String])], syncedDowns: [String],
        in store: SmartStore
    ) throws -> [(name: String, fields: [String])] {
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

/// One try at sending the local changes: when it started and, when it failed, why.
public struct SendAttempt: Sendable, Equatable {
    /// Epoch milliseconds.
    public let startedAt: Int64
    public let error: String?

    public init(startedAt: Int64, error: String?) {
        self.startedAt = startedAt
        self.error = error
    }
}

extension SyncRunLog {
    /// Attempts kept: enough to count the tries of a change that has waited days.
    static let keptAttempts = 200

    /// Notes a try at sending the local changes (a run's sync ups, when there was something to send).
    public static func recordSendAttempt(_ attempt: SendAttempt, in store: SmartStore) throws {
        try store.write { transaction in
            _ = try transaction.registerSoup(soupName, indexSpecs: [IndexSpec(path: entryPath, type: .string)])
            let kept = try transaction.query(.exact(soupName, path: entryPath, matchKey: "sendAttempts", pageSize: 1)).first?["attempts"]?.arrayValue ?? []
            var item: JSONObject = ["startedAt": .int(attempt.startedAt)]
            if let error = attempt.error { item["error"] = .string(error) }
            let attempts = Array((kept + [.object(item)]).suffix(keptAttempts))
            _ = try transaction.upsert([["run": "sendAttempts", "attempts": .array(attempts)]], in: soupName, externalIdPath: entryPath)
        }
    }

    /// The tries noted, oldest first.
    public static func sendAttempts(in store: SmartStore) throws -> [SendAttempt] {
        guard try store.hasSoup(soupName) else { return [] }
        let kept = try store.query(.exact(soupName, path: entryPath, matchKey: "sendAttempts", pageSize: 1)).first?["attempts"]?.arrayValue ?? []
        return kept.compactMap { item in
            item["startedAt"]?.int64Value.map { SendAttempt(startedAt: $0, error: item["error"]?.stringValue) }
        }
    }
}

extension SyncRunLog {
    /// Notes when the automatic syncs of an open TUI or `sync --watch` try next after a failure
    /// (none: they are not waiting), so `forceterm status` in another terminal can say it.
    public static func noteNextTry(of schedule: AutoSyncSchedule?, in store: SmartStore) throws {
        let next = schedule?.retryAfterFailures
        let said = try nextTry(in: store)
        guard said != next.map({ Int64($0.timeIntervalSince1970 * 1000) }) else { return }
        try store.write { transaction in
            _ = try transaction.registerSoup(soupName, indexSpecs: [IndexSpec(path: entryPath, type: .string)])
            let at: JSONValue = next.map { .int(Int64($0.timeIntervalSince1970 * 1000)) } ?? .null
            _ = try transaction.upsert([["run": "nextTry", "at": at]], in: soupName, externalIdPath: entryPath)
        }
    }

    /// The next automatic try noted (epoch ms), if one waits.
    public static func nextTry(in store: SmartStore) throws -> Int64? {
        guard try store.hasSoup(soupName) else { return nil }
        return try store.query(.exact(soupName, path: entryPath, matchKey: "nextTry", pageSize: 1)).first?["at"]?.int64Value
    }
}
