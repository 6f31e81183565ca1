import ForceJSON
import Foundation

/// What the token endpoint hands back after a sign-in or a refresh.
public struct OAuthToken: Sendable, Equatable {
    public var accessToken: Secret
    /// Absent for Salesforce's password flow and for refreshes without rotation.
    public var refreshToken: Secret?
    public var instanceURL: String
    /// The identity URL (`https://host/id/ORG/USER`).
    public var identityURL: String
    public var issuedAt: Date?
    public var scope: String?

    public init(accessToken: Secret, refreshToken: Secret?, instanceURL: String, identityURL: String, issuedAt: Date? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.instanceURL = instanceURL
        self.identityURL = identityURL
        self.issuedAt = issuedAt
        self.scope = scope
    }
}

/// Who signed in, from the identity URL.
public struct UserIdentity: Sendable, Equatable {
    public var userId: String
    public var organizationId: String
    public var username: String
    public var displayName: String?
    /// The connected app's passcode length and screen lock, when the org sets them.
    public var mobilePolicy: MobilePolicy?

    public init(userId: String, organizationId: String, username: String, displayName: String? = nil, mobilePolicy: MobilePolicy? = nil) {
        self.userId = userId
        self.organizationId = organizationId
        self.username = username
        self.displayName = displayName
        self.mobilePolicy = mobilePolicy
    }
}

/// A started device-flow sign-in: show `verificationURL` and `userCode`, then poll.
public struct DeviceAuthorization: Sendable {
    public var deviceCode: Secret
    public var userCode: String
    public var verificationURL: String
    /// `verificationURL` with the code filled in (RFC 8628's `verification_uri_complete`), when
    /// the server sends one: one link to open, nothing to type.
    public var verificationURLComplete: String?
    /// Seconds between polls, as the server asks.
    public var interval: Int
    /// When the code stops working: the server's `expires_in` if it sent one (Salesforce's
    /// documented answer has none), else ten minutes after the start.
    public var expiresAt: Date
}

/// The OAuth endpoints of a login host (login.salesforce.com, test.salesforce.com, a My Domain or
/// a localorg URL), in Salesforce's dialect: form-encoded bodies, flat `{"error", "error_description"}`
/// errors, the device flow as `response_type=device_code` then `grant_type=device&code=…`.
public struct OAuthClient: Sendable {
    public let loginURL: String
    public let clientId: String
    public let clientSecret: Secret?
    let transport: CurlTransport

    public static let defaultClientId = "forceterm"
    public static let defaultLoginURL = "https://login.salesforce.com"

    public init(loginURL: String, clientId: String = OAuthClient.defaultClientId, clientSecret: Secret? = nil, transport: CurlTransport) {
        var url = loginURL
        while url.hasSuffix("/") { url.removeLast() }
        self.loginURL = url
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.transport = transport
    }

    /// The username-password flow. The password has the user's security token appended when the org asks for one.
    public func signIn(username: String, password: Secret) async throws(ForceAPIError) -> OAuthToken {
        try parseToken(try await postToken(["grant_type": "password", "username": username, "password": password.revealed]))
    }

    /// A new access token for a refresh token. Salesforce sends no new refresh token unless the
    /// app rotates them, so the old one is kept then.
    public func refresh(_ refreshToken: Secret) async throws(ForceAPIError) -> OAuthToken {
        var token = try parseToken(try await postToken(["grant_type": "refresh_token", "refresh_token": refreshToken.revealed]))
        if token.refreshToken == nil { token.refreshToken = refreshToken }
        return token
    }

    /// Starts a device-flow sign-in.
    public func startDeviceFlow(scope: String = "api refresh_token") async throws(ForceAPIError) -> DeviceAuthorization {
        let body = try await postToken(["response_type": "device_code", "scope": scope])
        guard let deviceCode = body["device_code"]?.stringValue, let userCode = body["user_code"]?.stringValue,
            let verification = body["verification_uri"]?.stringValue
        else {
            throw .authentication(error: "invalid_response", description: "the device-flow answer lacks device_code, user_code or verification_uri")
        }
        let interval = Int(body["interval"]?.int64Value ?? 5)
        let lifetime = Double(body["expires_in"]?.int64Value ?? 600)
        return DeviceAuthorization(
            deviceCode: Secret(deviceCode), userCode: userCode, verificationURL: verification,
            verificationURLComplete: body["verification_uri_complete"]?.stringValue,
            interval: max(1, interval), expiresAt: Date().addingTimeInterval(lifetime))
    }

    /// One poll's answer.
    public enum DevicePoll: Sendable {
        case pending
        case slowDown
        case approved(OAuthToken)
    }

    /// Polls once (`grant_type=device&code=…`). `authorization_pending` and `slow_down` are answers;
    /// every other error (`access_denied`, `expired_token`, …) is thrown.
    public func poll(_ authorization: DeviceAuthorization) async throws(ForceAPIError) -> DevicePoll {
        do throws(ForceAPIError) {
            return .approved(try parseToken(try await postToken(["grant_type": "device", "code": authorization.deviceCode.revealed])))
        } catch {
            if case let .authentication(code, _) = error, code == "authorization_pending" { return .pending }
            if case let .authentication(code, _) = error, code == "slow_down" { return .slowDown }
            throw error
        }
    }

