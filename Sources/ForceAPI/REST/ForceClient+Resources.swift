import ForceJSON
import Foundation
import SalesforceTime

/// One API version the org offers (`GET /services/data/`).
public struct APIVersion: Sendable, Equatable {
    public var version: String
    public var label: String
    public var url: String
}

/// One page of a SOQL query. `nextRecordsURL` (root-relative) is set while `done` is false.
public struct QueryPage: Sendable {
    public var totalSize: Int
    public var done: Bool
    public var records: [JSONValue]
    public var nextRecordsURL: String?

    init(_ body: JSONValue) throws(ForceAPIError) {
        guard let records = body["records"]?.arrayValue else {
            throw .nonJSON(status: 200, contentType: "application/json without records")
        }
        self.records = records
        totalSize = Int(body["totalSize"]?.int64Value ?? Int64(records.count))
        done = body["done"]?.boolValue ?? true
        nextRecordsURL = done ? nil : body["nextRecordsUrl"]?.stringValue
    }
}

/// The answer to a create, an update or a delete of one record (alone or in a collection).
public struct SaveResult: Sendable, Equatable {
    public var id: String?
    public var success: Bool
    public var errors: [SalesforceError]
    /// For upserts: whether the record was created (nil when the server did not say).
    public var created: Bool?

    init(_ body: JSONValue) {
        id = body["id"]?.stringValue
        success = body["success"]?.boolValue ?? false
        errors = ForceClient.salesforceErrors(body["errors"] ?? .array([]))
        created = body["created"]?.boolValue
    }

    init(id: String?, success: Bool, errors: [SalesforceError] = [], created: Bool? = nil) {
        self.id = id
        self.success = success
        self.errors = errors
        self.created = created
    }
}

/// `/sobjects/T/updated`: ids changed in a window, and how far the answer reaches.
public struct UpdatedRecords: Sendable {
    public var ids: [String]
    public var latestDateCovered: Date?
}

/// `/sobjects/T/deleted`: ids deleted in a window. When `earliestDateAvailable` is later than the
/// window's start, older deletions were purged and a full re-sync is needed.
public struct DeletedRecords: Sendable {
    public struct Deletion: Sendable, Equatable {
        public var id: String
        public var deletedDate: Date?
    }

    public var deletions: [Deletion]
    public var earliestDateAvailable: Date?
    public var latestDateCovered: Date?
}

extension ForceClient {
    // MARK: Discovery

    /// The versions the org serves (needs no session, but is sent with one).
    public func versions() async throws(ForceAPIError) -> [APIVersion] {
        let body = try await sendJSON("GET", "/services/data/")
        return (body.arrayValue ?? []).compactMap { item in
            guard let version = item["version"]?.stringValue else { return nil }
            return APIVersion(version: version, label: item["label"]?.stringValue ?? "", url: item["url"]?.stringValue ?? "")
        }
    }

    /// Describe Global: every sObject type with its capabilities.
    public func describeGlobal() async throws(ForceAPIError) -> JSONValue {
        try await sendJSON("GET", "sobjects/")
    }

    /// Any JSON resource under the API version, by its path (`ui-api/layout/Account`).
    public func resource(_ path: String, query: [(String, String)] = []) async throws(ForceAPIError) -> JSONValue {
        try await sendJSON("GET", path, query: query)
    }

    /// The full describe of one type: fields, child relationships, record types.
    public func describe(_ type: String) async throws(ForceAPIError) -> JSONValue {
        try await sendJSON("GET", "sobjects/\(Self.segment(type))/describe/")
    }

    /// Basic information about a type, with its `recentItems`.
    public func basicInfo(_ type: String) async throws(ForceAPIError) -> JSONValue {
        try await sendJSON("GET", "sobjects/\(Self.segment(type))/")
    }

    /// `/limits`: each org limit's `Max` and `Remaining`.
    public func limits() async throws(ForceAPIError) -> JSONValue {
        try await sendJSON("GET", "limits/")
    }

    // MARK: Queries

    /// Runs SOQL; `batchSize` (200–2000) asks for smaller pages via `Sforce-Query-Options`.
    public func query(_ soql: String, batchSize: Int? = nil) async throws(ForceAPIError) -> QueryPage {
        try QueryPage(try await sendJSON("GET", "query/", query: [("q", soql)], headers: Self.batchHeaders(batchSize)))
    }

    /// Like `query`, but deleted and archived rows are included.
    public func queryAll(_ soql: String, batchSize: Int? = nil) async throws(ForceAPIError) -> QueryPage {
        try QueryPage(try await sendJSON("GET", "queryAll/", query: [("q", soql)], headers: Self.batchHeaders(batchSize)))
    }

    /// The next page, from a page's `nextRecordsURL`.
    public func queryMore(_ nextRecordsURL: String, batchSize: Int? = nil) async throws(ForceAPIError) -> QueryPage {
        try QueryPage(try await sendJSON("GET", nextRecordsURL, headers: Self.batchHeaders(batchSize)))
    }

    /// SOSL search; the matching records (`searchRecords`).
    public func search(_ sosl: String) async throws(ForceAPIError) -> [JSONValue] {
        let body = try await sendJSON("GET", "search/", query: [("q", sosl)])
        return body["searchRecords"]?.arrayValue ?? body.arrayValue ?? []
    }

