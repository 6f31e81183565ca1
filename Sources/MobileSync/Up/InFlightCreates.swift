import ForceJSON
import SmartStore

/// Records a run had sent as creates without hearing back (`__create_in_flight__`): the server may
/// have made them. Each is looked up on the server by the values sent that a real org can filter
/// on: exactly one match is adopted as the record's server copy (a field changed here since stays
/// a change). When nothing matches, the records this user created on the server around the send
/// decide: none means the create never arrived (it is sent again); some, none of them held here,
/// mean the org may have changed a value on save (a flow) or refused the lookup, so the record
/// waits "in doubt" with those candidates for the user, and is never sent twice. Several matches
/// wait in doubt too. Sync up runs it first; so does sync down, before its pages, so that the
/// server's copy of our own create is never stored as a second record beside ours.
struct InFlightCreates: Sendable {
    let store: SmartStore
    let syncs: SyncsSoup
    let remote: any SyncRemote
    let soup: String
    let idFieldName: String
    /// The sync down whose set a record created here joins (the soup's only sync down), if any.
    let owningSyncDownId: Int64?
    /// Refuses once the sync is asked to stop: no new lookup leaves.
    let checkAccepting: @Sendable () async throws -> Void

    /// What the server said of one lost create.
    enum Finding: Sendable, Equatable {
        /// Records matching the values sent.
        case matched([String])
        /// None matched (or the lookup was refused, `refusal`); the records the user created on
        /// the server around the send, which may be it (`complete`: all of them, not the first page).
        case unmatched(candidates: [CreateRecovery.Candidate], refusal: String?, complete: Bool)
    }

    /// `sentFields` gives the values a journaled record was sent with (given the `local_` → server
    /// id map), or nil to leave it alone. Returns how many were found made on the server.
    @discardableResult
    func recover(sentFields: (JSONObject, [String: String]) -> JSONObject?) async throws -> Int {
        // Only the journaled ones: parsing every dirty record here cost a twentieth of a sync up.
        let records = try store.read { transaction in
            try SyncUpTask.dirtyRecords(
                soup: soup, alsoMatching: "json_extract({\(soup):_soup}, '$.\(LocalField.createInFlight)') IS NOT NULL",
                in: transaction)
        }.filter { $0[LocalField.createInFlight] != nil && !$0.isCreateInDoubt }
        guard !records.isEmpty else { return 0 }
        let serverIds = try store.read { try LocalIdMap.all(in: $0) }
        let createdBy = await remote.signedInUserId
        var described: [String: DescribedFields] = [:]
        var asked = Set<String>()
        var lookups: [CreateRecovery.Lookup] = []
        for record in records {
            guard let entryId = record.soupEntryId, let type = record["attributes"]?["type"]?.stringValue,
                let sentAt = record[LocalField.createInFlight]?["sentAt"]?.int64Value, let fields = sentFields(record, serverIds)
            else { continue }
            // Asked once per type, answered or not.
            if asked.insert(type).inserted, let fields = try await describe(type) { described[type] = fields }
            lookups.append(
                CreateRecovery.Lookup(
                    entryId: entryId, sobjectType: type, fields: fields, sentAt: sentAt, idField: idFieldName,
                    createdBy: createdBy, described: described[type]))
        }
        // Several lookups in flight (one connection carries them all over HTTP/2): one after
        // another, 50 lost creates cost 20 s on a 300 ms link.
        let (remote, sent) = (remote, lookups)
        var findings: [Int: Finding] = [:]
        try await RequestWindow(width: Self.lookupsInFlight, checkAccepting: checkAccepting).run(sent.count) { index in
            try await sent[index].find(in: remote)
        } handle: { index, finding in
            findings[index] = finding
        }
        // A match the store already holds as another record is not ours to take: the lookup
        // leaves out empty fields, so a record holding more than was sent matches too.
        var everyId = Set<String>()
        for finding in findings.values {
            switch finding {
            case let .matched(ids): everyId.formUnion(ids)
            case let .unmatched(candidates, _, _): everyId.formUnion(candidates.map(\.id))
            }
        }
        var held = try heldIds(everyId)
        // Matches all held here as other records: the values sent say nothing, so the records
        // created around the send decide, as for no match.
        for (index, lookup) in lookups.enumerated() {
            guard case let .matched(ids)? = findings[index], ids.allSatisfy(held.contains) else { continue }
            let around = try await lookup.createdAround(in: remote, refusal: nil)
            findings[index] = around
            if case let .unmatched(candidates, _, _) = around { held.formUnion(try heldIds(Set(candidates.map(\.id)))) }
        }
        // Clear matches first, each in a commit of its own, so the records they adopt are no
        // other lost create's candidates.
        var adopted = 0
        var taken = Set<String>()
        for (index, lookup) in lookups.enumerated() {
            guard case let .matched(ids)? = findings[index], ids.count == 1, !held.contains(ids[0]), !taken.contains(ids[0]) else { continue }
            if try adopt(ids[0], entryId: lookup.entryId, fields: lookup.fields, serverIds: serverIds) { adopted += 1 }
            taken.insert(ids[0])
        }
        for (index, lookup) in lookups.enumerated() {
            switch findings[index] {
            case let .matched(ids)? where ids.count == 1 && taken.contains(ids[0]):
                try leaveInDoubt(
                    lookup.entryId, candidates: ids.map { CreateRecovery.Candidate(id: $0, name: nil) },
                    reason: "the one record on the server holding the values sent was taken by another create that lost its answer")
            case let .matched(ids)? where ids.count > 1:
                let free = ids.filter { !held.contains($0) && !taken.contains($0) }
                try leaveInDoubt(
                    lookup.entryId, candidates: (free.isEmpty ? ids : free).map { CreateRecovery.Candidate(id: $0, name: nil) },
                    reason: "\(ids.count) records on the server match the values sent")
            case let .unmatched(candidates, refusal, complete)?:
                let free = candidates.filter { !taken.contains($0.id) && !held.contains($0.id) }
                if free.isEmpty, refusal == nil, complete {
                    try sendAgain(lookup.entryId)
                } else {
                    let reason =
                        refusal.map { "the org refused the lookup (\($0))" }
                        ?? (complete
                            ? "no record on the server holds every value sent (the org may have changed one on save)"
                            : "you created more records then than can be told apart")
                    try leaveInDoubt(lookup.entryId, candidates: free, reason: reason)
                }
            default:
                continue
            }
        }
        return adopted
    }

