import ForceAPI
import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// A real localorg over HTTPS on 127.0.0.1 and a ForceClient signed in to it with the password flow.
/// Timeouts are generous (the build machine is shared); tests of timeouts set their own.
struct SignedInOrg {
    let server: LocalOrgProcess
    let transport: CurlTransport
    let oauth: OAuthClient
    let client: ForceClient
    let log: LineLog

    static let username = "demo@localorg.test"
    static let password = Secret("localorg-demo")

    init(serverArguments: [String] = [], retryPolicy: RetryPolicy = RetryPolicy(), refreshed: LineLog? = nil) async throws {
        server = try await LocalOrgProcess(arguments: serverArguments)
        transport = CurlTransport(configuration: Self.configuration(caFile: server.caFile))
        oauth = OAuthClient(loginURL: server.url, transport: transport)
        var token = try await oauth.signIn(username: Self.username, password: Self.password)
        let identity: UserIdentity
        do {
            identity = try await oauth.identity(of: token)
        } catch ForceAPIError.sessionExpired {
            // With --token-ttl 1 the token can expire between sign-in and this call (whole seconds).
            token = try await oauth.refresh(try #require(token.refreshToken))
            identity = try await oauth.identity(of: token)
        }
        let credentials = OAuthCredentials(loginURL: server.url, clientId: OAuthClient.defaultClientId, token: token, identity: identity, caFile: server.caFile)
        let log = LineLog()
        self.log = log
        client = ForceClient(
            credentials: credentials, transport: transport, retryPolicy: retryPolicy,
            onCredentialsRefreshed: { refreshed?.append($0.accessToken.revealed) },
            requestLog: { log.append($0) })
    }

    static func configuration(caFile: String?) -> TransportConfiguration {
        var configuration = TransportConfiguration(caFile: caFile)
        configuration.connectTimeout = 15
        configuration.stallTimeout = 30
        configuration.requestDeadline = 60
        return configuration
    }

    /// Closes the client's connections, then stops the server and removes its data.
    func remove() {
        client.shutdown()
        server.remove()
    }
}

/// Lines collected across threads (request logs, refreshed tokens).
final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []
    func append(_ line: String) { lock.withLock { collected.append(line) } }
    var lines: [String] { lock.withLock { collected } }
}

/// Runs `body` and returns the ForceAPIError it threw (nil if it did not throw one).
func forceError<T>(_ body: () async throws -> T) async -> ForceAPIError? {
    do {
        _ = try await body()
        return nil
    } catch let error as ForceAPIError {
        return error
    } catch {
        return nil
    }
}
