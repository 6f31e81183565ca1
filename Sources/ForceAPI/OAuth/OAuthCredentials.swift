import ForceJSON
import Foundation

/// A signed-in user's session: where to send requests, the tokens, and who the user is.
/// Tokens are `Secret`s, so printing or dumping credentials never shows them.
public struct OAuthCredentials: Sendable, Equatable {
    public var loginURL: String
    public var clientId: String
    public var instanceURL: String
    public var identityURL: String
    public var accessToken: Secret
    public var refreshToken: Secret?
    public var userId: String
    public var organizationId: String
    public var username: String
    /// The CA file given at sign-in (`--cacert`), so later commands trust the same server.
    public var caFile: String?
    /// The org's passcode policy at sign-in.
    public var mobilePolicy: MobilePolicy?

    public init(loginURL: String, clientId: String, token: OAuthToken, identity: UserIdentity, caFile: String? = nil) {
        self.loginURL = loginURL
        self.clientId = clientId
        instanceURL = token.instanceURL
        identityURL = token.identityURL
        accessToken = token.accessToken
        refreshToken = token.refreshToken
        userId = identity.userId
        organizationId = identity.organizationId
        username = identity.username
        mobilePolicy = identity.mobilePolicy
        self.caFile = caFile
    }

    /// The credentials after a refresh: a new access token (and refresh token, if rotated).
    func refreshed(with token: OAuthToken) -> OAuthCredentials {
        var copy = self
        copy.accessToken = token.accessToken
        if let refresh = token.refreshToken { copy.refreshToken = refresh }
        copy.instanceURL = token.instanceURL
        return copy
    }

    /// The file form (see `CredentialStore`).
    public var json: JSONValue {
        var object: JSONObject = [
            "loginUrl": .string(loginURL), "clientId": .string(clientId), "instanceUrl": .string(instanceURL),
            "identityUrl": .string(identityURL), "accessToken": .string(accessToken.revealed),
            "userId": .string(userId), "organizationId": .string(organizationId), "username": .string(username),
        ]
        if let refreshToken { object["refreshToken"] = .string(refreshToken.revealed) }
        if let caFile { object["caFile"] = .string(caFile) }
        if let mobilePolicy { object["mobilePolicy"] = mobilePolicy.json }
        return .object(object)
    }

    public init?(json: JSONValue) {
        guard let loginURL = json["loginUrl"]?.stringValue, let clientId = json["clientId"]?.stringValue,
            let instanceURL = json["instanceUrl"]?.stringValue, let identityURL = json["identityUrl"]?.stringValue,
            let accessToken = json["accessToken"]?.stringValue, let userId = json["userId"]?.stringValue,
            let organizationId = json["organizationId"]?.stringValue, let username = json["username"]?.stringValue
        else { return nil }
        self.loginURL = loginURL
        self.clientId = clientId
        self.instanceURL = instanceURL
        self.identityURL = identityURL
        self.accessToken = Secret(accessToken)
        refreshToken = json["refreshToken"]?.stringValue.map(Secret.init)
        self.userId = userId
        self.organizationId = organizationId
        self.username = username
        caFile = json["caFile"]?.stringValue
        mobilePolicy = MobilePolicy(json: json["mobilePolicy"])
    }
}

/// The live session behind a `ForceClient`: the current credentials, refreshed at most once at a
/// time however many requests see a 401 together.
actor SessionState {
    private(set) var credentials: OAuthCredentials
    private var refreshing: Task<OAuthCredentials, any Error>?
    private let oauth: OAuthClient
    private let onRefresh: (@Sendable (OAuthCredentials) -> Void)?
    private(set) var lastUsage: APIUsage?

    init(credentials: OAuthCredentials, oauth: OAuthClient, onRefresh: (@Sendable (OAuthCredentials) -> Void)?) {
        self.credentials = credentials
        self.oauth = oauth
        self.onRefresh = onRefresh
    }

    func record(usage: APIUsage) { lastUsage = usage }

    /// Refreshes after `failedToken` got a 401, unless another request already did.
    func refresh(after failedToken: Secret) async throws(ForceAPIError) -> OAuthCredentials {
        if credentials.accessToken != failedToken { return credentials }
        if let refreshing { return try await Self.await(refreshing) }
        guard let refreshToken = credentials.refreshToken else { throw .sessionExpired }
        let oauth = self.oauth
        let current = credentials
        let task = Task<OAuthCredentials, any Error> {
            do throws(ForceAPIError) {
                return current.refreshed(with: try await oauth.refresh(refreshToken))
            } catch {
                // invalid_grant: the refresh token was revoked or expired.
                if case .authentication = error { throw ForceAPIError.sessionExpired }
                throw error
            }
        }
        refreshing = task
        defer { refreshing = nil }
        let updated = try await Self.await(task)
        credentials = updated
        onRefresh?(updated)
        return updated
    }

    private static func await(_ task: Task<OAuthCredentials, any Error>) async throws(ForceAPIError) -> OAuthCredentials {
        do {
            return try await task.value
        } catch let error as ForceAPIError {
            throw error
        } catch {
            throw .cancelled
        }
    }
}

/// The last `Sforce-Limit-Info` seen: API requests used and allowed today.
public struct APIUsage: Sendable, Equatable {
    public var used: Int
    public var limit: Int

    /// Parses `api-usage=18/5000[; per-app-api-usage=…]`.
    public init?(header: String) {
        guard let range = header.range(of: "api-usage=") else { return nil }
        let numbers = header[range.upperBound...].prefix { $0.isNumber || $0 == "/" }.split(separator: "/")
        guard numbers.count == 2, let used = Int(numbers[0]), let limit = Int(numbers[1]) else { return nil }
        self.used = used
        self.limit = limit
    }
}
