import Crypto
import ForceJSON
import Foundation
import GRDB

extension LocalOrgAPI {
    /// Form fields of an OAuth request: query string, then a urlencoded body (body wins).
    func oauthParameters(_ request: APIRequest) -> [String: String] {
        var parameters = request.queryItems
        let contentType = request.header("content-type")?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") || (contentType.isEmpty && !request.body.isEmpty) {
            for (key, value) in FormDecoding.decode(String(decoding: request.body, as: UTF8.self)) { parameters[key] = value }
        } else if contentType.hasPrefix("multipart/form-data") {
            // sfdx-core sends the device-flow requests as multipart forms.
            for (key, value) in FormDecoding.decodeMultipart(request.body, contentType: contentType) { parameters[key] = value }
        }
        // Client credentials may come as HTTP Basic instead of body fields.
        if let header = request.header("authorization"), header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        {
            parameters["client_id"] = parameters["client_id"] ?? FormDecoding.percentDecode(String(decoded[..<colon]), plusIsSpace: true)
            parameters["client_secret"] = parameters["client_secret"] ?? FormDecoding.percentDecode(String(decoded[decoded.index(after: colon)...]), plusIsSpace: true)
        }
        return parameters
    }

    func handleOAuth(_ request: APIRequest, endpoint: String) async throws -> APIResponse {
        switch endpoint {
        case "token":
            guard request.method == "POST" else { return .oauthError("invalid_request", "must use HTTP POST", status: 405) }
            var response = try await token(request)
            // Tokens must not be cached (RFC 6749 5.1); these are the headers Salesforce sends.
            response.headers.append(("Cache-Control", "no-cache,must-revalidate,max-age=0,no-store,private"))
            response.headers.append(("Expires", "Thu, 01 Jan 1970 00:00:00 GMT"))
            return response
        case "revoke":
            let token = oauthParameters(request)["token"] ?? ""
            guard !token.isEmpty, try await tokens.revoke(token) else { return .oauthError("invalid_token", "invalid token") }
            return .empty(200)
        case "introspect":
            guard request.method == "POST" else { return .oauthError("invalid_request", "must use HTTP POST", status: 405) }
            return try await introspect(oauthParameters(request), request: request)
        case "userinfo":
            guard let session = try? await authenticate(request) else {
                return APIResponse(status: 403, headers: [("Content-Type", "text/plain;charset=UTF-8")], body: Array("Bad_OAuth_Token".utf8))
            }
            return try await userInfo(request, session: session, openIDShape: true)
        default:
            return .error(.resourceNotFound)
        }
    }

    /// The refusal of a client that is not one of the org's apps, or not with its secret; nil when
    /// it is. The built-in app is a public client; configured apps must present their secret.
    func clientRefusal(_ parameters: [String: String]) -> APIResponse? {
        let clientId = parameters["client_id"] ?? ""
        guard clientId != Self.builtInClientId else { return nil }
        guard let secret = settings.connectedApps[clientId] else { return .oauthError("invalid_client_id", "client identifier invalid") }
        guard constantTimeEqual(Array((parameters["client_secret"] ?? "").utf8), Array(secret.utf8)) else {
            return .oauthError("invalid_client", "invalid client credentials")
        }
        return nil
    }

    /// Token introspection (RFC 7662, as Salesforce serves it): whether a token of the asking app
    /// is active, whose it is and until when; `{"active": false}` for anything else, whatever the
    /// reason (unknown, revoked, expired, another app's), so the answer tells a prober nothing.
    func introspect(_ parameters: [String: String], request: APIRequest) async throws -> APIResponse {
        if let refusal = clientRefusal(parameters) { return refusal }
        let token = parameters["token"] ?? ""
        let clientId = parameters["client_id"] ?? ""
        let kinds: [TokenService.Kind] = parameters["token_type_hint"] == "refresh_token" ? [.refresh, .access] : [.access, .refresh]
        for kind in kinds {
            guard let found = try await tokens.lookUp(token, kind: kind), found.clientId == clientId else { continue }
            if let expiresAt = found.expiresAt, expiresAt <= OrgStore.now() { break }
            var body: JSONObject = [
                "active": true, "scope": "api refresh_token", "client_id": .string(clientId),
                "username": .string(try await tokens.username(of: found.userId)),
                "sub": .string(await identityURL(request, userId: found.userId)),
                "token_type": .string(kind == .access ? "access_token" : "refresh_token"),
                "iat": .int(found.issuedAt), "nbf": .int(found.issuedAt),
            ]
            if let expiresAt = found.expiresAt { body["exp"] = .int(expiresAt) }
            return .json(.object(body))
        }
        return .json(["active": false])
    }

    func token(_ request: APIRequest) async throws -> APIResponse {
        let parameters = oauthParameters(request)
        let clientId = parameters["client_id"] ?? ""
        if let refusal = clientRefusal(parameters) { return refusal }
        if parameters["response_type"] == "device_code" {
            let started = try await DeviceAuthorization(store: store).start(clientId: clientId, scope: parameters["scope"] ?? "api refresh_token")
            return .json([
                "device_code": .string(started.deviceCode), "user_code": .string(started.userCode),
                // The host the device used, which is one the trainee's network reaches.
                "verification_uri": .string("\(request.baseURL)/setup/connect"),
                "verification_uri_complete": .string("\(request.baseURL)/setup/connect?user_code=\(started.userCode)"),
                "interval": .int(DeviceAuthorization.interval), "expires_in": .int(DeviceAuthorization.lifetime),
            ])
        }
        switch parameters["grant_type"] ?? "" {
        case "device", "urn:ietf:params:oauth:grant-type:device_code":
            // Salesforce's poll sends `code`; RFC 8628 clients send `device_code`.
            guard let code = parameters["code"] ?? parameters["device_code"] else {
                return .oauthError("invalid_request", "missing device code")
            }
            switch try await DeviceAuthorization(store: store).poll(deviceCode: code, clientId: clientId) {
            case .pending: return .oauthError("authorization_pending", "authorization pending")
            case .slowDown: return .oauthError("slow_down", "polling too fast: wait \(DeviceAuthorization.interval) seconds between polls")
            case .expired: return .oauthError("expired_token", "the device code has expired")
            case .denied: return .oauthError("access_denied", "end-user denied authorization")
            case .invalid: return .oauthError("invalid_grant", "invalid device code")
            case let .approved(userId):
                let refresh = try await tokens.issue(kind: .refresh, userId: userId, clientId: clientId)
                return try await tokenResponse(request, userId: userId, clientId: clientId, refresh: (refresh.token, refresh.selector), scope: "api refresh_token")
            }
        case "password":
            guard let username = parameters["username"], let password = parameters["password"] else {
                return .oauthError("invalid_grant", "authentication failure")
            }
            RequestContext.current?.note(username: username)
            // An app whose username-password flow is blocked (Salesforce's "Allow OAuth
            // Username-Password Flows" off, the default for orgs since Summer '23) answers exactly as
            // a wrong password does, as recorded answers show; only the admin's login history
            // tells the two apart, so the operator is told here.
            if settings.passwordFlowBlocked.contains(clientId) {
                FileHandle.standardError.write(Data("localorg: \(username): password sign-in refused, the username-password flow is blocked for \(clientId)\n".utf8))
                return .oauthError("invalid_grant", "authentication failure")
            }
            // Salesforce answers a locked-out user as a wrong password; only an inactive one differs.
            let userId: String
            switch try await store.checkSignIn(username: username, password: password) {
            case let .accepted(id, _): userId = id
            case .inactive: return .oauthError("invalid_grant", "inactive user")
            case .refused, .lockedOut: return .oauthError("invalid_grant", "authentication failure")
            }
            // Unlike Salesforce's password flow, the built-in public client also gets a refresh
            // token, so forceterm can keep a session without storing the password.
            let refresh = try await tokens.issue(kind: .refresh, userId: userId, clientId: clientId)
            return try await tokenResponse(request, userId: userId, clientId: clientId, refresh: (refresh.token, refresh.selector), scope: "api refresh_token")
        case "refresh_token":
            guard let refreshToken = parameters["refresh_token"],
                let found = try await tokens.lookUp(refreshToken, kind: .refresh), found.clientId == clientId
            else {
                return .oauthError("invalid_grant", "expired access/refresh token")
            }
            return try await tokenResponse(request, userId: found.userId, clientId: clientId, refresh: (nil, found.selector), scope: "api refresh_token")
        case "":
            return .oauthError("unsupported_grant_type", "grant type not supported")
        default:
            return .oauthError("unsupported_grant_type", "grant type not supported")
        }
    }

    /// The token endpoint's success body. `refresh` carries a new refresh token to hand out
    /// (token, selector) or, when refreshing, the selector of the one presented.
    func tokenResponse(_ request: APIRequest, userId: String, clientId: String, refresh: (token: String?, selector: String)?, scope: String) async throws -> APIResponse {
        let access = try await tokens.issue(kind: .access, userId: userId, clientId: clientId, refreshSelector: refresh?.selector)
        let issuedAt = String(OrgStore.now() * 1000)
        let identity = await identityURL(request, userId: userId)
        // Salesforce signs id + issued_at with the client secret; the public built-in app has none,
        // so its client id stands in.
        let signingKey = settings.connectedApps[clientId] ?? clientId
        let signature = HMAC<SHA256>.authenticationCode(for: Array((identity + issuedAt).utf8), using: SymmetricKey(data: Array(signingKey.utf8)))
        var body: JSONObject = [
            "access_token": .string(access.token), "instance_url": .string(request.baseURL), "id": .string(identity),
            "token_type": "Bearer", "issued_at": .string(issuedAt), "signature": .string(Data(signature).base64EncodedString()),
            "scope": .string(scope),
        ]
        if let token = refresh?.token { body["refresh_token"] = .string(token) }
        return .json(.object(body))
    }

    /// Identity URL (`/id/ORG/USER`) and OpenID userinfo: the same facts in two shapes.
    func identity(_ request: APIRequest, userId: String) async throws -> APIResponse {
        guard let session = try? await authenticate(request, allowQueryToken: true) else {
            return APIResponse(status: 403, headers: [("Content-Type", "text/plain;charset=UTF-8")], body: Array("Bad_OAuth_Token".utf8))
        }
        guard session.userId == SalesforceId.canonical(userId) else { return .error(.resourceNotFound) }
        return try await userInfo(request, session: session, openIDShape: false)
    }

    func userInfo(_ request: APIRequest, session: Session, openIDShape: Bool) async throws -> APIResponse {
        guard let userObject = schema.object(named: "User"), let user = try await store.record(userObject, id: session.userId) else {
            throw APIError.resourceNotFound
        }
        func text(_ name: String) -> JSONValue { RecordRenderer.json(user.values[name] ?? .null, for: userObject.field(named: name) ?? FieldDefinition(name: name, label: name, type: .string)) }
        let organizationId = await organizationId()
        let identity = await identityURL(request, userId: session.userId)
        let base = request.baseURL
        let urls: JSONValue = [
            "enterprise": .string("\(base)/services/Soap/c/{version}/\(organizationId)"), "metadata": .string("\(base)/services/Soap/m/{version}/\(organizationId)"),
            "partner": .string("\(base)/services/Soap/u/{version}/\(organizationId)"), "rest": .string("\(base)/services/data/v{version}/"),
            "sobjects": .string("\(base)/services/data/v{version}/sobjects/"), "search": .string("\(base)/services/data/v{version}/search/"),
            "query": .string("\(base)/services/data/v{version}/query/"), "recent": .string("\(base)/services/data/v{version}/recent/"),
            "profile": .string("\(base)/\(session.userId)"), "feeds": .string("\(base)/services/data/v{version}/chatter/feeds"),
            "groups": .string("\(base)/services/data/v{version}/chatter/groups"), "users": .string("\(base)/services/data/v{version}/chatter/users"),
            "feed_items": .string("\(base)/services/data/v{version}/chatter/feed-items"),
        ]
        let photos: JSONValue = ["picture": .string("\(base)/profilephoto/005/F"), "thumbnail": .string("\(base)/profilephoto/005/T")]
        let lastModified = text("LastModifiedDate")
        if openIDShape {
            return .json([
                "sub": .string(identity), "user_id": .string(session.userId), "organization_id": .string(organizationId),
                "preferred_username": text("Username"), "nickname": text("Alias"), "name": text("Name"), "email": text("Email"),
                "email_verified": true, "given_name": text("FirstName"), "family_name": text("LastName"), "zoneinfo": text("TimeZoneSidKey"),
                "photos": photos, "profile": .string("\(base)/\(session.userId)"), "picture": .string("\(base)/profilephoto/005/F"),
                "address": [:], "urls": urls, "active": true, "user_type": "STANDARD", "language": text("LanguageLocaleKey"),
                "locale": text("LanguageLocaleKey"), "utcOffset": 0, "updated_at": lastModified, "is_app_installed": true,
            ])
        }
        var answer: JSONObject = [
            "id": .string(identity), "asserted_user": true, "user_id": .string(session.userId), "organization_id": .string(organizationId),
            "username": text("Username"), "nick_name": text("Alias"), "display_name": text("Name"), "email": text("Email"),
            "email_verified": true, "first_name": text("FirstName"), "last_name": text("LastName"), "timezone": text("TimeZoneSidKey"),
            "photos": photos, "addr_street": .null, "addr_city": .null, "addr_state": .null, "addr_country": .null, "addr_zip": .null,
            "mobile_phone": .null, "mobile_phone_verified": false, "is_lightning_login_user": false, "status": ["created_date": .null, "body": .null],
            "urls": urls, "active": true, "user_type": "STANDARD", "language": text("LanguageLocaleKey"), "locale": text("LanguageLocaleKey"),
            "utcOffset": 0, "last_modified_date": lastModified, "is_app_installed": true,
        ]
        answer["mobile_policy"] = settings.mobilePolicy(forClient: session.clientId).json
        return .json(.object(answer))
    }
}

