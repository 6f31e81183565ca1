import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// `forceterm status` lists the outbox: every unsent change with its age, tries and last error,
/// as the built binary prints it against a real localorg that goes away and comes back.
@Suite("forceterm status lists the unsent changes", .serialized)
struct OutboxStatusTests {
    @Test("Saved while the org is down: listed with the tries and why they failed, in text and JSON; gone once sent")
    func outboxWhileOffline() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 0, contacts: 1)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let port = user.server.port
        user.server.stop()
        #expect(try user.forceterm(["create", "contacts", "LastName=Tunnel", "FirstName=Tess"]).exitCode == 0)
        for _ in 0..<2 { #expect(try user.forceterm(["sync"]).exitCode != 0) }

        let (output, status) = try user.json(["status"])
        #expect(output.exitCode == 0, "\(output)")
        let outbox = try #require(status["outbox"]?.arrayValue)
        #expect(outbox.count == 1, "\(status)")
        let entry = try #require(outbox.first)
        #expect(entry["name"] == "Tess Tunnel" && entry["change"] == "create" && entry["soup"] == "contacts")
        #expect(entry["attempts"] == 2 && entry["lastError"]?.stringValue?.contains("connection refused") == true, "\(entry)")
        #expect((entry["waitingSeconds"]?.int64Value ?? -1) >= 0 && entry["since"]?.stringValue?.hasSuffix("Z") == true)
        let text = try user.forceterm(["status"]).standardOutput
        #expect(
            text.contains("Waiting to send (1), oldest first:") && text.contains("Tess Tunnel (local_") && text.contains("2 tries")
                && text.contains("sent by the next sync"), "\(text)")

        let back = try LocalOrgProcess(arguments: ["--port", String(port)], dataDirectory: user.server.dataDirectory)
        defer { back.stop() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let (_, after) = try user.json(["status"])
        #expect(after["outbox"]?.arrayValue?.isEmpty == true, "\(after)")
        #expect(try !user.forceterm(["status"]).standardOutput.contains("Waiting to send"))
    }
}
