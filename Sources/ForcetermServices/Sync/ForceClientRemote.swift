import ForceAPI
import ForceJSON
import Foundation
import MobileSync
import SalesforceTime

/// ForceAPI's REST client as the engine's `SyncRemote`: whole-call failures become
/// `SyncRemoteError`, each record's answer a `RecordOutcome` (404 and ENTITY_IS_DELETED →
/// `notFound`, 412 → `preconditionFailed`, other refusals → `failed` with Salesforce's errors).
public struct ForceClientRemote: SyncRemote {
    public let client: ForceClient

    public init(client: ForceClient) {
        self.client = client
    }

    public var signedInUserId: String? {
        get async {
            let id = await client.credentials.userId
            return id.isEmpty ? nil : id
        }
    }

    // MARK: Reads

    public func query(_ soql: String, batchSize: Int?) async throws(SyncRemoteError) -> RemoteQueryPage {
        try Self.page(try await call { try await client.query(soql, batchSize: batchSize) })
    }

    public func queryMore(_ nextRecordsUrl: String) async throws(SyncRemoteError) -> RemoteQueryPage {
        try Self.page(try await call { try await client.queryMore(nextRecordsUrl) })
    }

    public func search(_ sosl: String) async throws(SyncRemoteError) -> [JSONObject] {
        try await call { try await client.search(sosl) }.compactMap(\.objectValue)
    }

    public func recentItemIds(sobjectType: String) async throws(SyncRemoteError) -> [String] {
        let info = try await call { try await client.basicInfo(sobjectType) }
        let items: [JSONValue] = info["recentItems"]?.arrayValue ?? []
        return items.compactMap { (item: JSONValue) -> String? in item["Id"]?.stringValue ?? item["id"]?.stringValue }
    }

    public func retrieve(sobjectType: String, ids: [String], fields: [String]) async throws(SyncRemoteError) -> [JSONObject?] {
        guard !ids.isEmpty else { return [] }
        let found = try await call { try await client.retrieveRecords(sobjectType, ids: ids, fields: fields) }
        guard found.count == ids.count else {
            throw .malformedResponse("\(found.count) records for \(ids.count) ids from composite/sobjects/\(sobjectType)")
        }
        return found.map { $0?.objectValue }
    }

    public func primingRecords(relayToken: String?, changedAfter: Int64?) async throws(SyncRemoteError) -> BriefcasePrimingPage {
        var query: [(String, String)] = []
        if let relayToken {
            query.append(("relayToken", relayToken))
        } else if let changedAfter {
            query.append(("changedAfterTimestamp", SalesforceTimestamp.format(changedAfter)))
        }
        let response = try await call { try await client.send("GET", "connect/briefcase/priming-records", query: query) }
        guard let body = try? JSONParser.parse(response.body) else { throw .malformedResponse("priming records are not JSON") }
        var idsByType: [String: [String]] = [:]
        // {"primingRecords": {"<type>": {"<record type id>": [{"id", "systemModstamp"}]}}}
        let byType: JSONObject = body["primingRecords"]?.objectValue ?? JSONObject()
        for (type, byRecordType) in byType {
            let groups: JSONObject = byRecordType.objectValue ?? JSONObject()
            for (_, records) in groups {
                let ids = (records.arrayValue ?? []).compactMap { (record: JSONValue) -> String? in record["id"]?.stringValue }
                idsByType[type, default: []] += ids
            }
        }
        return BriefcasePrimingPage(idsByType: idsByType, relayToken: body["relayToken"]?.stringValue)
    }

    public func resource(_ path: String, query: [(String, String)]) async throws(SyncRemoteError) -> JSONObject {
        guard let object = try await call({ try await client.resource(path, query: query) }).objectValue else {
            throw .malformedResponse("\(path) is not a JSON object")
        }
        return object
    }

    public func resource(_ path: String, query: [(String, String)], unlessTagged etag: String?) async throws(SyncRemoteError) -> RemoteResource {
        let headers = etag.map { [HTTPHeader("If-None-Match", $0)] } ?? []
        let response = try await call { try await client.send("GET", path, query: query, headers: headers) }
        if response.status == 304 { return .unchanged }
        guard let object = (try? JSONParser.parse(response.body))?.objectValue else {
            throw .malformedResponse("\(path) is not a JSON object")
        }
        return .object(object, etag: response.header("ETag"))
    }

    // MARK: Writes

