import ContactsApp
import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// A soup's local changes and problems, counted from the sync bookkeeping fields.
public struct SoupChanges: Sendable {
    /// One record with an error or a conflict.
    public struct Problem: Sendable {
        public var entryId: Int64
        public var id: String?
        public var kind: String
        public var detail: String
        /// The org's error codes, in order (`DUPLICATES_DETECTED`, `CREATE_IN_DOUBT`…); none for a conflict.
        public var errorCodes: [String] = []
        /// The records the org's duplicate rule matched.
        public var duplicates: [RecordReference] = []
        /// A lost create in doubt: the server's records that may be it.
        public var candidates: [RecordReference] = []

        public var line: String { "\(kind) on entry \(entryId)\(id.map { " (\($0))" } ?? ""): \(detail)" }
        public var json: JSONObject {
            var object: JSONObject = ["entryId": .int(entryId), "id": id.map(JSONValue.string) ?? .null, "kind": .string(kind), "detail": .string(detail)]
            if !errorCodes.isEmpty { object["errorCodes"] = .array(errorCodes.map(JSONValue.string)) }
            if !duplicates.isEmpty { object["duplicates"] = .array(duplicates.map(\.json)) }
            if !candidates.isEmpty { object["candidates"] = .array(candidates.map(\.json)) }
            return object
        }
    }

    public var soup: String
    public var pending = 0
    public var created = 0
    public var updated = 0
    public var deleted = 0
    public var errors = 0
    public var conflicts = 0
    public var problems: [Problem] = []

    public static func count(soup: String, in store: SmartStore) throws -> SoupChanges {
        var changes = SoupChanges(soup: soup)
        func isSet(_ field: String) -> String { "json_extract({\(soup):_soup}, '$.\(field)') IN (1, 'true')" }
        /// Records with `field` set and none of `unless`.
        func flagged(_ field: String, unless: [String] = []) throws -> Int {
            let conditions = [isSet(field)] + unless.map { "NOT coalesce(\(isSet($0)), 0)" }
            let rows = try store.query(.smart("SELECT count(*) FROM {\(soup)} WHERE " + conditions.joined(separator: " AND ")))
            return Int(rows.first?.arrayValue?.first?.int64Value ?? 0)
        }
        changes.pending = try flagged(LocalField.local)
        // As the sync up sends them, so that the three add up: a delete wins, then a create (a
        // record created here and edited since is one create).
        changes.deleted = try flagged(LocalField.locallyDeleted)
        changes.created = try flagged(LocalField.locallyCreated, unless: [LocalField.locallyDeleted])
        changes.updated = try flagged(LocalField.locallyUpdated, unless: [LocalField.locallyDeleted, LocalField.locallyCreated])
        let sql = """
            SELECT {\(soup):_soup} FROM {\(soup)} WHERE json_extract({\(soup):_soup}, '$.\(LocalField.lastError)') IS NOT NULL
            OR json_extract({\(soup):_soup}, '$.\(LocalField.conflict)') IS NOT NULL ORDER BY {\(soup):_soupEntryId}
            """
        for row in try store.query(.smart(sql, pageSize: 100_000)) {
            guard let record = row.arrayValue?.first?.objectValue, let entryId = record["_soupEntryId"]?.int64Value else { continue }
            let id = record["Id"]?.stringValue
            if record[LocalField.conflict] != nil, record[LocalField.conflict] != .null {
                changes.conflicts += 1
                let conflict = SyncConflict(record: record, soupName: soup)
                var detail: String
                switch conflict?.kind {
                case let .fields(fields)?: detail = "changed on the server too (" + fields.map(\.name).joined(separator: ", ") + ")"
                case .deletedHere?: detail = "deleted here, changed on the server"
                default: detail = "deleted on the server"
                }
                detail += "; forceterm resolve \(id ?? String(entryId)) shows both sides"
                changes.problems.append(Problem(entryId: entryId, id: id, kind: "conflict", detail: detail))
            }
            if let error = record[LocalField.lastError], error != .null {
                changes.errors += 1
                let errors = RecordError.stored(error)
                var problem = Problem(entryId: entryId, id: id, kind: "error", detail: Self.errorText(error))
                problem.errorCodes = errors.map(\.errorCode).filter { !$0.isEmpty }
                problem.duplicates = errors.flatMap(\.duplicates)
                problem.candidates = record[LocalField.createInDoubt]?["candidates"]?.arrayValue?.compactMap(RecordReference.init) ?? []
                let name = id ?? String(entryId)
                if !problem.duplicates.isEmpty {
                    problem.detail +=
                        "; the org has " + problem.duplicates.prefix(3).map(\.label).joined(separator: ", ")
                        + (problem.duplicates.count > 3 ? " and \(problem.duplicates.count - 3) more" : "")
                        + (record.isLocallyCreated
                            ? "; forceterm resolve \(name) --allow-duplicate saves it anyway, or delete it here"
                            : "; change the fields that match, or revert the edit")
                }
                changes.problems.append(problem)
            }
        }
        return changes
    }

    /// Only how many records carry a sync error and how many a conflict: what a sync reports after
    /// it ran, without reading the records themselves.
    public static func openIssues(soup: String, in store: SmartStore) throws -> (errors: Int, conflicts: Int) {
        let sql = """
            SELECT coalesce(sum(json_extract({\(soup):_soup}, '$.\(LocalField.lastError)') IS NOT NULL), 0),
            coalesce(sum(json_extract({\(soup):_soup}, '$.\(LocalField.conflict)') IS NOT NULL), 0) FROM {\(soup)}
            """
        let row = try store.query(.smart(sql, pageSize: 1)).first?.arrayValue ?? []
        return (Int(row.first?.int64Value ?? 0), Int(row.dropFirst().first?.int64Value ?? 0))
    }

    /// `__last_error__` is a JSON string holding `[{"errorCode","message","fields"}]`.
    public static func errorText(_ value: JSONValue) -> String {
        let parsed = value.stringValue.flatMap { try? JSONParser.parse($0) } ?? value
        let items = parsed.arrayValue ?? [parsed]
        let texts = items.compactMap { item -> String? in
            guard let code = item["errorCode"]?.stringValue else { return item.stringValue }
            return "\(code): \(item["message"]?.stringValue ?? "")"
        }
        return texts.isEmpty ? JSONWriter.string(value) : texts.joined(separator: "; ")
    }

    public var json: JSONObject {
        [
            "soup": .string(soup), "pending": .int(Int64(pending)), "created": .int(Int64(created)), "updated": .int(Int64(updated)),
            "deleted": .int(Int64(deleted)), "errors": .int(Int64(errors)), "conflicts": .int(Int64(conflicts)),
            "problems": .array(problems.map { .object($0.json) }),
        ]
    }
}
