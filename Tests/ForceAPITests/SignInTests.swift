import ForceAPI
import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

@Suite("Signing in to a real localorg over HTTPS", .serialized)
struct SignInTests {
    @Test("The password flow returns tokens, and the identity URL says who signed in")
    func passwordFlow() async throws {
        let server = try await LocalOrgProcess()
        defer { server.remove() }
        let oauth = OAuthClient(loginURL: server.url + "/", transport: CurlTransport(configuration: SignedInOrg.configuration(caFile: server.caFile)))
        let token = try await oauth.signIn(username: "trainer@localorg.test", password: Secret("localorg-trainer"))
        #expect(token.instanceURL == server.url)
        #expect(token.refreshToken != nil)
        let identity = try await oauth.identity(of: token)
        #expect(identity.username == "trainer@localorg.test")
        #expect(identity.userId.hasPrefix("005"))
        #expect(identity.organizationId.hasPrefix("00D"))
    }

    @Test("A wrong password is refused with invalid_grant, and the password is not in the error")
    func wrongPassword() async throws {
        let server = try await LocalOrgProcess()
        defer { server.remove() }
        let oauth = OAuthClient(loginURL: server.url, transport: CurlTransport(configuration: SignedInOrg.configuration(caFile: server.caFile)))
        let error = await forceError { try await oauth.signIn(username: "demo@localorg.test", password: Secret("wrong-Secret-42")) }
        #expect(error == .authentication(error: "invalid_grant", description: "authentication failure"))
        #expect(!"\(String(describing: error))".contains("wrong-Secret-42"))
    }

    @Test("The device flow: the code is approved with localorg approve, polling then gets tokens")
    func deviceFlowApproved() async throws {
        let server = try await LocalOrgProcess()
        defer { server.remove() }
        let oauth = OAuthClient(loginURL: server.url, transport: CurlTransport(configuration: SignedInOrg.configuration(caFile: server.caFile)))
        let authorization = try await oauth.startDeviceFlow()
        #expect(authorization.verificationURL.hasSuffix("/setup/connect"))
        #expect(authorization.userCode.count >= 6)
        let first = try await oauth.poll(authorization)
        guard case .pending = first else {
            Issue.record("expected pending before approval, got \(first)")
            return
        }
        try await server.command(["approve", authorization.userCode, "--as", "trainer@localorg.test"])
        let token = try await oauth.waitForApproval(authorization)
        let identity = try await oauth.identity(of: token)
        #expect(identity.username == "trainer@localorg.test")
        #expect(token.refreshToken != nil)
    }

    @Test("A denied device-flow sign-in ends with access_denied")
    func deviceFlowDenied() async throws {
        let server = try await LocalOrgProcess()
        defer { server.remove() }
        let oauth = OAuthClient(loginURL: server.url, transport: CurlTransport(configuration: SignedInOrg.configuration(caFile: server.caFile)))
        let authorization = try await oauth.startDeviceFlow()
        try await server.command(["approve", authorization.userCode, "--deny"])
        let error = await forceError { try await oauth.waitForApproval(authorization) }
        guard case let .authentication(code, _) = error else {
            Issue.record("expected an authentication error, got \(String(describing: error))")
            return
        }
        #expect(code == "access_denied")
    }

    @Test("Waiting for a device-flow approval stops when the task is cancelled")
    func deviceFlowCancelled() async throws {
        let server = try await LocalOrgProcess()
        defer { server.remove() }
        let oauth = OAuthClient(loginURL: server.url, transport: CurlTransport(configuration: SignedInOrg.configuration(caFile: server.caFile)))
        let authorization = try await oauth.startDeviceFlow()
        let waiting = Task { try await oauth.waitForApproval(authorization) }
        waiting.cancel()
        let result = await waiting.result
        guard case let .failure(error) = result else {
            Issue.record("expected cancellation")
            return
        }
        #expect(error as? ForceAPIError == .cancelled)
    }

    @Test("A device code past its expiry ends the wait with expired_token instead of polling forever")
    func deviceFlowExpired() async throws {
        let server = try await LocalOrgProcess()
        defer { server.remove() }
        let oauth = OAuthClient(loginURL: server.url, transport: CurlTransport(configuration: SignedInOrg.configuration(caFile: server.caFile)))
        var authorization = try await oauth.startDeviceFlow()
        authorization.expiresAt = Date().addingTimeInterval(1)
        let error = await forceError { try await oauth.waitForApproval(authorization) }
        guard case let .authentication(code, description) = error else {
            Issue.record("expected expiry, got \(String(describing: error))")
            return
        }
        #expect(code == "expired_token")
        #expect(description.contains("forceterm login"))
    }
}
