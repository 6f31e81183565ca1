import ArgumentParser
import ContactsApp
import ForceJSON
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
                // Signed out (logout --force keeps the store): name the stores that are there.
                let others = storeOptions.storePath == nil && !globalOptions.global ? StoreLocation.userStores() : []
                if !others.isEmpty {
                    throw ConfigError("nobody is signed in, so there is no store to show by default; the stores kept on this machine are "
                                      + others.joined(separator: ", ") + " (forceterm status --store PATH, or forceterm login)")
                }
                throw ConfigError(RecordCatalog.noStore(at: path))
            }
            let store = try SmartStore(path: path, mustExist: true)
            let soups = try store.soupNames().filter { !LocalChanges.bookkeepingSoups.contains($0) }.sorted()
            let changes = try soups.map { try SoupChanges.count(soup: $0, in: store) }
            let syncs = try store.hasSoup(SyncState.soupName) ? try SyncsSoup(store: store).all() : []
            if json {
                let object: JSONObject = ["soups": .array(changes.map { .object($0.json) }), "syncs": .array(syncs.map { .object(Self.json($0)) })]
                StandardStreams.write(JSONWriter.string(.object(object), pretty: true) + "\n")
            } else {
                StandardStreams.write(Self.text(changes, syncs))
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

    static func text(_ changes: [SoupChanges], _ syncs: [SyncState]) -> String {
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
        if changes.isEmpty { lines.insert("No soups in this store yet: forceterm sync registers those of userstore.json.", at: 0) }
        if syncs.isEmpty { lines.append("No named syncs in this store: forceterm sync adds those of usersyncs.json, if it has any.") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A soup's local changes and problems, counted from the sync bookkeeping fields.
struct SoupChanges: Sendable {
    /// One record with an error or a conflict.
    struct Problem: Sendable {
        var entryId: Int64
        var id: String?
        var kind: String
        var detail: String

        var line: String { "\(kind) on entry \(entryId)\(id.map { " (\($0))" } ?? ""): \(detail)" }
        var json: JSONObject {
            ["entryId": .int(entryId), "id": id.map(JSONValue.string) ?? .null, "kind": .string(kind), "detail": .string(detail)]
        }
    }

    var soup: String
    var pending = 0
    var created = 0
    var updated = 0
    var deleted = 0
    var errors = 0
    var conflicts = 0
    var problems: [Problem] = []

    static func count(soup: String, in store: SmartStore) throws -> SoupChanges {
        var changes = SoupChanges(soup: soup)
        func flagged(_ field: String) throws -> Int {
            let rows = try store.query(.smart("SELECT count(*) FROM {\(soup)} WHERE json_extract({\(soup):_soup}, '$.\(field)') IN (1, 'true')"))
            return Int(rows.first?.arrayValue?.first?.int64Value ?? 0)
        }
        changes.pending = try flagged(LocalField.local)
        changes.created = try flagged(LocalField.locallyCreated)
        changes.updated = try flagged(LocalField.locallyUpdated)
        changes.deleted = try flagged(LocalField.locallyDeleted)
        let sql = """
            SELECT {\(soup):_soup} FROM {\(soup)} WHERE json_extract({\(soup):_soup}, '$.\(LocalField.lastError)') IS NOT NULL
            OR json_extract({\(soup):_soup}, '$.\(LocalField.conflict)') IS NOT NULL ORDER BY {\(soup):_soupEntryId}
            """
        for row in try store.query(.smart(sql, pageSize: 100_000)) {
            guard let record = row.arrayValue?.first?.objectValue, let entryId = record["_soupEntryId"]?.int64Value else { continue }
            let id = record["Id"]?.stringValue
            if record[LocalField.conflict] != nil, record[LocalField.conflict] != .null {
                changes.conflicts += 1
                let server = record[LocalField.conflict]?["server"]
                let detail = server == nil || server == .null ? "deleted on the server" : "changed on the server"
                changes.problems.append(Problem(entryId: entryId, id: id, kind: "conflict", detail: detail))
            }
            if let error = record[LocalField.lastError], error != .null {
                changes.errors += 1
                changes.problems.append(Problem(entryId: entryId, id: id, kind: "error", detail: Self.errorText(error)))
            }
        }
        return changes
    }

    /// Only how many records carry a sync error and how many a conflict: what a sync reports after
    /// it ran, without reading the records themselves.
    static func openIssues(soup: String, in store: SmartStore) throws -> (errors: Int, conflicts: Int) {
        let sql = """
            SELECT coalesce(sum(json_extract({\(soup):_soup}, '$.\(LocalField.lastError)') IS NOT NULL), 0),
            coalesce(sum(json_extract({\(soup):_soup}, '$.\(LocalField.conflict)') IS NOT NULL), 0) FROM {\(soup)}
            """
        let row = try store.query(.smart(sql, pageSize: 1)).first?.arrayValue ?? []
        return (Int(row.first?.int64Value ?? 0), Int(row.dropFirst().first?.int64Value ?? 0))
    }

    /// `__last_error__` is a JSON string holding `[{"errorCode","message","fields"}]`.
    static func errorText(_ value: JSONValue) -> String {
        let parsed = value.stringValue.flatMap { try? JSONParser.parse($0) } ?? value
        let items = parsed.arrayValue ?? [parsed]
        let texts = items.compactMap { item -> String? in
            guard let code = item["errorCode"]?.stringValue else { return item.stringValue }
            return "\(code): \(item["message"]?.stringValue ?? "")"
        }
        return texts.isEmpty ? JSONWriter.string(value) : texts.joined(separator: "; ")
    }

    var json: JSONObject {
        [
            "soup": .string(soup), "pending": .int(Int64(pending)), "created": .int(Int64(created)), "updated": .int(Int64(updated)),
            "deleted": .int(Int64(deleted)), "errors": .int(Int64(errors)), "conflicts": .int(Int64(conflicts)),
            "problems": .array(problems.map { .object($0.json) }),
        ]
    }
}
