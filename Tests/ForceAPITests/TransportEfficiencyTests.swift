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
        // Four workers took turns; the connection the sign-in opened served them all.
        #expect(after.connectionsOpened - before.connectionsOpened == 0, "\(after)")
        #expect(after.connectionsOpened == 1, "\(after)")
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
