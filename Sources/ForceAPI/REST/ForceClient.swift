import ForceJSON
import Foundation

/// The Salesforce REST API for one signed-in user. Sendable and cheap to copy; copies share the
/// session, so a token refreshed by one request serves the others.
///
/// Every call either returns typed data or throws a `ForceAPIError`. A 401 takes the session's
/// newer token (refreshed by another request) or refreshes it, and replays, twice at most;
/// idempotent requests are retried on broken connections and 502/503/504 (see `RetryPolicy`);
/// creates are sent again only when nothing of them left. Records are ForceJSON `JSONValue`s.
public struct ForceClient: Sendable {
    /// The REST version, e.g. `62.0`.
    public let apiVersion: String
    let transport: CurlTransport
    let session: SessionState
    let retryPolicy: RetryPolicy
    /// Called with one line per request (method, path without the query, status, milliseconds);
    /// never headers, bodies or query strings, so never tokens.
    let requestLog: (@Sendable (String) -> Void)?
    /// Sent as `Sforce-Call-Options: client=<this>` with every request, so the org's change events
    /// name who made a change (`changeOrigin`) and a listener can pass over its own.
    public var callOptionsClient: String?

    public static let defaultAPIVersion = "62.0"

    public init(
        credentials: OAuthCredentials, transport: CurlTransport, apiVersion: String = ForceClient.defaultAPIVersion,
        retryPolicy: RetryPolicy = RetryPolicy(), clientSecret: Secret? = nil,
        onCredentialsRefreshed: (@Sendable (OAuthCredentials) -> Void)? = nil,
        requestLog: (@Sendable (String) -> Void)? = nil
    ) {
        self.apiVersion = apiVersion
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.requestLog = requestLog
        let oauth = OAuthClient(loginURL: credentials.loginURL, clientId: credentials.clientId, clientSecret: clientSecret, transport: transport)
        session = SessionState(credentials: credentials, oauth: oauth, onRefresh: onCredentialsRefreshed)
    }

    /// The credentials in use now (after any refresh).
    public var credentials: OAuthCredentials { get async { await session.credentials } }

    /// ", 1.2 kB up, 14.0 kB down" as the bodies crossed the network; empty when both were empty.
    static func sizes(_ request: HTTPRequest, _ response: HTTPResponse) -> String {
        let up = response.transferred?.sent ?? request.body?.count ?? 0
        let down = response.transferred?.received ?? response.body.count
        guard up > 0 || down > 0 else { return "" }
        func kilobytes(_ count: Int) -> String { String(format: "%.1f kB", Double(count) / 1000) }
        return up > 0 ? ", \(kilobytes(up)) up, \(kilobytes(down)) down" : ", \(kilobytes(down))"
    }

    /// What the transport has sent and received so far (requests, connections opened, bytes).
    public var transferStatistics: TransferStatistics { transport.statistics }

    /// Closes the transport's connections and stops its threads; call before the process exits.
    /// Requests sent afterwards fail as cancelled.
    public func shutdown() { transport.shutdown() }

    /// API usage from the last response's `Sforce-Limit-Info`, for the status line.
    public var lastAPIUsage: APIUsage? { get async { await session.lastUsage } }

    /// `/services/data/vXX.X` for this client's version.
    public var dataPath: String { "/services/data/v\(apiVersion)" }

    // MARK: Sending

