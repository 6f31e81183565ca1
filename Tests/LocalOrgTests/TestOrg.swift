import ForceJSON
import Foundation

@testable import LocalOrg

/// A fresh org in a temporary directory, with a signed-in demo admin, for tests that call the
/// API directly (no HTTP).
struct TestOrg {
    let directory: String
    let store: OrgStore
    let api: LocalOrgAPI
    private(set) var accessToken: String
    static let baseURL = "https://localhost:8443"

    init(
        tokenLifetime: Int64 = 3600, apiLimit: Int = 100_000, sharing: OrgSettings.Sharing = .public,
        latencyMilliseconds: Int = 0, failureRate: Double = 0, connectedApps: [String: String] = [:],
        maximumBodyBytes: Int = 8 * 1024 * 1024, briefcases: JSONValue? = nil,
        mobilePolicy: OrgSettings.MobilePolicy = OrgSettings.MobilePolicy(),
        connectedAppPolicies: [String: OrgSettings.MobilePolicy] = [:], rules: ProductionRules? = nil,
        streamingTimeoutMilliseconds: Int = 110_000, streamingClientGraceMilliseconds: Int = 30_000
    ) async throws {
        directory = NSTemporaryDirectory() + "localorg-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try OrgStore(path: directory + "/org.sqlite", schema: try OrgSchema.bundled())
        var settings = OrgSettings()
        settings.tokenLifetime = tokenLifetime
        settings.dailyAPILimit = apiLimit
        settings.sharing = sharing
        settings.latencyMilliseconds = latencyMilliseconds
        settings.failureRate = failureRate
        settings.connectedApps = connectedApps
        settings.maximumBodyBytes = maximumBodyBytes
        settings.mobilePolicy = mobilePolicy
        settings.connectedAppPolicies = connectedAppPolicies
        settings.rules = rules
        settings.streamingTimeoutMilliseconds = streamingTimeoutMilliseconds
        settings.streamingClientGraceMilliseconds = streamingClientGraceMilliseconds
        if let briefcases { settings.briefcases = try BriefcaseConfiguration.parse(briefcases, schema: store.schema) }
        api = try LocalOrgAPI(store: store, settings: settings)
        accessToken = try await Self.signIn(api, username: "demo@localorg.test", password: "localorg-demo")
    }

    /// An access token from the password grant.
    static func signIn(_ api: LocalOrgAPI, username: String, password: String) async throws -> String {
        let login = await api.handle(
            APIRequest(
                method: "POST", path: "/services/oauth2/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array("grant_type=password&client_id=forceterm&username=\(username)&password=\(password)".utf8),
                baseURL: Self.baseURL))
        guard login.status == 200, let token = try JSONParser.parse(login.body)["access_token"]?.stringValue else {
            throw TestFailure("login failed: \(login.status) \(login.bodyText)")
        }
        return token
    }

    /// The same org seen by another user.
    func signedIn(as username: String, password: String) async throws -> TestOrg {
        var other = self
        other.accessToken = try await Self.signIn(api, username: username, password: password)
        return other
    }

    /// Sends a request with the admin's token; `body` is JSON text.
    func call(_ method: String, _ pathAndQuery: String, body: String? = nil, headers: [String: String] = [:]) async -> APIResponse {
        let parts = pathAndQuery.split(separator: "?", maxSplits: 1)
        var allHeaders = ["Authorization": "Bearer \(accessToken)"]
        if body != nil { allHeaders["Content-Type"] = "application/json" }
        for (name, value) in headers { allHeaders[name] = value }
        return await api.handle(
            APIRequest(
                method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "",
                headers: allHeaders, body: Array((body ?? "").utf8), baseURL: Self.baseURL))
    }

    /// Runs SOQL through `/query` and returns the decoded body.
    func query(_ soql: String, all: Bool = false, headers: [String: String] = [:]) async throws -> (status: Int, body: JSONValue) {
        let encoded = soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? soql
        let response = await call("GET", "/services/data/v59.0/\(all ? "queryAll" : "query")?q=\(encoded)", headers: headers)
        return (response.status, try JSONParser.parse(response.body))
    }

    /// Creates a record and returns its id.
    func create(_ object: String, _ json: String) async throws -> String {
        let response = await call("POST", "/services/data/v59.0/sobjects/\(object)/", body: json)
        guard response.status == 201, let id = try JSONParser.parse(response.body)["id"]?.stringValue else {
            throw TestFailure("create \(object) failed: \(response.status) \(response.bodyText)")
        }
        return id
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// The first error's `errorCode` of a Salesforce error array.
    var firstErrorCode: String? { arrayValue?.first?["errorCode"]?.stringValue }
    var firstErrorMessage: String? { arrayValue?.first?["message"]?.stringValue }
}