extension LocalOrgAPI {
    /// The device flow's verification page: a person enters the code shown by the device and
    /// signs in to approve it (or denies it).
    func verificationPage(_ request: APIRequest) async throws -> APIResponse {
        var notice = ""
        var prefilledCode = request.queryItems["user_code"] ?? ""
        if request.method == "POST" {
            let form = oauthParameters(request)
            prefilledCode = form["user_code"] ?? ""
            let approve = form["action"] != "deny"
            let username = form["username"] ?? ""
            RequestContext.current?.note(username: username)
            switch try await store.checkSignIn(username: username, password: form["password"] ?? "") {
            case let .accepted(userId, _):
                if try await DeviceAuthorization(store: store).decide(userCode: prefilledCode, userId: userId, approve: approve) {
                    return htmlPage(
                        title: approve ? "Device connected" : "Request denied",
                        body: approve
                            ? "<p>You can go back to your device; it is signed in as \(htmlEscaped(username)).</p>"
                            : "<p>The device was not connected.</p>")
                }
                notice = "That code is unknown, expired or already used."
            case .refused:
                notice = "Wrong username or password."
            case .inactive:
                notice = "This user is deactivated; ask the trainer (localorg user activate)."
            case .lockedOut:
                notice = "Too many failed sign-ins: this user is locked out for \(LockoutPolicy.lockoutSeconds / 60) minutes, or until the trainer runs localorg user unlock."
            }
        }
        let form = """
            \(notice.isEmpty ? "" : "<p class=\"notice\">\(htmlEscaped(notice))</p>")
            <form method="post" action="/setup/connect">
              <label>Code shown on your device <input name="user_code" value="\(htmlEscaped(prefilledCode))" autocomplete="off" required></label>
              <label>Username <input name="username" type="email" required></label>
              <label>Password <input name="password" type="password" required></label>
              <button name="action" value="approve">Connect</button> <button name="action" value="deny">Deny</button>
            </form>
            """
        return htmlPage(title: "Connect a device to localorg", body: form)
    }

    func htmlPage(title: String, body: String) -> APIResponse {
        let page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(htmlEscaped(title))</title>
            <style>body{font-family:sans-serif;max-width:28em;margin:3em auto}label{display:block;margin:.8em 0}input{display:block;width:100%}.notice{color:#a00}</style>
            </head><body><h1>\(htmlEscaped(title))</h1>
            \(body)
            </body></html>
            """
        return APIResponse(status: 200, headers: [("Content-Type", "text/html;charset=UTF-8"), ("Cache-Control", "no-store")], body: Array(page.utf8))
    }
}

/// Escapes text for HTML element content and attribute values.
func htmlEscaped(_ text: String) -> String {
    var result = ""
    for character in text {
        switch character {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&#39;"
        default: result.append(character)
        }
    }
    return result
}
