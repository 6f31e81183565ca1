import ForceAPI
import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

@Suite("Sessions: refresh, revocation and secrecy", .serialized)
struct SessionTests {
    @Test("An expired access token is refreshed once and the request replayed, transparently")
    func expiredTokenRefreshed() async throws {
        let refreshed = LineLog()
        let org = try await SignedInOrg(serverArguments: ["--token-ttl", "30"], refreshed: refreshed)
        defer { org.remove() }
        let before = await org.client.credentials.accessToken
        // Token expiry has one-second granularity, so a 30-second token lives 29 to 30 s. The refreshed
        // token must outlive its replay even on a machine loaded by parallel suites (6 s was not enough
        // under a concurrent build, and 15 s once in a CI run of every suite), so the lifetime is
        // generous; wait past it.
        try await Task.sleep(for: .milliseconds(31_200))
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
        let org = try await SignedInOrg(serverArguments: ["--token-ttl", "15"])
        defer { org.remove() }
        let credentials = await org.client.credentials
        let secrets = [credentials.accessToken.revealed, try #require(credentials.refreshToken).revealed, SignedInOrg.password.revealed]
        try await Task.sleep(for: .milliseconds(16_200))
        _ = try await org.client.query("SELECT Id, Name FROM Account WHERE Name = 'x'")
        let notFound = await forceError { try await org.client.retrieve("Contact", id: "003Lo0000000zzzAAA") }
        let badQuery = await forceError { try await org.client.query("SELECT Nope FROM Contact") }
        try await org.oauth.revoke(try #require(credentials.refreshToken))
        let expired = await forceError { try await org.client.query("SELECT Id FROM Account") }
        let refreshedCredentials = await org.client.credentials
        var dumped = ""
        dump(refreshedCredentials, to: &dumped)
        let texts = org.log.lines + [notFound, badQuery, expired].map { String(describing: $0) }
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
