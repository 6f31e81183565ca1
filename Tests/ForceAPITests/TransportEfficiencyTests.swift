import ForceAPI
import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// What a slow link pays for: handshakes and bytes. A real localorg listening on a second
/// loopback address (so its certificate must name that address) and the real curl transport.
@Suite struct TransportEfficiencyTests {
    @Test func sequentialRequestsFromSeveralWorkersShareOneConnection() async throws {
        let org = try await SignedInOrg(serverArguments: ["--listen", "127.0.0.2"])
        defer { org.remove() }
        #expect(org.server.url.hasPrefix("https://127.0.0.2:"))
        let before = org.client.transferStatistics
        for _ in 0..<12 {
            _ = try await org.client.query("SELECT Id FROM Contact LIMIT 1")
        }
        let after = org.client.transferStatistics
        #expect(after.requests - before.requests == 12)
        // Four workers took turns; the connection the sign-in left open served them all. (How many
        // the sign-in itself opened is not the point: on a loaded machine a connect that timed out
        // is retried on a new connection, as it should be; seen once in CI, 2 instead of 1.)
        #expect(after.connectionsOpened - before.connectionsOpened == 0, "\(after)")
        #expect(before.connectionsOpened >= 1, "\(before)")
    }

    @Test func requestsInFlightTogetherShareOneHTTP2Connection() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let before = org.client.transferStatistics
        let answers = try await Self.queriesAtOnce(16, client: org.client)
        let after = org.client.transferStatistics
        #expect(answers == 16)
        #expect(after.requests - before.requests == 16)
        // All sixteen are streams of the connection the sign-in opened: no handshake of their own.
        #expect(after.connectionsOpened - before.connectionsOpened == 0, "\(after)")
    }

    @Test func anHTTP1ServerGetsAConnectionPerRequestInFlightUpToTheLimit() async throws {
        let org = try await SignedInOrg(serverArguments: ["--no-http2"])
        defer { org.remove() }
        let before = org.client.transferStatistics
        let answers = try await Self.queriesAtOnce(16, client: org.client)
        let after = org.client.transferStatistics
        #expect(answers == 16)
        let opened = after.connectionsOpened - before.connectionsOpened
        #expect(opened >= 1 && opened <= org.transport.configuration.maxConnections, "\(after)")
    }

    static func queriesAtOnce(_ count: Int, client: ForceClient) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count {
                group.addTask { try await client.query("SELECT COUNT() FROM Contact").totalSize >= 0 ? 1 : 0 }
            }
            return try await group.reduce(0, +)
        }
    }

    @Test func largeJSONBodiesTravelGzipped() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let description = (0..<200).map { "Visited on day \($0); all well." }.joined(separator: " ")
        let before = org.client.transferStatistics
        let id = try await org.client.create("Contact", fields: ["LastName": "Gzip", "Description": .string(description)])
        let sent = org.client.transferStatistics.bytesSent - before.bytesSent
        #expect(description.utf8.count > 5000)
        #expect(sent > 0 && sent < description.utf8.count / 4, "sent \(sent) bytes")
        let stored = try await org.client.retrieve("Contact", id: id, fields: ["Description"])
        #expect(stored["Description"]?.stringValue == description)
        // A small body goes as it is.
        let small = org.client.transferStatistics.bytesSent
        _ = try await org.client.create("Contact", fields: ["LastName": "Small"])
        let smallSent = org.client.transferStatistics.bytesSent - small
        #expect(smallSent > 0 && smallSent < 100, "sent \(smallSent) bytes")
    }

    @Test func aShutDownTransportRefusesRequestsAndShutsDownOnce() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        _ = try await org.client.query("SELECT Id FROM Contact LIMIT 1")
        org.client.shutdown()
        org.client.shutdown()
        let error = await forceError { try await org.client.query("SELECT Id FROM Contact LIMIT 1") }
        #expect(error == .cancelled)
    }
}
