import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

@Suite struct OAuthTests {
    func form(_ org: TestOrg, _ body: String, path: String = "/services/oauth2/token") async -> APIResponse {
        await org.api.handle(
            APIRequest(
                method: "POST", path: path, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(body.utf8), baseURL: TestOrg.baseURL))
    }

    @Test func passwordGrantGivesSalesforceShapedTokens() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let response = await form(org, "grant_type=password&client_id=forceterm&username=DEMO%40localorg.test&password=localorg-demo")
        #expect(response.status == 200)
        let body = try JSONParser.parse(response.body)
        #expect(body["instance_url"] == "https://localhost:8443")
        #expect(body["token_type"] == "Bearer")
        let id = try #require(body["id"]?.stringValue)
        #expect(id.hasPrefix("https://localhost:8443/id/00D"))
        #expect(body["issued_at"]?.stringValue.flatMap(Int64.init) != nil)
        #expect(body["access_token"]?.stringValue?.hasPrefix("00D") == true)
    }

    @Test(arguments: [
        ("grant_type=password&client_id=forceterm&username=demo%40localorg.test&password=wrong", "invalid_grant", "authentication failure"),
        ("grant_type=password&client_id=forceterm&username=nobody%40localorg.test&password=x", "invalid_grant", "authentication failure"),
        ("grant_type=password&client_id=someone-else&username=demo%40localorg.test&password=localorg-demo", "invalid_client_id", "client identifier invalid"),
        ("grant_type=telepathy&client_id=forceterm", "unsupported_grant_type", "grant type not supported"),
        ("grant_type=refresh_token&client_id=forceterm&refresh_token=00D!bogus.bogus", "invalid_grant", "expired access/refresh token"),
    ])
    func badGrantsGetFlatOAuthErrors(body: String, error: String, description: String) async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let response = await form(org, body)
        #expect(response.status == 400)
        #expect(try JSONParser.parse(response.body) == ["error": .string(error), "error_description": .string(description)])
    }

    @Test func expiredAccessTokensGetTheExact401() async throws {
        let org = try await TestOrg(tokenLifetime: 1)
        defer { org.remove() }
        try await Task.sleep(for: .milliseconds(2100))
        let expired = await org.call("GET", "/services/data/v59.0/sobjects")
        #expect(expired.status == 401)
        #expect(expired.bodyText == #"[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]"#)
        #expect(expired.header("Content-Type") == "application/json;charset=UTF-8")
    }

    /// Expiry has one-second granularity, so refresh is checked with tokens that cannot expire mid-test.
    @Test func refreshIssuesAWorkingTokenAndRevokeEndsIt() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let login = try JSONParser.parse(await form(org, "grant_type=password&client_id=forceterm&username=demo%40localorg.test&password=localorg-demo").body)
        let refresh = try #require(login["refresh_token"]?.stringValue)
        let refreshed = try JSONParser.parse(
            await form(org, "grant_type=refresh_token&client_id=forceterm&refresh_token=\(refresh.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")").body)
        let token = try #require(refreshed["access_token"]?.stringValue)
        #expect(token != login["access_token"]?.stringValue)
        #expect(refreshed["refresh_token"] == nil)
        let fresh = await org.api.handle(APIRequest(method: "GET", path: "/services/data/v59.0/limits/", headers: ["Authorization": "Bearer \(token)"], baseURL: TestOrg.baseURL))
        #expect(fresh.status == 200)
        // Revoking the refresh token revokes the access tokens made from it.
        let revoke = await form(org, "token=\(refresh.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")", path: "/services/oauth2/revoke")
        #expect(revoke.status == 200 && revoke.body.isEmpty)
        let after = await org.api.handle(APIRequest(method: "GET", path: "/services/data/v59.0/limits/", headers: ["Authorization": "Bearer \(token)"], baseURL: TestOrg.baseURL))
        #expect(after.status == 401)
    }

    @Test func tamperedTokensAndHeadersAreRefused() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        var tampered = org.accessToken
        tampered.removeLast()
        tampered.append(org.accessToken.last == "A" ? "B" : "A")
        for header in ["Bearer \(tampered)", "Bearer ", "Bearer nonsense"] {
            let response = await org.api.handle(APIRequest(method: "GET", path: "/services/data/v59.0/", headers: ["Authorization": header], baseURL: TestOrg.baseURL))
            #expect(response.status == 401)
            #expect(try JSONParser.parse(response.body).firstErrorCode == "INVALID_SESSION_ID")
        }
        let basic = await org.api.handle(APIRequest(method: "GET", path: "/services/data/v59.0/", headers: ["Authorization": "Basic abc"], baseURL: TestOrg.baseURL))
        #expect(try JSONParser.parse(basic.body).firstErrorCode == "INVALID_AUTH_HEADER")
    }

    @Test func userinfoAndIdentityDescribeTheSignedInUser() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let userinfo = try JSONParser.parse(await org.call("GET", "/services/oauth2/userinfo").body)
        #expect(userinfo["preferred_username"] == "demo@localorg.test")
        let identityURL = try #require(userinfo["sub"]?.stringValue)
        let path = String(identityURL.dropFirst(TestOrg.baseURL.count))
        let identity = try JSONParser.parse(await org.call("GET", path).body)
        for key in ["username", "email", "first_name", "last_name", "display_name", "id", "user_id", "organization_id", "nick_name", "user_type", "language", "locale", "last_modified_date"] {
            #expect(identity[key] != nil, "identity lacks \(key)")
        }
        let noToken = await org.api.handle(APIRequest(method: "GET", path: "/services/oauth2/userinfo", baseURL: TestOrg.baseURL))
        #expect(noToken.status == 403 && noToken.bodyText == "Bad_OAuth_Token")
    }

    @Test func aConnectedAppsMobilePolicyComesWithTheIdentityAndOnlyThen() async throws {
        let plain = try await TestOrg()
        defer { plain.remove() }
        let plainPath = try #require(JSONParser.parse(await plain.call("GET", "/services/oauth2/userinfo").body)["sub"]?.stringValue)
        #expect(try JSONParser.parse(await plain.call("GET", String(plainPath.dropFirst(TestOrg.baseURL.count))).body)["mobile_policy"] == nil)

        let org = try await TestOrg(mobilePolicy: OrgSettings.MobilePolicy(pinLength: 6, screenLockMinutes: 10))
        defer { org.remove() }
        let path = try #require(JSONParser.parse(await org.call("GET", "/services/oauth2/userinfo").body)["sub"]?.stringValue)
        let identity = try JSONParser.parse(await org.call("GET", String(path.dropFirst(TestOrg.baseURL.count))).body)
        #expect(identity["mobile_policy"] == ["pin_length": 6, "screen_lock": 10])
    }

    @Test func eachConnectedAppSendsItsOwnMobilePolicyFromConnectedAppsJSON() async throws {
        let directory = OrgDirectory(path: NSTemporaryDirectory() + "localorg-policies-" + UUID().uuidString)
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        try """
        {"connectedApps": [
          {"clientId": "field-app", "clientSecret": "s1", "mobilePolicy": {"pinLength": 8, "screenLock": 5}},
          {"clientId": "kiosk-app", "clientSecret": "s2", "mobilePolicy": {}},
          {"clientId": "plain-app", "clientSecret": "s3"}
        ]}
        """.write(toFile: directory.connectedAppsPath, atomically: true, encoding: .utf8)
        let policies = try directory.connectedAppPolicies()
        #expect(policies == ["field-app": OrgSettings.MobilePolicy(pinLength: 8, screenLockMinutes: 5), "kiosk-app": OrgSettings.MobilePolicy()])

        let org = try await TestOrg(
            connectedApps: try directory.connectedApps(), mobilePolicy: OrgSettings.MobilePolicy(pinLength: 6),
            connectedAppPolicies: policies)
        defer { org.remove() }
        func policy(signingInWith client: String, secret: String?) async throws -> JSONValue? {
            let grant = "grant_type=password&username=demo%40localorg.test&password=localorg-demo&client_id=\(client)" + (secret.map { "&client_secret=\($0)" } ?? "")
            let login = try JSONParser.parse(await form(org, grant).body)
            let identity = try #require(login["id"]?.stringValue, "\(login)")
            let answer = await org.api.handle(
                APIRequest(
                    method: "GET", path: String(identity.dropFirst(TestOrg.baseURL.count)),
                    headers: ["Authorization": "Bearer " + (login["access_token"]?.stringValue ?? "")], baseURL: TestOrg.baseURL))
            return try JSONParser.parse(answer.body)["mobile_policy"]
        }
        #expect(try await policy(signingInWith: "field-app", secret: "s1") == ["pin_length": 8, "screen_lock": 5])
        #expect(try await policy(signingInWith: "kiosk-app", secret: "s2") == nil, "an empty policy: none")
        #expect(try await policy(signingInWith: "plain-app", secret: "s3") == ["pin_length": 6], "serve's, for an app without its own")
        #expect(try await policy(signingInWith: "forceterm", secret: nil) == ["pin_length": 6], "and for the built-in app")

        try #"{"connectedApps": [{"clientId": "bad", "clientSecret": "s", "mobilePolicy": {"pinLength": 3}}]}"#
            .write(toFile: directory.connectedAppsPath, atomically: true, encoding: .utf8)
        #expect { try directory.connectedAppPolicies() } throws: { "\($0)".contains("bad's mobilePolicy: the pin length is between 4 and 64") }
        try #"{"connectedApps": [{"clientId": "bad", "clientSecret": "s", "mobilePolicy": {"pin_length": 6}}]}"#
            .write(toFile: directory.connectedAppsPath, atomically: true, encoding: .utf8)
        #expect { try directory.connectedAppPolicies() } throws: { "\($0)".contains("takes pinLength (characters) and screenLock (minutes)") }
    }

    @Test func passwordsAreHashedAndVerified() throws {
        let hash = try PasswordHasher.hash("s3cret é")
        #expect(hash.hasPrefix("pbkdf2-sha256$210000$"))
        #expect(!hash.contains("s3cret"))
        #expect(PasswordHasher.verify("s3cret é", against: hash))
        #expect(!PasswordHasher.verify("s3cret e", against: hash))
        #expect(try PasswordHasher.hash("same") != PasswordHasher.hash("same"))
    }

    @Test func theDailyLimitEndsInRequestLimitExceeded() async throws {
        let org = try await TestOrg(apiLimit: 2)
        defer { org.remove() }
        #expect(await org.call("GET", "/services/data/v59.0/limits").header("Sforce-Limit-Info") == "api-usage=1/2")
        #expect(await org.call("GET", "/services/data/v59.0/limits").status == 200)
        let refused = await org.call("GET", "/services/data/v59.0/limits")
        #expect(refused.status == 403)
        #expect(try JSONParser.parse(refused.body) == [["message": "TotalRequests Limit exceeded.", "errorCode": "REQUEST_LIMIT_EXCEEDED"]])
    }

    @Test func introspectionSaysWhetherAnAppsTokenIsActiveAndNothingMore() async throws {
        let org = try await TestOrg(connectedApps: ["training-app": "s3cret"])
        defer { org.remove() }
        let login = try JSONParser.parse(await form(org, "grant_type=password&client_id=forceterm&username=demo%40localorg.test&password=localorg-demo").body)
        let access = try #require(login["access_token"]?.stringValue)
        let refresh = try #require(login["refresh_token"]?.stringValue)
        let encoded = { (token: String) in token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        let introspect = { (body: String) async throws -> JSONValue in
            try JSONParser.parse(await self.form(org, body, path: "/services/oauth2/introspect").body)
        }
        let active = try await introspect("token=\(encoded(access))&token_type_hint=access_token&client_id=forceterm")
        #expect(active["active"] == true && active["token_type"] == "access_token" && active["client_id"] == "forceterm")
        #expect(active["username"] == "demo@localorg.test" && active["scope"] == "api refresh_token")
        #expect(active["sub"]?.stringValue?.hasPrefix("https://localhost:8443/id/00D") == true)
        let issued = try #require(active["iat"]?.int64Value)
        let expires = try #require(active["exp"]?.int64Value)
        #expect(active["nbf"]?.int64Value == issued && expires > issued)
        // A refresh token, found without the hint; it has no expiry.
        let refreshAnswer = try await introspect("token=\(encoded(refresh))&client_id=forceterm")
        #expect(refreshAnswer["active"] == true && refreshAnswer["token_type"] == "refresh_token" && refreshAnswer["exp"] == nil)
        // Another app's token, a bogus one and a revoked one: inactive, and nothing else said.
        let otherApp = try await introspect("token=\(encoded(access))&client_id=training-app&client_secret=s3cret")
        #expect(otherApp == ["active": false])
        #expect(try await introspect("token=00D!bogus.bogus&client_id=forceterm") == ["active": false])
        _ = await form(org, "token=\(encoded(access))", path: "/services/oauth2/revoke")
        #expect(try await introspect("token=\(encoded(access))&client_id=forceterm") == ["active": false])
        // The asking app must be one of the org's, with its secret.
        #expect(try await introspect("token=\(encoded(refresh))&client_id=training-app&client_secret=wrong")["error"] == "invalid_client")
        #expect(try await introspect("token=\(encoded(refresh))&client_id=nobody")["error"] == "invalid_client_id")
    }

    @Test func configuredConnectedAppsNeedTheirSecret() async throws {
        let org = try await TestOrg(connectedApps: ["training-app": "s3cret"])
        defer { org.remove() }
        let grant = "grant_type=password&username=demo%40localorg.test&password=localorg-demo&client_id=training-app"
        #expect(await form(org, grant + "&client_secret=s3cret").status == 200)
        #expect(try JSONParser.parse(await form(org, grant + "&client_secret=wrong").body)["error"] == "invalid_client")
        #expect(try JSONParser.parse(await form(org, grant).body)["error"] == "invalid_client")
        // HTTP Basic client authentication works too.
        let basic = await org.api.handle(
            APIRequest(
                method: "POST", path: "/services/oauth2/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic dHJhaW5pbmctYXBwOnMzY3JldA=="],
                body: Array("grant_type=password&username=demo%40localorg.test&password=localorg-demo".utf8), baseURL: TestOrg.baseURL))
        #expect(basic.status == 200)
    }

    @Test func usersSetTheirPasswordAndAdminsResetOthers() async throws {
        let admin = try await TestOrg()
        defer { admin.remove() }
        let trainer = try await admin.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        let trainerId = try #require(try admin.store.userId(username: "trainer@localorg.test"))
        let adminId = try #require(try admin.store.userId(username: "demo@localorg.test"))
        #expect(await trainer.call("POST", "/services/data/v59.0/sobjects/User/\(trainerId)/password", body: #"{"NewPassword":"short"}"#).status == 400)
        #expect(await trainer.call("POST", "/services/data/v59.0/sobjects/User/\(trainerId)/password", body: #"{"NewPassword":"a longer secret"}"#).status == 204)
        #expect(await trainer.call("POST", "/services/data/v59.0/sobjects/User/\(adminId)/password", body: #"{"NewPassword":"taking over"}"#).status == 400)
        _ = try await TestOrg.signIn(admin.api, username: "trainer@localorg.test", password: "a%20longer%20secret")
        let reset = try JSONParser.parse(await admin.call("DELETE", "/services/data/v59.0/sobjects/User/\(trainerId)/password").body)
        let generated = try #require(reset["NewPassword"]?.stringValue)
        _ = try await TestOrg.signIn(admin.api, username: "trainer@localorg.test", password: generated)
        #expect(try JSONParser.parse(await admin.call("GET", "/services/data/v59.0/sobjects/User/\(trainerId)/password").body)["isExpired"] == false)
    }
}