    // MARK: Records

    /// One record; all readable fields, or only `fields`.
    public func retrieve(_ type: String, id: String, fields: [String]? = nil) async throws(ForceAPIError) -> JSONValue {
        try await sendJSON("GET", "sobjects/\(Self.segment(type))/\(Self.segment(id))", query: fields.map { [("fields", $0.joined(separator: ","))] } ?? [])
    }

    /// Creates a record and returns its id. Sent again only when nothing of it left (no connection
    /// or handshake to carry it): a lost answer could mean it exists.
    /// `allowDuplicate`: an alerting duplicate rule lets the record save.
    public func create(_ type: String, fields: JSONObject, allowDuplicate: Bool = false) async throws(ForceAPIError) -> String {
        let result = SaveResult(
            try await sendJSON(
                "POST", "sobjects/\(Self.segment(type))/", json: .object(fields),
                headers: allowDuplicate ? [Self.allowDuplicateHeader] : [], idempotent: false))
        guard result.success, let id = result.id else { throw .validation(status: 201, errors: result.errors) }
        return id
    }

    /// Updates fields of a record. With `ifUnmodifiedSince`, the server refuses with 412
    /// (`preconditionFailed`) when the record changed after that moment: a conflict.
    public func update(_ type: String, id: String, fields: JSONObject, ifUnmodifiedSince: Date? = nil) async throws(ForceAPIError) {
        let headers = ifUnmodifiedSince.map { [HTTPHeader("If-Unmodified-Since", SalesforceDate.httpDate($0))] } ?? []
        _ = try await send("PATCH", "sobjects/\(Self.segment(type))/\(Self.segment(id))", json: .object(fields), headers: headers, idempotent: true)
    }

    /// Deletes a record (to the recycle bin). With `ifUnmodifiedSince`, the server refuses with 412
    /// when the record changed after that moment, as for `update`.
    public func delete(_ type: String, id: String, ifUnmodifiedSince: Date? = nil) async throws(ForceAPIError) {
        let headers = ifUnmodifiedSince.map { [HTTPHeader("If-Unmodified-Since", SalesforceDate.httpDate($0))] } ?? []
        _ = try await send("DELETE", "sobjects/\(Self.segment(type))/\(Self.segment(id))", headers: headers)
    }

    /// Creates or updates the record whose external id field has `value`. Safe to repeat, so it
    /// is retried like a read.
    public func upsert(_ type: String, externalIdField: String, value: String, fields: JSONObject) async throws(ForceAPIError) -> SaveResult {
        let response = try await send(
            "PATCH", "sobjects/\(Self.segment(type))/\(Self.segment(externalIdField))/\(Self.segment(value))",
            json: .object(fields), idempotent: true)
        if response.status == 204 { return SaveResult(id: nil, success: true, created: false) }
        if response.status == 300 {
            throw .refused(status: 300, errors: [SalesforceError(errorCode: "MULTIPLE_CHOICES", message: "several records have \(externalIdField) = \(value)", fields: [externalIdField])])
        }
        var result = SaveResult(try Self.decode(response))
        if result.created == nil { result.created = response.status == 201 }
        return result
    }

    /// Ids of records changed (by `SystemModstamp`) between `start` and `end` (at most 30 days).
    public func updated(_ type: String, start: Date, end: Date) async throws(ForceAPIError) -> UpdatedRecords {
        let body = try await sendJSON(
            "GET", "sobjects/\(Self.segment(type))/updated/",
            query: [("start", SalesforceDate.format(start)), ("end", SalesforceDate.format(end))])
        return UpdatedRecords(
            ids: body["ids"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            latestDateCovered: body["latestDateCovered"]?.stringValue.flatMap(SalesforceDate.parse))
    }

    /// Records deleted between `start` and `end` (at most 15 days back).
    public func deleted(_ type: String, start: Date, end: Date) async throws(ForceAPIError) -> DeletedRecords {
        let body = try await sendJSON(
            "GET", "sobjects/\(Self.segment(type))/deleted/",
            query: [("start", SalesforceDate.format(start)), ("end", SalesforceDate.format(end))])
        let deletions = (body["deletedRecords"]?.arrayValue ?? []).compactMap { item -> DeletedRecords.Deletion? in
            guard let id = item["id"]?.stringValue else { return nil }
            return DeletedRecords.Deletion(id: id, deletedDate: item["deletedDate"]?.stringValue.flatMap(SalesforceDate.parse))
        }
        return DeletedRecords(
            deletions: deletions,
            earliestDateAvailable: body["earliestDateAvailable"]?.stringValue.flatMap(SalesforceDate.parse),
            latestDateCovered: body["latestDateCovered"]?.stringValue.flatMap(SalesforceDate.parse))
    }

    // MARK: Helpers

    static func batchHeaders(_ batchSize: Int?) -> [HTTPHeader] {
        batchSize.map { [HTTPHeader("Sforce-Query-Options", "batchSize=\($0)")] } ?? []
    }

    /// A path segment, percent-encoded so an id or value can never change the path.
    static func segment(_ text: String) -> String { FormEncoding.escape(text) }
}
