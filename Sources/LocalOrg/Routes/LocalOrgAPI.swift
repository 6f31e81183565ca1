import Crypto
import ForceJSON
import Foundation
import GRDB

/// The Salesforce REST API over one org: OAuth, sObjects, queries and collections. Transport-free,
/// so tests can call it directly and the HTTP server only translates messages.
public struct LocalOrgAPI: Sendable {
    public let store: OrgStore
    public let tokens: TokenService
    public let queries: QueryEngine
    public let settings: OrgSettings
    let usage = APIUsage()
    let injectedFailures = InjectedFailures()
    /// The trainer's log: every request answered, written in batches.
    let events: EventRecorder
    /// Which production rules the org enforces now.
    let rules: ProductionRulesCache
    /// The Streaming API's clients.
    let streaming = BayeuxClients()
    /// Read when used: a snapshot restore gives the org a new id while the server runs.
    func organizationId() async -> String { (try? await store.currentOrganizationId()) ?? "" }
    /// When the schema was loaded: describes answer 304 to `If-Modified-Since` later than this.
    let schemaLoadedAt: Int64

    public static let supportedVersions: ClosedRange<Int> = 31...66
    /// The client id forceterm uses; it is a public client and needs no secret.
    public static let builtInClientId = "forceterm"

    public init(store: OrgStore, settings: OrgSettings) throws {
        self.store = store
        self.settings = settings
        self.tokens = try TokenService(store: store, accessTokenLifetime: settings.tokenLifetime)
        self.queries = QueryEngine(store: store)
        self.events = EventRecorder(store: store)
        self.rules = ProductionRulesCache(store: store, fixed: settings.rules)
        self.schemaLoadedAt = OrgStore.now()
    }

    var schema: OrgSchema { store.schema }

    /// Answers one request; never throws: every failure becomes a Salesforce-shaped error.
    /// Bodies sent with `Content-Encoding: gzip|deflate` are inflated first, and answers are
    /// compressed when the client's `Accept-Encoding` allows it.
    public func handle(_ request: APIRequest) async -> APIResponse {
        var request = request
        let rules = await rules.current()
        if rules.isOn(.requestSizeLimit), let refusal = Self.sizeRefusal(request) { return refusal }
        do {
            request.body = try HTTPCompression.decodedBody(
                request.body, contentEncoding: request.header("content-encoding"),
                maximumBytes: settings.maximumBodyBytes)
        } catch {
            return .error(error)
        }
        let context = RequestContext()
        var response = await RequestContext.$current.withValue(context) { await handleDecoded(request, rules: rules) }
        response.loggedUser = context.username
        response.innerOutcomes = RequestLogEntry.innerOutcomes(path: request.path, status: response.status, body: response.body)
        HTTPCompression.compress(&response, acceptEncoding: request.header("accept-encoding"))
        return response
    }

