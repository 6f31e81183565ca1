import ForceAPI
import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

@Suite("Sessions: refresh, revocation and secrecy", .serialized)
struct SessionTests {
    @Test("An access token the org no longer takes is refreshed once and the request replayed, transparently")
    func expiredTokenRefreshed() async throws {
        let refreshed = LineLog()
        let org = try await SignedInOrg(refreshed: refreshed)
        defer { org.remove() }
        let before = await org.client.credentials.accessToken
        // Revoking the access token alone answers the next request with the 401 an expired one gets
        // (localorg's own tests cover expiry). Waiting out a short lifetime instead raced the
        // replay on a loaded machine: a CI run took longer than the refreshed token lived.
        try await org.oauth.revoke(before)
        let page = try await org.client.query("SELECT Id FROM Account LIMIT 1")
        #expect(page.done)
        let after = await org.client.credentials.accessToken
        #expect(after != before)
        #expect(refreshed.lines == [after.revealed])
        #expect(org.log.lines.filter { $0.contains(" 401 ") }.count == 1, "\(org.log.lines)")
    }

    @Test("A revoked refresh token ends the session with sessionExpired")
    func revokedRefreshToken() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let credentials = await org.client.credentials
        let refreshToken = try #require(credentials.refreshToken)
        try await org.oauth.revoke(refreshToken)
        let error = await forceError { try await org.client.query("SELECT Id FROM Account") }
        #expect(error == .sessionExpired)
        #expect("\(String(describing: error))".contains("forceterm login"))
    }

    @Test("No token or password text reaches logs, errors or descriptions")
    func noSecretsInOutput() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let credentials = await org.client.credentials
        let secrets = [credentials.accessToken.revealed, try #require(credentials.refreshToken).revealed, SignedInOrg.password.revealed]
        // The next request is refused and the session refreshed, so the refresh's texts are checked too.
        try await org.oauth.revoke(credentials.accessToken)
        _ = try await org.client.query("SELECT Id, Name FROM Account WHERE Name = 'x'")
        let notFound = await forceError { try await org.client.retrieve("Contact", id: "003Lo0000000zzzAAA") }
        let badQuery = await forceError { try await org.client.query("SELECT Nope FROM Contact") }
        try await org.oauth.revoke(try #require(credentials.refreshToken))
        let expired = await forceError { try await org.client.query("SELECT Id FROM Account") }
        let refreshedCredentials = await org.client.credentials
        var dumped = ""
        dump(refreshedCredentials, to: &dumped)
        let texts =
            org.log.lines + [notFound, badQuery, expired].map { String(describing: $0) }
            + ["\(credentials)", "\(refreshedCredentials)", dumped, "\(SignedInOrg.password)", String(reflecting: credentials.accessToken)]
        #expect(!org.log.lines.isEmpty)
        for text in texts {
            for secret in secrets + [refreshedCredentials.accessToken.revealed] {
                #expect(!text.contains(secret), "a secret leaked into: \(text)")
            }
        }
        #expect(dumped.contains("username"))
    }
}
