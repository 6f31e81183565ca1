import ForceJSON
import Foundation
import GRDB

extension LocalOrgAPI {
    static let batchLimit = 25
    static let treeLimit = 200

    /// The context and remaining path (after the version) of a subrequest of `/composite` or
    /// `/composite/batch`, or the error answer for its URL. `url` is `vXX.X/…` or `/services/data/vXX.X/…`.
    func subcontext(method: String, url: String, body: JSONValue?, headers: [String: String], parent: DataContext) -> Result<(DataContext, [String]), APIError> {
        var path = url
        var query = ""
        if let mark = path.firstIndex(of: "?") {
            query = String(path[path.index(after: mark)...])
            path = String(path[..<mark])
        }
        var segments = path.split(separator: "/").map { FormDecoding.percentDecode(String($0), plusIsSpace: false) }
        if segments.count >= 2 && segments[0] == "services" && segments[1] == "data" { segments.removeFirst(2) }
        guard let version = segments.first, version.hasPrefix("v"), let number = Self.supportedVersion(version.dropFirst()) else {
            return .failure(.resourceNotFound)
        }
        if segments.count > 1 && segments[1] == "composite" && !(segments.count > 2 && segments[2] == "sobjects") {
            return .failure(APIError(status: 400, errorCode: "INVALID_BATCH_REQUEST", message: "A composite subrequest cannot be another composite or batch request"))
        }
        var requestHeaders = parent.request.headers
        for (name, value) in headers where !["authorization", "content-type", "accept"].contains(name.lowercased()) {
            requestHeaders[name.lowercased()] = value
        }
        var bodyBytes: [UInt8] = []
        if let body { JSONWriter.write(body, into: &bodyBytes) }
        var context = parent
        context.request = APIRequest(
            method: method, path: "/services/data/" + segments.joined(separator: "/"), query: query,
            headers: requestHeaders, body: bodyBytes, baseURL: parent.request.baseURL)
        context.method = method.uppercased()
        context.apiVersion = "\(number).0"
        return .success((context, Array(segments.dropFirst())))
    }

    /// Runs one subrequest as the same user, through the same routes as a top-level request.
    func subrequest(method: String, url: String, body: JSONValue?, headers: [String: String], parent: DataContext) async -> APIResponse {
        switch subcontext(method: method, url: url, body: body, headers: headers, parent: parent) {
        case let .failure(error):
            return .error(error)
        case let .success((context, rest)):
            do {
                return try await routeData(context, rest: rest)
            } catch let error as APIError {
                return .error(error)
            } catch {
                return .error(APIError(status: 500, errorCode: "UNKNOWN_EXCEPTION", message: "An unexpected error occurred."))
            }
        }
    }

    /// The JSON of a subresponse body, or null when it has none.
    func bodyJSON(_ response: APIResponse) -> JSONValue {
        guard !response.body.isEmpty, let value = try? JSONParser.parse(response.body) else { return .null }
        return value
    }

    /// `/composite/batch`: up to 25 independent subrequests, each committed on its own.
    func compositeBatch(_ context: DataContext) async throws -> APIResponse {
        try requireMethod(context.method, "POST")
        let body = try jsonObjectBody(context.request)
        guard let requests = body["batchRequests"]?.arrayValue, !requests.isEmpty else {
            throw APIError(status: 400, errorCode: "INVALID_BATCH_REQUEST", message: "batchRequests is required")
        }
        guard requests.count <= Self.batchLimit else {
            throw APIError(status: 400, errorCode: "INVALID_BATCH_REQUEST", message: "A batch cannot contain more than \(Self.batchLimit) requests")
        }
        for request in requests where request["method"]?.stringValue == nil || request["url"]?.stringValue == nil {
            throw APIError(status: 400, errorCode: "INVALID_BATCH_REQUEST", message: "each batch request needs a method and a url")
        }
        let haltOnError = body["haltOnError"]?.boolValue ?? false
        var results: [JSONValue] = []
        var failed = false
        for request in requests {
            if failed && haltOnError {
                results.append(["statusCode": 412, "result": [["errorCode": "BATCH_PROCESSING_HALTED", "message": "Batch processing halted per request"]]])
                continue
            }
            let response = await subrequest(
                method: request["method"]?.stringValue ?? "GET", url: request["url"]?.stringValue ?? "",
                body: request["richInput"], headers: [:], parent: context)
            if response.status >= 400 { failed = true }
            results.append(["statusCode": .int(Int64(response.status)), "result": bodyJSON(response)])
        }
        return .json(["hasErrors": .bool(failed), "results": .array(results)])
    }

