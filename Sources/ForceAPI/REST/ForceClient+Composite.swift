import ForceJSON

/// One subrequest of `/composite`: a full `/services/data/…` URL, a reference id other subrequests
/// can point at with `@{referenceId.field}`, and optional body and headers (e.g. `If-Unmodified-Since`).
public struct CompositeSubrequest: Sendable {
    public var method: String
    public var url: String
    public var referenceId: String
    public var body: JSONValue?
    public var httpHeaders: [String: String]

    public init(method: String, url: String, referenceId: String, body: JSONValue? = nil, httpHeaders: [String: String] = [:]) {
        self.method = method
        self.url = url
        self.referenceId = referenceId
        self.body = body
        self.httpHeaders = httpHeaders
    }

    var json: JSONValue {
        var object: JSONObject = ["method": .string(method), "url": .string(url), "referenceId": .string(referenceId)]
        if let body { object["body"] = body }
        if !httpHeaders.isEmpty {
            object["httpHeaders"] = .object(JSONObject(uniqueKeysWithValues: httpHeaders.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
        }
        return .object(object)
    }
}

/// One subresponse of `/composite`, in request order.
public struct CompositeSubresponse: Sendable {
    public var referenceId: String
    public var httpStatusCode: Int
    public var body: JSONValue
    public var httpHeaders: JSONObject

    /// The subrequest's failure as the error a single request would have thrown; nil on success.
    public var error: ForceAPIError? {
        guard !(200..<300).contains(httpStatusCode) else { return nil }
        return ForceClient.error(
            for: HTTPResponse(
                status: httpStatusCode, headers: [HTTPHeader("Content-Type", "application/json")],
                body: Array(JSONWriter.string(body).utf8)))
    }
}

/// One subrequest of `/composite/batch`: a URL relative to `/services/data/` (`v62.0/sobjects/…`).
public struct BatchSubrequest: Sendable {
    public var method: String
    public var url: String
    public var richInput: JSONValue?

    public init(method: String, url: String, richInput: JSONValue? = nil) {
        self.method = method
        self.url = url
        self.richInput = richInput
    }
}

/// The answer to `/composite/batch`: per subrequest its status and result, in request order.
public struct BatchResult: Sendable {
    public var hasErrors: Bool
    public var results: [(statusCode: Int, result: JSONValue)]
}

extension ForceClient {
    // MARK: sObject collections (up to 200 records)

    /// Creates records (each carrying `attributes.type`); results in request order.
    /// `allowDuplicates`: alerting duplicate rules let the records save.
    public func createRecords(_ records: [JSONObject], allOrNone: Bool = false, allowDuplicates: Bool = false) async throws(ForceAPIError) -> [SaveResult] {
        let body = try await sendJSON(
            "POST", "composite/sobjects", json: ["allOrNone": .bool(allOrNone), "records": .array(records.map(JSONValue.object))],
            headers: allowDuplicates ? [Self.allowDuplicateHeader] : [], idempotent: false)
        return (body.arrayValue ?? []).map(SaveResult.init)
    }

    /// Updates records (each carrying `attributes.type` and `id`).
    public func updateRecords(_ records: [JSONObject], allOrNone: Bool = false) async throws(ForceAPIError) -> [SaveResult] {
        let body = try await sendJSON("PATCH", "composite/sobjects", json: ["allOrNone": .bool(allOrNone), "records": .array(records.map(JSONValue.object))], idempotent: true)
        return (body.arrayValue ?? []).map(SaveResult.init)
    }

    /// Upserts records of one type by an external id field each record carries.
    public func upsertRecords(_ type: String, externalIdField: String, records: [JSONObject], allOrNone: Bool = false) async throws(ForceAPIError) -> [SaveResult] {
        let body = try await sendJSON(
            "PATCH", "composite/sobjects/\(Self.segment(type))/\(Self.segment(externalIdField))",
            json: ["allOrNone": .bool(allOrNone), "records": .array(records.map(JSONValue.object))], idempotent: true)
        return (body.arrayValue ?? []).map(SaveResult.init)
    }

    /// Deletes records by id.
    public func deleteRecords(ids: [String], allOrNone: Bool = false) async throws(ForceAPIError) -> [SaveResult] {
        let body = try await sendJSON("DELETE", "composite/sobjects", query: [("ids", ids.joined(separator: ",")), ("allOrNone", allOrNone ? "true" : "false")])
        return (body.arrayValue ?? []).map(SaveResult.init)
    }

    /// Reads records of one type by id (up to 2000, sent in the body); `nil` for each id that is
    /// missing, deleted or not visible, in request order.
    public func retrieveRecords(_ type: String, ids: [String], fields: [String]) async throws(ForceAPIError) -> [JSONValue?] {
        let body = try await sendJSON(
            "POST", "composite/sobjects/\(Self.segment(type))",
            json: ["ids": .array(ids.map(JSONValue.string)), "fields": .array(fields.map(JSONValue.string))], idempotent: true)
        return (body.arrayValue ?? []).map { $0.isNull ? nil : $0 }
    }

    // MARK: Composite and batch

    /// Runs up to 25 dependent subrequests; with `allOrNone` they commit or roll back together.
    /// The call succeeds when the request was well formed; look at each subresponse's `error`.
    public func composite(_ subrequests: [CompositeSubrequest], allOrNone: Bool, allowDuplicates: Bool = false) async throws(ForceAPIError) -> [CompositeSubresponse] {
        let readOnly = subrequests.allSatisfy { $0.method == "GET" }
        let body = try await sendJSON(
            "POST", "composite", json: ["allOrNone": .bool(allOrNone), "compositeRequest": .array(subrequests.map(\.json))],
            headers: allowDuplicates ? [Self.allowDuplicateHeader] : [], idempotent: readOnly)
        return (body["compositeResponse"]?.arrayValue ?? []).map { item in
            CompositeSubresponse(
                referenceId: item["referenceId"]?.stringValue ?? "", httpStatusCode: Int(item["httpStatusCode"]?.int64Value ?? 0),
                body: item["body"] ?? .null, httpHeaders: item["httpHeaders"]?.objectValue ?? [:])
        }
    }

    /// Runs up to 25 independent subrequests in order; each commits on its own.
    public func batch(_ subrequests: [BatchSubrequest], haltOnError: Bool = false) async throws(ForceAPIError) -> BatchResult {
        let requests = subrequests.map { request -> JSONValue in
            var object: JSONObject = ["method": .string(request.method), "url": .string(request.url)]
            if let input = request.richInput { object["richInput"] = input }
            return .object(object)
        }
        let readOnly = subrequests.allSatisfy { $0.method == "GET" }
        let body = try await sendJSON("POST", "composite/batch", json: ["batchRequests": .array(requests), "haltOnError": .bool(haltOnError)], idempotent: readOnly)
        let results = (body["results"]?.arrayValue ?? []).map { (statusCode: Int($0["statusCode"]?.int64Value ?? 0), result: $0["result"] ?? .null) }
        return BatchResult(hasErrors: body["hasErrors"]?.boolValue ?? results.contains { !(200..<300).contains($0.statusCode) }, results: results)
    }
}
