import ForceAPI
import ForceJSON
import Foundation
import Synchronization

/// A REST client signed in to a benchmark org, counting the HTTP requests it sends.
struct BenchSession: Sendable {
    let client: ForceClient
    let requests: RequestCounter

    /// Signs in with the password flow over HTTPS, trusting `caFile`. `maxConnections` is the
    /// transport's: over HTTP/1.1 it bounds how many requests a sync can have in flight.
    static func signIn(
        url: String, caFile: String, username: String = "demo@localorg.test",
        password: String = "localorg-demo", maxConnections: Int = 8
    ) async throws -> BenchSession {
        var configuration = TransportConfiguration(caFile: caFile)
        configuration.connectTimeout = 15
        configuration.stallTimeout = 60
        configuration.requestDeadline = 300
        configuration.maxConnections = maxConnections
        let transport = CurlTransport(configuration: configuration)
        let oauth = OAuthClient(loginURL: url, transport: transport)
        let token = try await oauth.signIn(username: username, password: Secret(password))
        let identity = try await oauth.identity(of: token)
        let counter = RequestCounter()
        let client = ForceClient(
            credentials: OAuthCredentials(
                loginURL: url, clientId: OAuthClient.defaultClientId, token: token,
                identity: identity, caFile: caFile),
            transport: transport, requestLog: { _ in counter.increment() })
        return BenchSession(client: client, requests: counter)
    }
}

extension BenchSession {
    /// The ids a query returns, following its pages.
    func ids(_ soql: String) async throws -> [String] {
        var ids: [String] = []
        var page = try await client.query(soql)
        while true {
            ids += page.records.compactMap { $0["Id"]?.stringValue }
            guard let next = page.nextRecordsURL else { return ids }
            page = try await client.queryMore(next)
        }
    }
}

/// HTTP requests sent through a `ForceClient`, as its request log reports them (retries included).
final class RequestCounter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }
    func reset() { count.withLock { $0 = 0 } }
    var value: Int { count.withLock { $0 } }
}

/// Measurements of the benchmark process itself.
enum ProcessMeasurements {
    /// The process's peak resident set (VmHWM), in megabytes. Each case runs in a fresh process,
    /// so one case never inherits another's peak.
    static func peakRSSMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").compactMap({ Double($0) }).first
        else { return .nan }
        return kilobytes / 1024
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