    func handleDecoded(_ request: APIRequest, rules: ProductionRules) async -> APIResponse {
        guard request.body.count <= settings.maximumBodyBytes else {
            return .error(APIError(status: 413, errorCode: "REQUEST_ENTITY_TOO_LARGE", message: "Request body exceeds \(settings.maximumBodyBytes) bytes"))
        }
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
            .map { FormDecoding.percentDecode(String($0), plusIsSpace: false) }
        do {
            switch segments.first {
            case "services" where segments.count >= 2 && segments[1] == "oauth2":
                return try await handleOAuth(request, endpoint: segments.count > 2 ? segments[2] : "")
            case "services" where segments.count == 2 && segments[1] == "data":
                return versions()
            case "services" where segments.count >= 3 && segments[1] == "data":
                return try await handleData(request, version: segments[2], rest: Array(segments.dropFirst(3)), rules: rules)
            case "services" where segments.count == 4 && segments[1] == "Soap" && segments[2] == "u":
                return try await soapLogin(request, version: segments[3])
            case "trainer":
                return try await handleTrainer(request, rest: Array(segments.dropFirst()))
            case "cometd" where segments.count <= 2:
                return try await handleStreaming(request, version: segments.count == 2 ? segments[1] : nil)
            case "setup" where segments.count == 2 && segments[1] == "connect":
                return try await verificationPage(request)
            case "id" where segments.count == 3:
                return try await identity(request, userId: segments[2])
            default:
                return .error(.resourceNotFound)
            }
        } catch let error as APIError {
            return .error(error)
        } catch is CancellationError {
            // The client hung up before the answer (a quit mid-sync): not the server's failure.
            FileHandle.standardError.write(Data("localorg: \(request.method) \(request.path): the client went away before the answer\n".utf8))
            return .error(APIError(status: 499, errorCode: "CLIENT_CLOSED_REQUEST", message: "The client closed the connection before the answer."))
        } catch {
            // Salesforce's answer carries an ErrorId; the same id goes to stderr with the cause
            // (which never contains a token), so the operator can find what happened.
            let errorId = "\(Int.random(in: 100_000_000...999_999_999))-\(Int.random(in: 10_000...99_999)) (\(Int.random(in: 1_000_000...9_999_999)))"
            FileHandle.standardError.write(Data("localorg: ErrorId \(errorId): \(request.method) \(request.path): \(error)\n".utf8))
            return .error(
                APIError(
                    status: 500, errorCode: "UNKNOWN_EXCEPTION",
                    message: "An unexpected error occurred. Please include this ErrorId if you contact support: \(errorId)"))
        }
    }

    /// Salesforce's limit on what precedes a body ("REST API … Limits": the URI and headers
    /// together at most 16,384 bytes): 414 when the URI alone is over, else 431, each with the
    /// HTML body the recorded answers carry, not a JSON error.
    static let requestHeadLimit = 16_384

    static func sizeRefusal(_ request: APIRequest) -> APIResponse? {
        let uri = request.path.utf8.count + (request.query.isEmpty ? 0 : request.query.utf8.count + 1)
        var total = uri
        for (name, value) in request.headers { total += name.utf8.count + 2 + value.utf8.count + 2 }
        guard total > requestHeadLimit else { return nil }
        let (status, reason) = uri > requestHeadLimit ? (414, "URI Too Long") : (431, "Request Header Fields Too Large")
        return APIResponse(
            status: status, headers: [("Content-Type", "text/html;charset=iso-8859-1")],
            body: Array("<h1>Bad Message \(status)</h1><pre>reason: \(reason)</pre>".utf8))
    }

    // MARK: Versions and authentication

    /// The session behind the request's bearer token, or the exact 401 Salesforce sends.
    func authenticate(_ request: APIRequest, allowQueryToken: Bool = false) async throws -> Session {
        var token: String?
        if let header = request.header("authorization") {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard let scheme = parts.first, ["bearer", "oauth"].contains(scheme.lowercased()) else {
                throw APIError(status: 401, errorCode: "INVALID_AUTH_HEADER", message: "INVALID_HEADER_TYPE")
            }
            token = parts.count == 2 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : ""
        } else if allowQueryToken {
            token = request.queryItems["oauth_token"]
        }
        guard let token, let session = try await tokens.session(forAccessToken: token) else { throw APIError.sessionInvalid }
        return session
    }

    // MARK: Data API

