import ForceJSON
import SmartStore

/// Records a run had sent as creates without hearing back (`__create_in_flight__`): the server may
/// have made them. Each is looked up on the server by the values sent: exactly one match is adopted
/// as the record's server copy (a field changed here since stays a change), none means the create
/// never arrived (it is sent again), and several are left to the user with an error. Sync up runs
/// it first; so does sync down, before its pages, so that the server's copy of our own create is
/// never stored as a second record beside ours.
struct InFlightCreates: Sendable {
    let store: SmartStore
    let remote: any SyncRemote
    let soup: String
    let idFieldName: String
    /// The sync down whose set a record created here joins (the soup's only sync down), if any.
    let owningSyncDownId: Int64?
    /// Refuses once the sync is asked to stop: no new lookup leaves.
    let checkAccepting: @Sendable () async throws -> Void

    /// `sentFields` gives the values a journaled record was sent with (given the `local_` → server
    /// id map), or nil to leave it alone. Returns how many were found made on the server.
    @discardableResult
    func recover(sentFields: (JSONObject, [String: String]) -> JSONObject?) async throws -> Int {
        // Only the journaled ones: parsing every dirty record here cost a twentieth of a sync up.
        let records = try store.read { transaction in
            try SyncUpTask.dirtyRecords(soup: soup, alsoMatching: "json_extract({\(soup):_soup}, '$.\(LocalField.createInFlight)') IS NOT NULL",
                                        in: transaction)
        }.filter { $0[LocalField.createInFlight] != nil }
        guard !records.isEmpty else { return 0 }
        let serverIds = try store.read { try LocalIdMap.all(in: $0) }
        let createdBy = await remote.signedInUserId
        var lookups: [(entryId: Int64, query: String, fields: JSONObject)] = []
        for record in records {
            guard let entryId = record.soupEntryId, let type = record["attributes"]?["type"]?.stringValue,
                  let sentAt = record[LocalField.createInFlight]?["sentAt"]?.int64Value, let fields = sentFields(record, serverIds) else { continue }
            lookups.append((entryId, CreateRecovery.query(sobjectType: type, fields: fields, sentAt: sentAt, idField: idFieldName,
                                                                   createdBy: createdBy), fields))
        }
        // Several lookups in flight (one connection carries them all over HTTP/2): one after
        // another, 50 lost creates cost 20 s on a 300 ms link. Each answer is adopted as it comes.
        let (remote, idFieldName, queries) = (remote, idFieldName, lookups.map(\.query))
        var adopted = 0
        try await RequestWindow(width: Self.lookupsInFlight, checkAccepting: checkAccepting).run(lookups.count) { index in
            try await remote.query(queries[index], batchSize: nil).records.compactMap { $0[idFieldName]?.stringValue }
        } handle: { index, matches in
            if try adopt(matches, entryId: lookups[index].entryId, fields: lookups[index].fields, serverIds: serverIds) { adopted += 1 }
        }
        return adopted
    }

    /// Lookups of lost creates asked at once.
    static let lookupsInFlight = 8

    /// One lost create's lookup answered: adopted (true), sent again, or left to the user.
    private func adopt(_ matches: [String], entryId: Int64, fields: JSONObject, serverIds: [String: String]) throws -> Bool {
        try store.write { transaction in
            guard var current = try transaction.retrieve([entryId], from: soup).first, current[LocalField.createInFlight] != nil else { return false }
            switch matches.count {
            case 0:
                current.removeValue(forKey: LocalField.createInFlight)
            case 1:
                if let old = current[idFieldName]?.stringValue, LocalField.isLocalId(old) {
                    try LocalIdMap.record(localId: old, serverId: matches[0], soup: soup, in: transaction)
                }
                current[idFieldName] = .string(matches[0])
                var references: [String: String] = [:]
                for (field, value) in current {
                    if let text = value.stringValue, LocalField.isLocalId(text), let serverId = serverIds[text],
                       fields[field]?.stringValue == serverId { references[field] = text }
                }
                current.adoptServerIds(of: references, sent: fields)
                current.settleCreate(sent: fields, syncDownId: owningSyncDownId)
            default:
                current[LocalField.lastError] = .string(JSONWriter.string(.array([RecordError(
                    errorCode: "DUPLICATE_SUSPECTED",
                    message: "a create of this record may have reached the server before a crash, and \(matches.count) matching records exist (\(matches.joined(separator: ", "))); delete the extra ones on the server, then clear this record's error").json])))
            }
            _ = try transaction.update(current, id: entryId, in: soup)
            return matches.count == 1
        }
    }

    /// The soup's only sync down, whose set a record created here belongs to once it is on the
    /// server (so its ghost cleaning removes it if the server deletes it before any sync down has
    /// fetched it); nil when there are none or several.
    static func owningSyncDownId(soup: String, syncs: SyncsSoup) throws -> Int64? {
        let downs = try syncs.all().filter { $0.type == .syncDown && $0.soupName == soup }
        return downs.count == 1 ? downs[0].id : nil
    }
}

/// The lookup that recognises a create whose answer was lost (no external id configured).
public enum CreateRecovery {
    /// Allowed clock skew between this machine and the server when comparing creation times.
    public static let skewMillis: Int64 = 5 * 60 * 1000

    /// `select Id from T where CreatedDate >= <sent - skew> [and CreatedById = 'U'] and F1 = 'v1'
    /// and F2 = null … limit 3`. Only scalar values take part; text is escaped as SOQL wants.
    /// `createdBy`: the signed-in user, so that a record another user made with the same values
    /// (a training room typing the same exercise) is never taken for ours.
    public static func query(sobjectType: String, fields: JSONObject, sentAt: Int64, idField: String = "Id", createdBy: String? = nil) -> String {
        var predicates = ["CreatedDate >= \(SalesforceTimestamp.format(sentAt - skewMillis))"]
        if let createdBy { predicates.append("CreatedById = \(SoqlString.literal(createdBy))") }
        for (name, value) in fields {
            switch value {
            case .null: predicates.append("\(name) = null")
            case let .string(text): predicates.append("\(name) = \(SoqlString.literal(text))")
            case let .bool(flag): predicates.append("\(name) = \(flag)")
            case let .int(number): predicates.append("\(name) = \(number)")
            case let .double(number): predicates.append("\(name) = \(number)")
            case .array, .object: continue
            }
        }
        return "select \(idField) from \(sobjectType) where \(predicates.joined(separator: " and ")) order by CreatedDate limit 3"
    }
}