    /// Of `ids`, those the soup holds (as records of their own: a lost create holds its `local_` id).
    private func heldIds(_ ids: Set<String>) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        var held = Set<String>()
        for chunk in Array(ids).chunked(into: 500) {
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let rows = try store.read { transaction in
                try transaction.query(
                    .smart(
                        "SELECT {\(soup):\(idFieldName)} FROM {\(soup)} WHERE {\(soup):\(idFieldName)} IN (\(placeholders))",
                        pageSize: chunk.count + 1), arguments: chunk.map { .string($0) })
            }
            held.formUnion(rows.compactMap { $0.arrayValue?.first?.stringValue })
        }
        return held
    }

    /// The candidates a create in doubt keeps for the user to choose from (the first created).
    static let candidatesKept = 100

    /// Lookups of lost creates asked at once.
    static let lookupsInFlight = 8

    /// The object's fields as the org describes them to this user: the stored describe, else one
    /// asked for now (a rare path: only after a lost answer). Nil when the org answers none.
    private func describe(_ sobjectType: String) async throws -> DescribedFields? {
        try await DescribedFields.storedOrAsked(sobjectType, store: store, syncs: syncs, remote: remote)
    }

    /// One lost create found on the server as `serverId`: adopted.
    private func adopt(_ serverId: String, entryId: Int64, fields: JSONObject, serverIds: [String: String]) throws -> Bool {
        try store.write { transaction in
            try Self.adopt(
                serverId, entryId: entryId, fields: fields, serverIds: serverIds, soup: soup, idFieldName: idFieldName,
                owningSyncDownId: owningSyncDownId, in: transaction)
        }
    }

    /// Adopts `serverId` as the server's copy of the record created at `entryId` and sent with
    /// `fields`, in `transaction`; false when the record is no longer a create on its way.
    static func adopt(
        _ serverId: String, entryId: Int64, fields: JSONObject, serverIds: [String: String], soup: String,
        idFieldName: String, owningSyncDownId: Int64?, in transaction: StoreTransaction
    ) throws -> Bool {
        guard var current = try transaction.retrieve([entryId], from: soup).first, current[LocalField.createInFlight] != nil else { return false }
        if let old = current[idFieldName]?.stringValue, LocalField.isLocalId(old) {
            try LocalIdMap.record(localId: old, serverId: serverId, soup: soup, in: transaction)
        }
        current[idFieldName] = .string(serverId)
        var references: [String: String] = [:]
        for (field, value) in current {
            if let text = value.stringValue, LocalField.isLocalId(text), let mapped = serverIds[text],
                fields[field]?.stringValue == mapped
            {
                references[field] = text
            }
        }
        current.adoptServerIds(of: references, sent: fields)
        current.removeValue(forKey: LocalField.lastError)
        current.settleCreate(sent: fields, syncDownId: owningSyncDownId)
        _ = try transaction.update(current, id: entryId, in: soup)
        return true
    }

    /// Nothing matched and the user made nothing else then that the store lacks: the create
    /// never arrived, and goes again.
    private func sendAgain(_ entryId: Int64) throws {
        try store.write { transaction in
            guard var current = try transaction.retrieve([entryId], from: soup).first, current[LocalField.createInFlight] != nil else { return }
            current.removeValue(forKey: LocalField.createInFlight)
            _ = try transaction.update(current, id: entryId, in: soup)
        }
    }

    /// The record waits for the user's decision: never sent again by itself.
    private func leaveInDoubt(_ entryId: Int64, candidates: [CreateRecovery.Candidate], reason: String) throws {
        try store.write { transaction in
            guard var current = try transaction.retrieve([entryId], from: soup).first, current[LocalField.createInFlight] != nil else { return }
            current[LocalField.createInDoubt] = ["reason": .string(reason), "candidates": .array(candidates.prefix(Self.candidatesKept).map(\.json))]
            let listed =
                candidates.isEmpty
                ? ""
                : "; it may be "
                    + candidates.prefix(5).map { candidate in
                        candidate.name.map { "\($0) (\(candidate.id))" } ?? candidate.id
                    }.joined(separator: ", ") + (candidates.count > 5 ? " or \(candidates.count - 5) more" : "")
            current[LocalField.lastError] = .string(
                JSONWriter.string(
                    .array([
                        RecordError(
                            errorCode: "CREATE_IN_DOUBT",
                            message: "this record's create may have reached the server before its answer was lost, and \(reason)\(listed). "
                                + "It is not sent again until you decide: forceterm resolve ID --adopt SERVER_ID takes the server's record as this one, "
                                + "--send-again creates it anew"
                        ).json
                    ])))
            _ = try transaction.update(current, id: entryId, in: soup)
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

/// The lookups that recognise a create whose answer was lost (no external id configured).
public enum CreateRecovery {
    /// Allowed clock skew between this machine and the server when comparing creation times.
    public static let skewMillis: Int64 = 5 * 60 * 1000
    /// The longest a lookup's query may be, encoded in its URL: a real org refuses a request line
    /// and headers over 16,384 bytes (431), and the headers need a few hundred of them.
    public static let queryBudget = 8_000
    /// The records `createdAround` asks for, one page of a query's answer; as many answered means
    /// there may be more, so the create waits in doubt rather than be sent again. An import of a
    /// few hundred records just before the create must not leave it in doubt.
    public static let createdAroundLimit = 2_000
    /// Values longer than this are left out of a lookup (a long text area cannot be filtered on,
    /// and a long value would spend the URL's budget).
    public static let longestValue = 255

    /// A record the user created on the server around a lost create's send.
    public typealias Candidate = RecordReference

    /// One lost create's lookups.
    struct Lookup: Sendable {
        var entryId: Int64
        var sobjectType: String
        var fields: JSONObject
        var sentAt: Int64
        var idField: String
        var createdBy: String?
        var described: DescribedFields?

        /// The strict lookup; when it finds nothing or the org refuses it, the user's creates of
        /// the moment. Only the refusal of the second is a failure of the sync.
        func find(in remote: any SyncRemote) async throws -> InFlightCreates.Finding {
            let strict = CreateRecovery.query(
                sobjectType: sobjectType, fields: fields, sentAt: sentAt, idField: idField,
                createdBy: createdBy, described: described)
            var refusal: String?
            do {
                let ids = try await remote.query(strict, batchSize: nil).records.compactMap { $0[idField]?.stringValue }
                if !ids.isEmpty { return .matched(ids) }
            } catch {
                guard case let .server(status, code, message) = error, (400..<500).contains(status), status != 401 else { throw error }
                refusal = "\(code): \(message.split(separator: "\n").last.map(String.init) ?? message)"
            }
            return try await createdAround(in: remote, refusal: refusal)
        }

        /// The records the user created around the send, when the values sent match none of the
        /// records not held here.
        func createdAround(in remote: any SyncRemote, refusal: String?) async throws -> InFlightCreates.Finding {
            let nameField = described?.field("Name") != nil ? "Name" : nil
            let loose = CreateRecovery.createdAround(
                sobjectType: sobjectType, sentAt: sentAt, idField: idField, nameField: nameField,
                createdBy: createdBy)
            let page = try await remote.query(loose, batchSize: nil)
            return .unmatched(
                candidates: page.records.compactMap { record in
                    record[idField]?.stringValue.map { Candidate(id: $0, name: nameField.flatMap { record[$0]?.stringValue }) }
                }, refusal: refusal, complete: page.records.count < CreateRecovery.createdAroundLimit)
        }
    }

    /// `select Id from T where CreatedDate >= <sent - skew> [and CreatedById = 'U'] and F1 = 'v1'
    /// … limit 3`, over the values a real org lets a query filter on: no null (a flow may default
    /// it on save), no long text area or value over 255 characters, no field the describe says is
    /// not filterable, and no more than `queryBudget` bytes once encoded. Text is escaped as SOQL
    /// wants. `createdBy`: the signed-in user, so that a record another user made with the same
    /// values (a training room typing the same exercise) is never taken for ours.
    public static func query(
        sobjectType: String, fields: JSONObject, sentAt: Int64, idField: String = "Id", createdBy: String? = nil,
        described: DescribedFields? = nil
    ) -> String {
        var predicates = ["CreatedDate >= \(SalesforceTimestamp.format(sentAt - skewMillis))"]
        if let createdBy { predicates.append("CreatedById = \(SoqlString.literal(createdBy))") }
        let head = "select \(idField) from \(sobjectType) where "
        let tail = " order by CreatedDate limit 3"
        var length = encodedLength(head + predicates.joined(separator: " and ") + tail)
        for (name, value) in fields {
            if let described, !described.canFilter(name) { continue }
            let predicate: String
            switch value {
            case let .string(text) where !text.isEmpty && text.count <= longestValue: predicate = "\(name) = \(SoqlString.literal(text))"
            case let .bool(flag): predicate = "\(name) = \(flag)"
            case let .int(number): predicate = "\(name) = \(number)"
            case let .double(number): predicate = "\(name) = \(number)"
            default: continue
            }
            let added = encodedLength(" and " + predicate)
            if length + added > queryBudget { continue }
            length += added
            predicates.append(predicate)
        }
        return head + predicates.joined(separator: " and ") + tail
    }

    /// The records `createdBy` created of `sobjectType` around `sentAt`: the candidates when the
    /// values sent match none.
    public static func createdAround(
        sobjectType: String, sentAt: Int64, idField: String = "Id", nameField: String?,
        createdBy: String?
    ) -> String {
        var predicates = [
            "CreatedDate >= \(SalesforceTimestamp.format(sentAt - skewMillis))",
            "CreatedDate <= \(SalesforceTimestamp.format(sentAt + 2 * skewMillis))",
        ]
        if let createdBy { predicates.append("CreatedById = \(SoqlString.literal(createdBy))") }
        let select = [idField] + (nameField.map { [$0] } ?? [])
        return "select \(select.joined(separator: ", ")) from \(sobjectType) where \(predicates.joined(separator: " and ")) order by CreatedDate limit \(createdAroundLimit)"
    }

    /// Bytes the text takes percent-encoded in a query string.
    static func encodedLength(_ text: String) -> Int {
        text.utf8.reduce(0) { total, byte in
            total + ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) ? 1 : 3)
        }
    }
}