    public func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        try await send(writes, route: route, allowingDuplicates: false)
    }

    public func send(_ writes: [RecordWrite], route: WriteRoute, allowingDuplicates: Bool) async throws(SyncRemoteError) -> [RecordOutcome] {
        guard !writes.isEmpty else { return [] }
        let outcomes: [RecordOutcome]
        switch route {
        case .single:
            var each: [RecordOutcome] = []
            for write in writes { each.append(try await sendOne(write, allowingDuplicates: allowingDuplicates)) }
            outcomes = each
        case .composite:
            outcomes = try await sendComposite(writes, allowingDuplicates: allowingDuplicates)
        case .collection:
            outcomes = try await sendCollection(writes, allowingDuplicates: allowingDuplicates)
        }
        return try await namingDuplicates(outcomes, of: writes, allowingDuplicates: allowingDuplicates)
    }

    /// Duplicate refusals with the records the org matched, by name: what the user needs to
    /// decide. sObject Collections answer `DUPLICATES_DETECTED` without the matches (as the REST
    /// guide's example shows), so such a create is asked again alone, where the org names them
    /// (refused again, it creates nothing; saved this time, it is done).
    private func namingDuplicates(
        _ outcomes: [RecordOutcome], of writes: [RecordWrite],
        allowingDuplicates: Bool
    ) async throws(SyncRemoteError) -> [RecordOutcome] {
        var outcomes = outcomes
        var found: [String: Set<String>] = [:]
        for index in outcomes.indices {
            guard case let .failed(errors) = outcomes[index], errors.contains(where: { $0.errorCode == "DUPLICATES_DETECTED" }) else { continue }
            if errors.allSatisfy({ $0.duplicates.isEmpty }), case .create = writes[index] {
                // Only to learn the matches: a failure of this second request keeps the first
                // answer (the batch's other outcomes are known and must be recorded), unless the
                // request may have created the record: then the run ends, and the journal of the
                // batch's creates finds on the next run what reached the org.
                do {
                    outcomes[index] = try await sendOne(writes[index], allowingDuplicates: allowingDuplicates)
                } catch {
                    if case .offline(_, true) = error { throw error }
                }
            }
            guard case let .failed(named) = outcomes[index] else { continue }
            for error in named { found[writes[index].sobjectType, default: []].formUnion(error.duplicates.map(\.id)) }
        }
        guard !found.isEmpty else { return outcomes }
        var names: [String: String] = [:]
        for (type, ids) in found where !ids.isEmpty {
            let list = ids.sorted().map(SoqlString.literal).joined(separator: ", ")
            // Names only help: a type without a Name field, or a refused query, leaves the ids alone.
            if let page = try? await query("SELECT Id, Name FROM \(type) WHERE Id IN (\(list))", batchSize: nil) {
                for record in page.records {
                    if let id = record["Id"]?.stringValue, let name = record["Name"]?.stringValue { names[id] = name }
                }
            }
        }
        return outcomes.map { outcome in
            guard case let .failed(errors) = outcome else { return outcome }
            return .failed(
                errors.map { error in
                    var named = error
                    named.duplicates = error.duplicates.map { RecordReference(id: $0.id, name: names[$0.id]) }
                    return named
                })
        }
    }

    /// sObject Rows: one request for the write.
    private func sendOne(_ write: RecordWrite, allowingDuplicates: Bool = false) async throws(SyncRemoteError) -> RecordOutcome {
        do throws(ForceAPIError) {
            switch write {
            case let .create(type, fields):
                return .success(id: try await client.create(type, fields: fields, allowDuplicate: allowingDuplicates))
            case let .upsert(type, field, value, fields):
                let result = try await client.upsert(type, externalIdField: field, value: value, fields: fields)
                return Self.outcome(result, write: write)
            case let .update(type, id, fields, since):
                try await client.update(type, id: id, fields: fields, ifUnmodifiedSince: since.map(Self.date))
                return .success(id: id)
            case let .delete(type, id, since):
                try await client.delete(type, id: id, ifUnmodifiedSince: since.map(Self.date))
                return .success(id: id)
            }
        } catch {
            return try Self.outcome(error, write: write)
        }
    }

    /// `POST composite`, allOrNone false: each write is its own subrequest, conditional ones with
    /// an `If-Unmodified-Since` subrequest header.
    private func sendComposite(_ writes: [RecordWrite], allowingDuplicates: Bool) async throws(SyncRemoteError) -> [RecordOutcome] {
        let base = client.dataPath + "/sobjects"
        let subrequests = writes.enumerated().map { index, write -> CompositeSubrequest in
            let reference = "w\(index)"
            switch write {
            case let .create(type, fields):
                return CompositeSubrequest(method: "POST", url: "\(base)/\(Self.segment(type))", referenceId: reference, body: .object(fields))
            case let .upsert(type, field, value, fields):
                return CompositeSubrequest(
                    method: "PATCH", url: "\(base)/\(Self.segment(type))/\(Self.segment(field))/\(Self.segment(value))",
                    referenceId: reference, body: .object(fields))
            case let .update(type, id, fields, since):
                return CompositeSubrequest(
                    method: "PATCH", url: "\(base)/\(Self.segment(type))/\(Self.segment(id))", referenceId: reference,
                    body: .object(fields), httpHeaders: Self.preconditionHeaders(since))
            case let .delete(type, id, since):
                return CompositeSubrequest(
                    method: "DELETE", url: "\(base)/\(Self.segment(type))/\(Self.segment(id))", referenceId: reference,
                    httpHeaders: Self.preconditionHeaders(since))
            }
        }
        let responses = try await call { try await client.composite(subrequests, allOrNone: false, allowDuplicates: allowingDuplicates) }
        guard responses.count == writes.count else {
            throw .malformedResponse("\(responses.count) composite results for \(writes.count) subrequests")
        }
        var outcomes: [RecordOutcome] = []
        for (write, response) in zip(writes, responses) {
            if let error = response.error {
                outcomes.append(try Self.outcome(error, write: write))
                continue
            }
            switch write {
            case let .update(_, id, _, _), let .delete(_, id, _):
                outcomes.append(.success(id: id))
            case .create, .upsert:
                guard let id = response.body["id"]?.stringValue else {
                    throw .malformedResponse("a composite create answered \(response.httpStatusCode) without an id")
                }
                outcomes.append(.success(id: id))
            }
        }
        return outcomes
    }

    /// sObject Collections, allOrNone false: up to 200 writes of one kind per request.
    private func sendCollection(_ writes: [RecordWrite], allowingDuplicates: Bool) async throws(SyncRemoteError) -> [RecordOutcome] {
        let results: [SaveResult]
        switch writes[0] {
        case .create:
            let records = writes.compactMap { write -> JSONObject? in
                guard case let .create(type, fields) = write else { return nil }
                return Self.typed(fields, type: type)
            }
            try Self.checkOneKind(records.count, writes.count)
            results = try await call { try await client.createRecords(records, allowDuplicates: allowingDuplicates) }
        case let .upsert(type, field, _, _):
            let records = writes.compactMap { write -> JSONObject? in
                guard case let .upsert(otherType, otherField, value, fields) = write, otherType == type, otherField == field else { return nil }
                var record = Self.typed(fields, type: type)
                record[field] = .string(value)
                return record
            }
            try Self.checkOneKind(records.count, writes.count)
            results = try await call { try await client.upsertRecords(type, externalIdField: field, records: records) }
        case .update:
            let records = writes.compactMap { write -> JSONObject? in
                guard case let .update(type, id, fields, _) = write else { return nil }
                var record = Self.typed(fields, type: type)
                record["id"] = .string(id)
                return record
            }
            try Self.checkOneKind(records.count, writes.count)
            results = try await call { try await client.updateRecords(records) }
        case .delete:
            let ids = writes.compactMap { write -> String? in
                guard case let .delete(_, id, _) = write else { return nil }
                return id
            }
            try Self.checkOneKind(ids.count, writes.count)
            results = try await call { try await client.deleteRecords(ids: ids) }
        }
        guard results.count == writes.count else {
            throw .malformedResponse("\(results.count) collection results for \(writes.count) records")
        }
        return zip(writes, results).map { Self.outcome($1, write: $0) }
    }

    // MARK: Mapping

    /// Runs a ForceAPI call, turning its failure into the engine's whole-call error.
    private func call<T>(_ body: () async throws -> T) async throws(SyncRemoteError) -> T {
        do {
            return try await body()
        } catch let error as ForceAPIError {
            throw Self.remoteError(error)
        } catch {
            throw .malformedResponse("\(error)")
        }
    }

    /// A failure of a whole call, sorted by what the engine does about it.
    public static func remoteError(_ error: ForceAPIError) -> SyncRemoteError {
        switch error {
        // Only the facts: the sync's own message says what to do about them.
        case let .offline(reason, host):
            return .offline("\(host): \(reason.rawValue)")
        case let .connectionLost(detail):
            return .offline("the connection broke: \(detail)", requestMayHaveArrived: true)
        case let .timeout(kind, seconds):
            // A handshake that never finished sent nothing; a stall or a deadline came after the request left.
            return .offline("\(kind.rawValue), after \(Int(seconds.rounded())) s", requestMayHaveArrived: kind != .noAnswer)
        case .transport:
            return .offline("\(error)")
        case let .tls(detail):
            return .untrusted(detail)
        case .cancelled:
            return .cancelled
        case .sessionExpired, .authentication:
            return .sessionExpired
        case let .apiLimit(detail):
            return .apiLimitExceeded(detail.message)
        case let .preconditionFailed(detail):
            return .server(status: 412, errorCode: detail?.errorCode ?? "PRECONDITION_FAILED", message: detail?.message ?? "\(error)")
        case let .notFound(detail), let .entityDeleted(detail):
            return .server(status: 404, errorCode: detail.errorCode, message: detail.message)
        case let .validation(status, errors), let .refused(status, errors), let .server(status, errors):
            return .server(status: status, errorCode: errors.first?.errorCode ?? "HTTP_\(status)", message: errors.first?.message ?? "\(error)")
        case .nonJSON:
            return .malformedResponse("\(error)")
        }
    }

    /// The outcome of one record whose request failed; failures that concern more than the record
    /// (network, session, limits, 5xx) are rethrown so the sync stops with done records kept.
    static func outcome(_ error: ForceAPIError, write: RecordWrite) throws(SyncRemoteError) -> RecordOutcome {
        switch error {
        case .notFound, .entityDeleted:
            return .notFound
        case .preconditionFailed:
            return .preconditionFailed
        case let .validation(_, errors), let .refused(_, errors):
            let recordErrors = errors.map(recordError)
            if isMissingRecord(recordErrors, write: write) { return .notFound }
            return .failed(recordErrors.isEmpty ? [RecordError(errorCode: "UNKNOWN_ERROR", message: "\(error)")] : recordErrors)
        default:
            throw remoteError(error)
        }
    }

    /// The outcome of one record in a collection (or an upsert's answer).
    static func outcome(_ result: SaveResult, write: RecordWrite) -> RecordOutcome {
        if result.success {
            switch write {
            case let .update(_, id, _, _), let .delete(_, id, _): return .success(id: result.id ?? id)
            case .create, .upsert: return .success(id: result.id)
            }
        }
        let errors = result.errors.map(recordError)
        if isMissingRecord(errors, write: write) { return .notFound }
        return .failed(errors.isEmpty ? [RecordError(errorCode: "UNKNOWN_ERROR", message: "the server refused the record without saying why")] : errors)
    }

    /// ENTITY_IS_DELETED, or INVALID_CROSS_REFERENCE_KEY about the record's own id (no field, or
    /// `Id`) on an update or delete: the record is gone. The same code about a reference field
    /// (AccountId) is the record's own error and stays one.
    static func isMissingRecord(_ errors: [RecordError], write: RecordWrite) -> Bool {
        errors.contains { error in
            if error.errorCode == "ENTITY_IS_DELETED" { return true }
            guard error.errorCode == "INVALID_CROSS_REFERENCE_KEY" else { return false }
            switch write {
            case .update, .delete: return error.fields.isEmpty || error.fields.contains("Id")
            case .create, .upsert: return false
            }
        }
    }

    static func recordError(_ error: SalesforceError) -> RecordError {
        RecordError(
            errorCode: error.errorCode, message: error.message, fields: error.fields,
            duplicates: error.duplicateIds.map { RecordReference(id: $0) })
    }

    static func page(_ page: QueryPage) throws(SyncRemoteError) -> RemoteQueryPage {
        let records = page.records.compactMap(\.objectValue)
        guard records.count == page.records.count else { throw .malformedResponse("a query returned records that are not objects") }
        return RemoteQueryPage(totalSize: page.totalSize, records: records, nextRecordsUrl: page.nextRecordsURL)
    }

    static func preconditionHeaders(_ since: Int64?) -> [String: String] {
        since.map { ["If-Unmodified-Since": SalesforceDate.httpDate(date($0))] } ?? [:]
    }

    static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    static func typed(_ fields: JSONObject, type: String) -> JSONObject {
        var record: JSONObject = ["attributes": ["type": .string(type)]]
        for (name, value) in fields where name != "attributes" { record[name] = value }
        return record
    }

    static func checkOneKind(_ matching: Int, _ total: Int) throws(SyncRemoteError) {
        guard matching == total else { throw .malformedResponse("a collection request mixed kinds of writes; this is a bug in the sync planner") }
    }

    /// A path segment, percent-encoded so an id or value can never change the path.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? text
    }

    /// Built once: a composite of 25 writes encodes 75 segments.
    private static let segmentAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))
}
