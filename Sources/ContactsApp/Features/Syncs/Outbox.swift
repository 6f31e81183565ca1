import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// One change saved here and not yet on the server, as a user whose queue stalls asks about it:
/// what it is, since when it waits, how often sending it was tried, and why it is still here.
public struct OutboxEntry: Sendable, Equatable {
    public enum Change: String, Sendable { case create, update, delete }

    public let soup: String
    public let entryId: Int64
    /// The server id; a `local_` id for a record created here.
    public let id: String
    public let name: String
    public let change: Change
    /// When the change was first saved (epoch ms): `__local_since__`, or for a change saved by an
    /// older forceterm or another app, when the record was last written here.
    public let since: Int64?
    /// Tries at sending the local changes since then (each a sync's sync ups).
    public let attempts: Int
    /// Why the last try did not send it: the org's refusal of this record, or the whole try's failure.
    public let lastError: String?
    /// Set when only the user can move it on (a conflict, a create that may be on the server).
    public let needsYou: String?
}

/// The store's unsent changes (records with `__local__` set), oldest first.
public enum Outbox {
    /// The entries of `kinds`' soups, at most `limit` (nil: all), and how many there are in all.
    public static func entries(in store: SmartStore, kinds: [RecordKind], limit: Int? = nil) throws -> (entries: [OutboxEntry], total: Int) {
        let attempts = try SyncRunLog.sendAttempts(in: store)
        var entries: [OutboxEntry] = []
        var total = 0
        for kind in kinds where kind.isSyncedUp {
            let soup = kind.soupName
            guard try store.hasSoup(soup) else { continue }
            let dirty = LocalField.dirtyPredicate(soup: soup)
            let counted = try store.query(.smart("SELECT count(*) FROM {\(soup)} WHERE \(dirty)", pageSize: 1))
            total += Int(counted.first?.arrayValue?.first?.int64Value ?? 0)
            let cap = limit.map { " LIMIT \(max($0 - entries.count, 0))" } ?? ""
            let sql = "SELECT {\(soup):_soup} FROM {\(soup)} WHERE \(dirty) ORDER BY {\(soup):_soupEntryId}\(cap)"
            for row in try store.query(.smart(sql, pageSize: 100_000)) {
                guard let document = row.arrayValue?.first?.objectValue, let record = try? LocalRecord(document: document) else { continue }
                entries.append(entry(record, kind: kind, attempts: attempts))
            }
        }
        entries.sort { ($0.since ?? 0, $0.entryId) < ($1.since ?? 0, $1.entryId) }
        return (entries, total)
    }

    static func entry(_ record: LocalRecord, kind: RecordKind, attempts: [SendAttempt]) -> OutboxEntry {
        let document = record.document
        let since = document[LocalField.localSince]?.int64Value ?? document[SmartStore.soupLastModifiedDate]?.int64Value
        let tries = attempts.filter { $0.startedAt >= (since ?? 0) }
        let refusal = RecordError.stored(document[LocalField.lastError]).map { $0.errorCode.isEmpty ? $0.message : "\($0.errorCode): \($0.message)" }
        let change: OutboxEntry.Change = document.isLocallyDeleted ? .delete : document.isLocallyCreated ? .create : .update
        var needsYou: String?
        if document.hasConflict {
            needsYou = "changed on the server too: resolve the conflict"
        } else if document.isCreateInDoubt {
            needsYou = "may be on the server already: forceterm resolve decides"
        }
        // A soup listed without its sObject (forceterm status reads any store): named by the record's own type.
        let named = kind.role == .other ? RecordKind(soupName: kind.soupName, sObjectType: document["attributes"]?["type"]?.stringValue ?? "") : kind
        return OutboxEntry(
            soup: kind.soupName, entryId: record.entryId, id: record.string("Id"), name: named.displayName(of: record),
            change: change, since: since, attempts: tries.count,
            lastError: refusal.isEmpty ? tries.last?.error : refusal.joined(separator: "; "), needsYou: needsYou)
    }

    /// "4 min", "2 h 5 min", "3 days" since `since`.
    public static func age(since: Int64?, now: Date) -> String {
        guard let since else { return "–" }
        let seconds = max(0, Int(now.timeIntervalSince1970) - Int(since / 1000))
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        return "\(seconds / 86_400) day\(seconds / 86_400 == 1 ? "" : "s")"
    }
}