    /// Polls at the server's interval (five seconds more after each `slow_down`) until the user
    /// approves, denies, the code expires, or the task is cancelled.
    public func waitForApproval(_ authorization: DeviceAuthorization) async throws(ForceAPIError) -> OAuthToken {
        var interval = authorization.interval
        while true {
            if Date().addingTimeInterval(Double(interval)) > authorization.expiresAt {
                throw .authentication(error: "expired_token", description: "the code \(authorization.userCode) expired before it was approved; run forceterm login again")
            }
            do {
                try await Task.sleep(for: .seconds(interval))
            } catch {
                throw .cancelled
            }
            switch try await poll(authorization) {
            case .pending: continue
            case .slowDown: interval += 5
            case let .approved(token): return token
            }
        }
    }

    /// Revokes an access or refresh token (revoking a refresh token ends its access tokens too).
    public func revoke(_ token: Secret) async throws(ForceAPIError) {
        let request = HTTPRequest(
            method: "POST", url: "\(loginURL)/services/oauth2/revoke",
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(FormEncoding.encode(["token": token.revealed]).utf8), isIdempotent: true)
        let response = try await sendToLoginServer(request)
        guard response.status == 200 else {
            throw Self.oauthError(response)
        }
    }

    /// Who the token belongs to, from its identity URL.
    public func identity(of token: OAuthToken) async throws(ForceAPIError) -> UserIdentity {
        let request = HTTPRequest(
            method: "GET", url: token.identityURL,
            headers: [HTTPHeader("Authorization", "Bearer \(token.accessToken.revealed)"), HTTPHeader("Accept", "application/json")])
        let response = try await sendToLoginServer(request)
        guard response.status == 200 else {
            if response.status == 401 || response.status == 403 { throw .sessionExpired }
            throw Self.oauthError(response)
        }
        guard response.isJSON, let body = try? JSONParser.parse(response.body) else {
            throw .nonJSON(status: response.status, contentType: response.header("Content-Type"))
        }
        guard let userId = body["user_id"]?.stringValue, let organizationId = body["organization_id"]?.stringValue,
            let username = body["username"]?.stringValue ?? body["preferred_username"]?.stringValue
        else {
            throw .authentication(error: "invalid_response", description: "the identity answer lacks user_id, organization_id or username")
        }
        return UserIdentity(
            userId: userId, organizationId: organizationId, username: username, displayName: body["display_name"]?.stringValue,
            mobilePolicy: MobilePolicy(json: body["mobile_policy"]))
    }

    /// Sends one request to the login server. One whose TLS handshake never finished (a lossy,
    /// slow link loses a handshake packet often) or broke is sent again, up to twice: nothing of
    /// it left, so even the token endpoint's POST cannot be applied twice.
    private func sendToLoginServer(_ request: HTTPRequest) async throws(ForceAPIError) -> HTTPResponse {
        var attempt = 1
        while true {
            switch await transport.attempt(request) {
            case let .success(response):
                return response
            case let .failure(failure):
                let handshakeFailed: Bool
                switch failure.error {
                case .timeout(.noAnswer, _), .connectionLost: handshakeFailed = true
                default: handshakeFailed = false
                }
                guard handshakeFailed, !failure.requestMayHaveLeft, attempt < 3 else { throw failure.error }
                do {
                    try await Task.sleep(for: .milliseconds(500 * attempt))
                } catch {
                    throw .cancelled
                }
                attempt += 1
            }
        }
    }

    // MARK: The token endpoint

    private func postToken(_ fields: [String: String]) async throws(ForceAPIError) -> JSONValue {
        var form = fields
        form["client_id"] = clientId
        if let clientSecret { form["client_secret"] = clientSecret.revealed }
        let request = HTTPRequest(
            method: "POST", url: "\(loginURL)/services/oauth2/token",
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json")],
            body: Array(FormEncoding.encode(form).utf8), isIdempotent: false)
        let response = try await sendToLoginServer(request)
        guard response.status == 200 else { throw Self.oauthError(response) }
        guard let body = try? JSONParser.parse(response.body), body.objectValue != nil else {
            throw .nonJSON(status: response.status, contentType: response.header("Content-Type"))
        }
        return body
    }

    private func parseToken(_ body: JSONValue) throws(ForceAPIError) -> OAuthToken {
        guard let access = body["access_token"]?.stringValue, let instance = body["instance_url"]?.stringValue,
            let identity = body["id"]?.stringValue
        else {
            throw .authentication(error: "invalid_response", description: "the token answer lacks access_token, instance_url or id")
        }
        let issuedAt = body["issued_at"]?.stringValue.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
        var instanceURL = instance
        while instanceURL.hasSuffix("/") { instanceURL.removeLast() }
        return OAuthToken(
            accessToken: Secret(access), refreshToken: body["refresh_token"]?.stringValue.map(Secret.init),
            instanceURL: instanceURL, identityURL: identity, issuedAt: issuedAt, scope: body["scope"]?.stringValue)
    }

    /// OAuth errors are flat objects; anything else becomes a server or non-JSON error.
    static func oauthError(_ response: HTTPResponse) -> ForceAPIError {
        if let body = try? JSONParser.parse(response.body), let error = body["error"]?.stringValue {
            return .authentication(error: error, description: body["error_description"]?.stringValue ?? "")
        }
        if response.status >= 500 { return .server(status: response.status, errors: []) }
        if response.status == 401 || response.status == 403 { return .sessionExpired }
        return .nonJSON(status: response.status, contentType: response.header("Content-Type"))
    }
}

/// `application/x-www-form-urlencoded` and URL query encoding.
enum FormEncoding {
    /// Unreserved characters only; everything else percent-encoded (so `+` and `&` survive).
    static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// Fields sorted by name, so requests are reproducible.
    static func encode(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }.map { "\(escape($0.key))=\(escape($0.value))" }.joined(separator: "&")
    }
}