    func handleData(_ request: APIRequest, version versionSegment: String, rest: [String], rules: ProductionRules) async throws -> APIResponse {
        // `latest` is the documented alias of the newest version.
        let requested = versionSegment == "latest" ? "v\(Self.supportedVersions.upperBound).0" : versionSegment
        guard requested.hasPrefix("v"), let number = Self.supportedVersion(requested.dropFirst(), wholeOnly: true) else {
            return .error(.resourceNotFound)
        }
        let apiVersion = "\(number).0"
        if settings.latencyMilliseconds > 0 { try? await Task.sleep(for: .milliseconds(settings.latencyMilliseconds)) }
        if settings.failFirstRequests > 0, await injectedFailures.shouldRefuse(limit: settings.failFirstRequests) {
            return .error(
                APIError(
                    status: 503, errorCode: "SERVER_UNAVAILABLE",
                    message: "Server temporarily unavailable (localorg --fail-first); nothing was changed, try again"))
        }
        if settings.failureRate > 0, Double.random(in: 0..<1) < settings.failureRate {
            return .error(
                APIError(
                    status: 503, errorCode: "SERVER_UNAVAILABLE",
                    message: "Server temporarily unavailable (localorg --fail-rate); nothing was changed, try again"))
        }
        let session = try await authenticate(request)
        RequestContext.current?.note(changeOrigin: Self.changeOrigin(apiVersion: apiVersion, callOptions: request.header("sforce-call-options")))
        let used = await usage.record(userId: session.userId)
        let limitHeader = ("Sforce-Limit-Info", "api-usage=\(min(used, settings.dailyAPILimit))/\(settings.dailyAPILimit)")
        var response: APIResponse
        if used > settings.dailyAPILimit {
            response = .error(APIError(status: 403, errorCode: "REQUEST_LIMIT_EXCEEDED", message: "TotalRequests Limit exceeded."))
        } else {
            do {
                var method = request.method
                if method == "POST", let override = request.queryItems["_HttpMethod"] { method = override.uppercased() }
                let visibleOwner = settings.sharing == .private && !session.isAdmin ? session.userId : nil
                let context = DataContext(
                    request: request, method: method, apiVersion: apiVersion, session: session, apiUsed: used,
                    visibleOwner: visibleOwner, rules: rules, lockWait: settings.lockWaitSeconds)
                response = try await routeData(context, rest: rest)
            } catch let error as APIError {
                response = .error(error)
            }
        }
        response.headers.append(limitHeader)
        return response
    }

    struct DataContext: Sendable {
        var request: APIRequest
        var method: String
        var apiVersion: String
        var session: Session
        var apiUsed: Int
        /// With private sharing, the user whose records alone are visible; nil when all are.
        var visibleOwner: String?
        /// The production rules the org enforces for this request.
        var rules: ProductionRules = .strict
        /// Seconds a save waits for a locked record (`serve --lock-wait`).
        var lockWait: Int64 = 10
        /// The request's own scope, taken when it starts (routes run parts of it on the
        /// database's queue, where the task-local is not set).
        var scope: RequestContext? = RequestContext.current

        /// The rules a save of this request meets. The duplicate rule header came with v52.0.
        var saveRules: SaveRules {
            let header: (allowSave: Bool, includeRecordDetails: Bool) =
                apiVersion(atLeast: 52)
                ? SaveRules.duplicateHeader(request.header("sforce-duplicate-rule-header")) : (false, false)
            return SaveRules(
                rules: rules, allowDuplicateSave: header.allowSave, includeRecordDetails: header.includeRecordDetails,
                lockWait: lockWait, access: fieldAccess, apiVersion: apiVersion, request: scope)
        }

        /// What the user may name in SOQL: their fields, and the org's rules for long text areas.
        var queryPolicy: QueryPolicy { QueryPolicy(access: fieldAccess, refusesLongText: rules.isOn(.nonFilterableFields)) }

        /// The user's field-level security; with the rule off, only the schema's admin-only fields
        /// are kept from other users, as localorg did before profiles.
        var fieldAccess: FieldAccess {
            let access: FieldAccess = session.isAdmin ? .administrator : rules.isOn(.fieldLevelSecurity) ? session.fields : .standardUser
            return rules.isOn(.stateAndCountryPicklists) ? access : access.withoutAddressCodes()
        }

        /// Whether the request's API version is `version` or later: what a resource answers, or
        /// whether it exists at all, follows the version Salesforce introduced it in.
        func apiVersion(atLeast version: Double) -> Bool { (Double(apiVersion) ?? 0) >= version }

        /// The fields `?fields=a,b` lists, each one of `object`'s; nil without the parameter.
        func listedFields(of object: ObjectDefinition) throws -> [FieldDefinition]? {
            guard let list = request.queryItems["fields"], !list.isEmpty else { return nil }
            let access = fieldAccess
            return try list.split(separator: ",").map { name in
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                guard let field = object.field(named: trimmed), access.canRead(field, in: object) else { throw APIError.noSuchColumn(trimmed, on: object) }
                return field
            }
        }
    }