    /// Sends a request to the instance and returns the successful (2xx, 300 or 304) response.
    /// `path` is root-relative (`/services/…`) or relative to `dataPath` (`sobjects/Contact`).
    public func send(
        _ method: String, _ path: String, query: [(String, String)] = [], json: JSONValue? = nil,
        headers: [HTTPHeader] = [], idempotent: Bool? = nil
    ) async throws(ForceAPIError) -> HTTPResponse {
        let fullPath = path.hasPrefix("/") ? path : "\(dataPath)/\(path)"
        let queryText = query.isEmpty ? "" : "?" + query.map { "\(FormEncoding.escape($0.0))=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
        var allHeaders = [HTTPHeader("Accept", "application/json")] + headers
        if let callOptionsClient { allHeaders.append(HTTPHeader("Sforce-Call-Options", "client=\(callOptionsClient)")) }
        var body: [UInt8]?
        if let json {
            body = Array(JSONWriter.string(json).utf8)
            allHeaders.append(HTTPHeader("Content-Type", "application/json"))
        }
        let isIdempotent = idempotent ?? ["GET", "HEAD", "PUT", "DELETE"].contains(method)
        let started = ContinuousClock.now
        var attempt = 1
        // Twice: the token another request refreshed a while ago may itself have expired since.
        var refreshes = 0
        var stalled = false
        var credentials = await session.credentials
        while true {
            let request = HTTPRequest(
                method: method, url: credentials.instanceURL + fullPath + queryText,
                headers: allHeaders + [HTTPHeader("Authorization", "Bearer \(credentials.accessToken.revealed)")],
                body: body, isIdempotent: isIdempotent)
            let attemptStarted = ContinuousClock.now
            let response: HTTPResponse
            switch await transport.attempt(request) {
            case let .success(answer):
                response = answer
            case let .failure(failure):
                let error = failure.error
                requestLog?("\(method) \(fullPath) failed: \(error)\(failure.requestMayHaveLeft ? "" : ", not sent") (\(Self.milliseconds(since: attemptStarted)) ms)")
                if case .timeout(.stalled, _) = error { stalled = true }
                let delay = stalled ? retryPolicy.delayAfterStall(beforeRetry: attempt - 1) : retryPolicy.delay(beforeRetry: attempt - 1)
                guard
                    retryPolicy.shouldRetry(
                        after: error, attempt: attempt, elapsed: Self.seconds(since: started), idempotent: isIdempotent,
                        nextDelay: delay, afterStall: stalled, requestMayHaveLeft: failure.requestMayHaveLeft)
                else { throw error }
                try await Self.sleep(delay)
                attempt += 1
                continue
            }
            requestLog?("\(method) \(fullPath) \(response.status) (\(Self.milliseconds(since: attemptStarted)) ms\(Self.sizes(request, response)))")
            if let header = response.header("Sforce-Limit-Info"), let usage = APIUsage(header: header) {
                await session.record(usage: usage)
            }
            if response.status == 401 && refreshes < 2 {
                refreshes += 1
                credentials = try await session.refresh(after: credentials.accessToken)
                continue
            }
            if retryPolicy.shouldRetry(status: response.status, attempt: attempt, idempotent: isIdempotent) {
                try await Self.sleep(retryPolicy.delay(beforeRetry: attempt - 1))
                attempt += 1
                continue
            }
            if (200..<300).contains(response.status) || response.status == 300 || response.status == 304 { return response }
            throw Self.error(for: response)
        }
    }

    /// Sends and decodes a JSON body.
    func sendJSON(
        _ method: String, _ path: String, query: [(String, String)] = [], json: JSONValue? = nil,
        headers: [HTTPHeader] = [], idempotent: Bool? = nil
    ) async throws(ForceAPIError) -> JSONValue {
        let response = try await send(method, path, query: query, json: json, headers: headers, idempotent: idempotent)
        return try Self.decode(response)
    }

    static func decode(_ response: HTTPResponse) throws(ForceAPIError) -> JSONValue {
        guard response.isJSON, let value = try? JSONParser.parse(response.body) else {
            throw .nonJSON(status: response.status, contentType: response.header("Content-Type"))
        }
        return value
    }

    /// Maps a failed response to the error a caller can act on.
    static func error(for response: HTTPResponse) -> ForceAPIError {
        let status = response.status
        let parsed = response.isJSON ? try? JSONParser.parse(response.body) : nil
        let errors = parsed.map(salesforceErrors) ?? []
        if parsed == nil && status < 500 && status != 401 && status != 412 {
            return .nonJSON(status: status, contentType: response.header("Content-Type"))
        }
        switch status {
        case 401:
            return .sessionExpired
        case 403 where errors.contains { $0.errorCode == "REQUEST_LIMIT_EXCEEDED" }:
            return .apiLimit(errors.first { $0.errorCode == "REQUEST_LIMIT_EXCEEDED" } ?? SalesforceError(errorCode: "REQUEST_LIMIT_EXCEEDED", message: ""))
        case 404:
            if let deleted = errors.first(where: { $0.errorCode == "ENTITY_IS_DELETED" }) { return .entityDeleted(deleted) }
            return .notFound(errors.first ?? SalesforceError(errorCode: "NOT_FOUND", message: "The requested resource does not exist"))
        case 412:
            return .preconditionFailed(errors.first)
        case 400:
            return .validation(status: status, errors: errors)
        case 500...:
            return .server(status: status, errors: errors)
        default:
            return .refused(status: status, errors: errors)
        }
    }

    /// `[{"errorCode"|"statusCode", "message", "fields"}]`, or a single such object.
    static func salesforceErrors(_ value: JSONValue) -> [SalesforceError] {
        let items = value.arrayValue ?? [value]
        return items.compactMap { item in
            guard let code = item["errorCode"]?.stringValue ?? item["statusCode"]?.stringValue ?? item["error"]?.stringValue else { return nil }
            let message = item["message"]?.stringValue ?? item["error_description"]?.stringValue ?? ""
            let fields = item["fields"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return SalesforceError(errorCode: code, message: message, fields: fields, duplicateIds: duplicateIds(item))
        }
    }

    /// The records a duplicate rule matched: `duplicateResut` as every recorded answer spells it,
    /// or `duplicateResult` as the SOAP API and some fixtures do.
    static func duplicateIds(_ item: JSONValue) -> [String] {
        guard let result = item["duplicateResut"] ?? item["duplicateResult"] else { return [] }
        return (result["matchResults"]?.arrayValue ?? []).flatMap { match in
            (match["matchRecords"]?.arrayValue ?? []).compactMap { $0["record"]?["Id"]?.stringValue }
        }
    }

    /// The header that lets a duplicate rule's alert be acknowledged, so the record saves
    /// ("Duplicate Rule Header", v52.0+); a Block rule refuses whatever it says.
    public static let allowDuplicateHeader = HTTPHeader("Sforce-Duplicate-Rule-Header", "allowSave=true")

    private static func sleep(_ seconds: Double) async throws(ForceAPIError) {
        do {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        } catch {
            throw .cancelled
        }
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        Int(seconds(since: start) * 1000)
    }
}
