import ArgumentParser
import ContactsApp
import ForceJSON
import ForcetermServices
import Foundation
import MobileSync
import SmartStore

/// `forceterm status`: what a sync would send, what went wrong, and where each named sync stands.
/// Reads the store only; works offline and without signing in.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show pending local changes, record errors, conflicts and each named sync's last run.",
        discussion: "Reads the local store only, so it works offline.")

    @Flag(help: "Print the status as JSON.") var json = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .global], in: "status")
        _ = try globalOptions.explicitPath(storeOptions)
    }

    func run() throws {
        try CommandFailure.reporting {
            let path = try globalOptions.location(storeOptions).path
            guard FileManager.default.fileExists(atPath: path) else {
                let explicit = storeOptions.storePath != nil || globalOptions.global
                if !explicit, StoreLocation.signedInStorePath(environment: ProcessInfo.processInfo.environment) == path {
                    throw ConfigError("signed in, but nothing is synced yet: your store \(path) is made by the first forceterm sync")
                }
                // Signed out (logout --force keeps the store): name the stores that are there.
                let others = storeOptions.storePath == nil && !globalOptions.global ? StoreLocation.userStores() : []
                if !others.isEmpty {
                    throw ConfigError(
                        "nobody is signed in, so there is no store to show by default; the stores kept on this machine are "
                            + others.joined(separator: ", ") + " (forceterm status --store PATH, or forceterm login)")
                }
                throw ConfigError(RecordCatalog.noStore(at: path))
            }
            let store = try StoreKeys.open(path, mustExist: true)
            let soups = try store.soupNames().filter { !LocalChanges.bookkeepingSoups.contains($0) }.sorted()
            let changes = try soups.map { try SoupChanges.count(soup: $0, in: store) }
            let syncs = try store.hasSoup(SyncState.soupName) ? try SyncsSoup(store: store).allAsTheyStand() : []
            let outbox = try Outbox.entries(in: store, kinds: soups.map { RecordKind(soupName: $0, sObjectType: "") }).entries
            let now = Date()
            // Noted by an open TUI's or sync --watch's automatic sync after a failure; one in the past is over.
            let nextTry = try SyncRunLog.nextTry(in: store).flatMap { $0 > Int64(now.timeIntervalSince1970 * 1000) ? $0 : nil }
            if json {
                let object: JSONObject = [
                    "soups": .array(changes.map { .object($0.json) }), "syncs": .array(syncs.map { .object(Self.json($0)) }),
                    "outbox": .array(outbox.map { .object(Self.json($0, now: now)) }),
                    "nextTry": nextTry.map { .string(SalesforceTimestamp.format($0)) } ?? .null,
                ]
                StandardStreams.write(JSONWriter.string(.object(object), pretty: true) + "\n")
            } else {
                StandardStreams.write(
                    Self.text(changes, syncs, global: globalOptions.global)
                        + Self.text(outbox: outbox, nextTry: nextTry, now: now))
            }
        }
    }

    static func json(_ sync: SyncState) -> JSONObject {
        [
            "name": sync.name.map(JSONValue.string) ?? .null, "type": .string(sync.type.rawValue), "soupName": .string(sync.soupName),
            "status": .string(sync.status.rawValue), "progress": .int(Int64(sync.progress)),
            "lastRun": sync.endTime > 0 ? .string(SalesforceTimestamp.format(sync.endTime)) : .null,
            "maxTimeStamp": sync.maxTimeStamp > 0 ? .string(SalesforceTimestamp.format(sync.maxTimeStamp)) : .null,
            "error": sync.error.isEmpty ? .null : .string(sync.error),
        ]
    }

    static func json(_ entry: OutboxEntry, now: Date) -> JSONObject {
        [
            "soup": .string(entry.soup), "entryId": .int(entry.entryId), "id": .string(entry.id), "name": .string(entry.name),
            "change": .string(entry.change.rawValue), "since": entry.since.map { .string(SalesforceTimestamp.format($0)) } ?? .null,
            "waitingSeconds": entry.since.map { .int(max(0, Int64(now.timeIntervalSince1970) - $0 / 1000)) } ?? .null,
            "attempts": .int(Int64(entry.attempts)), "lastError": entry.lastError.map(JSONValue.string) ?? .null,
            "needsYou": entry.needsYou.map(JSONValue.string) ?? .null,
        ]
    }

    /// Each unsent change, oldest first: how long it waits, its tries, why it is still here, and
    /// when it is tried next.
    static func text(outbox: [OutboxEntry], nextTry: Int64?, now: Date) -> String {
        guard !outbox.isEmpty else { return "" }
        let next = nextTry.map { "next try " + SalesforceTimestamp.format($0) + " (automatic sync)" } ?? "sent by the next sync"
        var lines = ["Waiting to send (\(outbox.count)), oldest first:"]
        for entry in outbox {
            var line =
                "  \(entry.soup) \(entry.name.isEmpty ? entry.id : "\(entry.name) (\(entry.id))"): \(entry.change.rawValue), waiting "
                + Outbox.age(since: entry.since, now: now) + ", \(entry.attempts) tr\(entry.attempts == 1 ? "y" : "ies")"
            if let error = entry.lastError { line += "; last error: \(error.oneLine)" }
            line += "; " + (entry.needsYou.map { "needs you: \($0)" } ?? next)
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func text(_ changes: [SoupChanges], _ syncs: [SyncState], global: Bool = false) -> String {
        var lines: [String] = []
        for soup in changes {
            lines.append("\(soup.soup): \(soup.pending) pending (\(soup.created) created, \(soup.updated) updated, \(soup.deleted) deleted), \(soup.errors) with errors, \(soup.conflicts) in conflict")
            for problem in soup.problems { lines.append("  \(problem.line)") }
        }
        for sync in syncs {
            let lastRun = sync.endTime > 0 ? SalesforceTimestamp.format(sync.endTime) : "never"
            let mark = sync.maxTimeStamp > 0 ? ", up to \(SalesforceTimestamp.format(sync.maxTimeStamp))" : ""
            let error = sync.error.isEmpty ? "" : ": \(sync.error.oneLine)"
            lines.append("sync \(sync.name ?? String(sync.id)) (\(sync.type.rawValue) \(sync.soupName)): \(sync.status.rawValue), last run \(lastRun)\(mark)\(error)")
        }
        let files = global ? ("globalstore.json", "globalsyncs.json", "sync --global") : ("userstore.json", "usersyncs.json", "sync")
        if changes.isEmpty { lines.insert("No soups in this store yet: forceterm \(files.2) registers those of \(files.0).", at: 0) }
        if syncs.isEmpty { lines.append("No named syncs in this store: forceterm \(files.2) adds those of \(files.1), if it has any.") }
        return lines.joined(separator: "\n") + "\n"
    }
}