    func routeData(_ context: DataContext, rest: [String]) async throws -> APIResponse {
        let method = context.method
        switch (rest.first, rest.count) {
        case (nil, _):
            try requireMethod(method, "GET")
            return await resources(context)
        case ("sobjects", 1):
            try requireMethod(method, "GET")
            return try describeGlobal(context)
        case ("sobjects", _):
            guard let object = schema.object(named: rest[1]) else {
                return .error(UnservedFeature.matching(rest)?.error ?? .resourceNotFound)
            }
            return try await routeSObject(context, object: object, rest: Array(rest.dropFirst(2)))
        case ("query", _), ("queryAll", _):
            try requireMethod(method, "GET")
            return try await query(context, includeDeleted: rest[0] == "queryAll", locator: rest.count > 1 ? rest[1] : nil)
        case ("search", 1), ("parameterizedSearch", 1):
            try requireMethod(method, "GET")
            let records: [JSONValue]
            if rest[0] == "search" {
                guard let text = context.request.queryItems["q"], !text.isEmpty else {
                    throw APIError(status: 400, errorCode: "MALFORMED_SEARCH", message: "A search string has to be specified")
                }
                records = try await queries.search(
                    text, userId: context.session.userId, visibleTo: context.visibleOwner, access: context.fieldAccess,
                    apiVersion: context.apiVersion)
            } else {
                records = try await queries.parameterizedSearch(
                    context.request.queryItems, visibleTo: context.visibleOwner, access: context.fieldAccess,
                    apiVersion: context.apiVersion)
            }
            // Before v36.0 the answer was a bare array.
            return !context.apiVersion(atLeast: 36) ? .json(.array(records)) : .json(["searchRecords": .array(records)])
        case ("connect", 3) where rest[1] == "briefcase" && rest[2] == "priming-records" && context.apiVersion(atLeast: 54):
            return try await primingRecords(context)
        case ("recent", 1):
            try requireMethod(method, "GET")
            return try await recentItems(context)
        case ("limits", 1):
            try requireMethod(method, "GET")
            return limits(context)
        case ("limits", 2) where rest[1] == "recordCount":
            try requireMethod(method, "GET")
            return try await recordCount(context)
        case ("composite", 2) where rest[1] == "graph":
            return try await compositeGraph(context)
        case ("composite", _) where rest.count >= 2 && rest[1] == "sobjects":
            // sObject Collections came with v42.0; before it Salesforce has no such URL.
            guard context.apiVersion(atLeast: 42) else { return .error(.resourceNotFound) }
            return try await compositeSObjects(context, rest: Array(rest.dropFirst(2)))
        case ("composite", 1):
            return try await composite(context)
        case ("composite", 2) where rest[1] == "batch":
            return try await compositeBatch(context)
        case ("ui-api", _):
            return try routeUIAPI(context, rest: Array(rest.dropFirst()))
        case ("composite", 3) where rest[1] == "tree":
            guard let object = schema.object(named: rest[2]) else { return .error(.resourceNotFound) }
            return try await compositeTree(object, context: context)
        default:
            if let feature = UnservedFeature.matching(rest) { return .error(feature.error) }
            return .error(.resourceNotFound)
        }
    }

    func requireMethod(_ method: String, _ allowed: String...) throws {
        guard allowed.contains(method) else {
            throw APIError(status: 405, errorCode: "METHOD_NOT_ALLOWED", message: "HTTP Method '\(method)' not allowed. Allowed are \(allowed.joined(separator: ","))")
        }
    }

    func resources(_ context: DataContext) async -> APIResponse {
        let base = "/services/data/v\(context.apiVersion)"
        var map: JSONObject = [:]
        for name in ["sobjects", "query", "queryAll", "search", "parameterizedSearch", "recent", "limits", "composite"] { map[name] = .string("\(base)/\(name)") }
        map["identity"] = .string(await identityURL(context.request, userId: context.session.userId))
        return .json(.object(map))
    }

    func identityURL(_ request: APIRequest, userId: String) async -> String {
        "\(request.baseURL)/id/\(await organizationId())/\(userId)"
    }
}