    /// `/composite`: up to 25 subrequests in order, later ones able to use earlier results through
    /// `@{referenceId.field}`. Without allOrNone each subrequest commits on its own.
    func composite(_ context: DataContext) async throws -> APIResponse {
        try requireMethod(context.method, "POST")
        let body = try jsonObjectBody(context.request)
        guard let requests = body["compositeRequest"]?.arrayValue, !requests.isEmpty else {
            throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "compositeRequest is required")
        }
        guard requests.count <= Self.batchLimit else {
            throw APIError(status: 400, errorCode: "LIMIT_EXCEEDED", message: "Composite request cannot contain more than \(Self.batchLimit) subrequests")
        }
        if body["allOrNone"]?.boolValue == true { return try await compositeAllOrNone(requests, context: context) }
        if requests.allSatisfy({ isRecordSubrequest($0, parent: context) }) {
            return try await compositeOfRecords(requests, context: context)
        }
        var resultsByReference: [String: JSONValue] = [:]
        var responses: [JSONValue] = []
        for request in requests {
            guard let method = request["method"]?.stringValue, let url = request["url"]?.stringValue,
                let referenceId = request["referenceId"]?.stringValue
            else {
                throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "each subrequest needs method, url and referenceId")
            }
            let headers = request["httpHeaders"]?.objectValue?.compactMapValues(\.stringValue) ?? [:]
            let response: APIResponse
            do {
                let resolvedURL = try Self.resolveReferences(in: url, results: resultsByReference)
                let resolvedBody = try request["body"].map { try Self.resolveReferences(in: $0, results: resultsByReference) }
                response = await subrequest(
                    method: method, url: resolvedURL, body: resolvedBody,
                    headers: Dictionary(uniqueKeysWithValues: headers.map { ($0.key, $0.value) }), parent: context)
            } catch let error as APIError {
                response = .error(error)
            }
            let result = bodyJSON(response)
            if response.status < 400 { resultsByReference[referenceId] = result }
            responses.append(Self.compositeEntry(response, referenceId: referenceId, body: result))
        }
        return .json(["compositeResponse": .array(responses)])
    }

    /// Whether a `/composite` subrequest is an sObject record operation (create, read, update,
    /// delete, upsert: the paths `routeSObject` hands to `perform`), which can run inside a
    /// transaction shared with the other subrequests.
    func isRecordSubrequest(_ request: JSONValue, parent: DataContext) -> Bool {
        guard let method = request["method"]?.stringValue, let url = request["url"]?.stringValue, request["referenceId"]?.stringValue != nil,
            case let .success((subcontext, rest)) = subcontext(method: method, url: url, body: nil, headers: [:], parent: parent),
            rest.count >= 3, rest[0] == "sobjects", let object = schema.object(named: rest[1])
        else { return false }
        let path = Array(rest.dropFirst(2))
        if path.count == 1, ["describe", "updated", "deleted"].contains(path[0].lowercased()) { return false }
        if path.count == 2, object.name == "User", path[1].lowercased() == "password" { return false }
        return (try? recordOperation(object, rest: path, method: subcontext.method)) != nil
    }

    /// `/composite` without allOrNone whose subrequests are all record operations: one database
    /// transaction for the whole request (one commit, not one per subrequest: the cost of a sync
    /// up's conditional updates), with a savepoint per subrequest, so a failing subrequest undoes
    /// only itself and the others keep their effect, as when each commits on its own. The answer
    /// is sent after the commit, so no client sees a result that could still be lost.
    func compositeOfRecords(_ requests: [JSONValue], context: DataContext) async throws -> APIResponse {
        let planned = try CompositeSubrequest.parse(requests)
        let entries = try await sessionWrite { db -> [JSONValue] in
            var resultsByReference: [String: JSONValue] = [:]
            var entries: [JSONValue] = []
            for subrequest in planned {
                var response = APIResponse.error(.resourceNotFound)
                try db.inRecordSavepoint {
                    do {
                        response = try self.performRecordSubrequest(
                            subrequest, results: resultsByReference, context: context, db: db,
                            notARecord: .resourceNotFound)
                        return .commit
                    } catch let error as APIError {
                        response = .error(error)
                    } catch {
                        response = .error(APIError(status: 500, errorCode: "UNKNOWN_EXCEPTION", message: "An unexpected error occurred."))
                    }
                    return .rollback
                }
                let result = self.bodyJSON(response)
                if response.status < 400 { resultsByReference[subrequest.referenceId] = result }
                entries.append(Self.compositeEntry(response, referenceId: subrequest.referenceId, body: result))
            }
            return entries
        }
        return .json(["compositeResponse": .array(entries)])
    }

    /// One record subrequest inside a composite's transaction: its `@{ref}`s resolved against the
    /// earlier results, then the sObject operation its method and path name. `notARecord` is the
    /// error for a path that is not `…/sobjects/T[/id]`.
    func performRecordSubrequest(
        _ subrequest: CompositeSubrequest, results: [String: JSONValue], context: DataContext, db: Database,
        notARecord: APIError
    ) throws -> APIResponse {
        let url = try Self.resolveReferences(in: subrequest.url, results: results)
        let body = try subrequest.body.map { try Self.resolveReferences(in: $0, results: results) }
        let (subcontext, rest) = try self.subcontext(method: subrequest.method, url: url, body: body, headers: subrequest.headers, parent: context).get()
        guard rest.count >= 2, rest[0] == "sobjects", let object = schema.object(named: rest[1]) else { throw notARecord }
        let operation = try recordOperation(object, rest: Array(rest.dropFirst(2)), method: subcontext.method)
        return try perform(operation, object: object, context: subcontext, db: db)
    }

    /// One subresponse of `/composite`, with the headers clients read.
    static func compositeEntry(_ response: APIResponse, referenceId: String, body: JSONValue) -> JSONValue {
        var httpHeaders: JSONObject = [:]
        if let location = response.header("Location") { httpHeaders["Location"] = .string(location) }
        if let lastModified = response.header("Last-Modified") { httpHeaders["Last-Modified"] = .string(lastModified) }
        return ["body": body, "httpHeaders": .object(httpHeaders), "httpStatusCode": .int(Int64(response.status)), "referenceId": .string(referenceId)]
    }

    /// `/composite` with allOrNone=true: every subrequest runs in one transaction; if one fails,
    /// all are rolled back and the others answer PROCESSING_HALTED. Only sObject record
    /// subrequests (create, read, update, delete, upsert) can run inside that transaction.
    func compositeAllOrNone(_ requests: [JSONValue], context: DataContext) async throws -> APIResponse {
        let subrequests = try CompositeSubrequest.parse(requests)
        /// Thrown out of the transaction to roll it back, carrying the failing subresponse.
        struct RolledBack: Error {
            var index: Int
            var entry: JSONValue
        }
        let halted: JSONValue = [["errorCode": "PROCESSING_HALTED", "message": "The transaction was rolled back since another operation in the same transaction failed."]]
        do {
            let entries = try await sessionWrite { db -> [JSONValue] in
                var resultsByReference: [String: JSONValue] = [:]
                var entries: [JSONValue] = []
                for (index, subrequest) in subrequests.enumerated() {
                    var response: APIResponse
                    do {
                        response = try self.performRecordSubrequest(
                            subrequest, results: resultsByReference, context: context, db: db,
                            notARecord: APIError(
                                status: 400, errorCode: "INVALID_INPUT",
                                message: "localorg runs only sObject record subrequests (…/sobjects/T[/id]) in an allOrNone composite request"))
                    } catch let error as APIError {
                        response = .error(error)
                    }
                    let result = self.bodyJSON(response)
                    let entry = Self.compositeEntry(response, referenceId: subrequest.referenceId, body: result)
                    if response.status >= 400 { throw RolledBack(index: index, entry: entry) }
                    resultsByReference[subrequest.referenceId] = result
                    entries.append(entry)
                }
                return entries
            }
            return .json(["compositeResponse": .array(entries)])
        } catch let rollback as RolledBack {
            let entries: [JSONValue] = subrequests.enumerated().map { index, subrequest in
                index == rollback.index
                    ? rollback.entry
                    : ["body": halted, "httpHeaders": [:], "httpStatusCode": 400, "referenceId": .string(subrequest.referenceId)]
            }
            return .json(["compositeResponse": .array(entries)])
        }
    }

    /// `/composite/graph`: each graph's subrequests run all or none, as `/composite` with
    /// allOrNone does; graphs are independent of each other.
    func compositeGraph(_ context: DataContext) async throws -> APIResponse {
        try requireMethod(context.method, "POST")
        let body = try jsonObjectBody(context.request)
        guard let graphs = body["graphs"]?.arrayValue, !graphs.isEmpty else {
            throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "graphs is required")
        }
        var answers: [JSONValue] = []
        for graph in graphs {
            guard let graphId = graph["graphId"]?.stringValue, let requests = graph["compositeRequest"]?.arrayValue, !requests.isEmpty else {
                throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "each graph needs a graphId and a compositeRequest")
            }
            guard requests.count <= Self.graphNodeLimit else {
                throw APIError(status: 400, errorCode: "LIMIT_EXCEEDED", message: "A graph cannot contain more than \(Self.graphNodeLimit) nodes")
            }
            let response = bodyJSON(try await compositeAllOrNone(requests, context: context))
            let entries = response["compositeResponse"]?.arrayValue ?? []
            let successful = entries.allSatisfy { ($0["httpStatusCode"]?.int64Value ?? 500) < 400 }
            answers.append(["graphId": .string(graphId), "graphResponse": ["compositeResponse": .array(entries)], "isSuccessful": .bool(successful)])
        }
        return .json(["graphs": .array(answers)])
    }

    static let graphNodeLimit = 500

    /// Replaces every `@{ref.path}` in strings with the value at `path` in the result of `ref`.
    static func resolveReferences(in value: JSONValue, results: [String: JSONValue]) throws(APIError) -> JSONValue {
        switch value {
        case let .string(text): return .string(try resolveReferences(in: text, results: results))
        case let .array(items):
            var resolved: [JSONValue] = []
            for item in items { resolved.append(try resolveReferences(in: item, results: results)) }
            return .array(resolved)
        case let .object(object):
            var resolved = JSONObject()
            for (key, item) in object { resolved[key] = try resolveReferences(in: item, results: results) }
            return .object(resolved)
        default: return value
        }
    }

    static func resolveReferences(in text: String, results: [String: JSONValue]) throws(APIError) -> String {
        guard text.contains("@{") else { return text }
        var output = ""
        var rest = Substring(text)
        while let start = rest.range(of: "@{") {
            output += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                output += rest
                return output
            }
            let expression = String(rest[start.upperBound..<end])
            guard let value = lookUp(expression, in: results) else {
                throw APIError(
                    status: 400, errorCode: "PROCESSING_HALTED",
                    message: "Invalid reference specified. No value for \(expression) found in a previous subrequest.")
            }
            switch value {
            case let .string(string): output += string
            default: output += JSONWriter.string(value)
            }
            rest = rest[rest.index(after: end)...]
        }
        return output + rest
    }

    /// Evaluates `ref.field.other[0].x` against earlier results.
    static func lookUp(_ expression: String, in results: [String: JSONValue]) -> JSONValue? {
        var parts = expression.split(separator: ".").map(String.init)
        guard !parts.isEmpty, var current = results[parts.removeFirst()] else { return nil }
        for part in parts {
            var name = Substring(part)
            var indexes: [Int] = []
            while let open = name.lastIndex(of: "["), name.hasSuffix("]"), let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]) {
                indexes.insert(index, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty {
                guard let next = current[String(name)] else { return nil }
                current = next
            }
            for index in indexes {
                guard let items = current.arrayValue, items.indices.contains(index) else { return nil }
                current = items[index]
            }
        }
        return current.isNull ? nil : current
    }

}

/// A `/composite` subrequest as the client sent it.
struct CompositeSubrequest: Sendable {
    var method: String, url: String, referenceId: String, body: JSONValue?, headers: [String: String]

    /// Every subrequest of a composite body, or INVALID_FIELD when one lacks its method, url or referenceId.
    static func parse(_ requests: [JSONValue]) throws -> [CompositeSubrequest] {
        try requests.map { request in
            guard let method = request["method"]?.stringValue, let url = request["url"]?.stringValue,
                let referenceId = request["referenceId"]?.stringValue
            else {
                throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "each subrequest needs method, url and referenceId")
            }
            return CompositeSubrequest(
                method: method, url: url, referenceId: referenceId, body: request["body"],
                headers: request["httpHeaders"]?.objectValue?.compactMapValues(\.stringValue).reduce(into: [:]) { $0[$1.key] = $1.value } ?? [:])
        }
    }
}
