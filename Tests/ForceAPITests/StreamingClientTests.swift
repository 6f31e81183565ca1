import ForceAPI
import ForceJSON
import Foundation
import LocalOrgProcess
import Synchronization
import Testing

/// forceterm's CometD client against the real localorg binary over HTTPS: the Streaming API's
/// handshake, subscriptions with replay, long polls, and what the client does when the server
/// forgets it, refuses a channel or no longer has the events asked for.
@Suite("The Streaming API client", .serialized)
struct StreamingClientTests {
    /// Everything the client said, in order.
    final class Heard: Sendable {
        private let news = Mutex<[StreamingNews]>([])
        func append(_ item: StreamingNews) { news.withLock { $0.append(item) } }
        var all: [StreamingNews] { news.withLock { $0 } }
        var notices: [ChangeNotice] {
            all.flatMap { news -> [ChangeNotice] in
                if case let .changes(notices) = news { return notices }
                return []
            }
        }

        /// Waits (polling) until `condition` holds of what was heard.
        func wait(_ what: String, timeout: Double = 30, _ condition: ([StreamingNews]) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(timeout)
            while ContinuousClock.now < deadline {
                if condition(all) { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("\(what): not within \(Int(timeout)) s; heard \(all)")
            throw CancellationError()
        }
    }

    static func listening(_ news: [StreamingNews]) -> Bool {
        news.contains { if case .listening = $0 { true } else { false } }
    }

    @Test("A change made in the org arrives with its header; one made by a named client says so; a client back after a drop replays what it missed")
    func changesArriveAndReplay() async throws {
        let org = try await SignedInOrg(serverArguments: ["--streaming-timeout", "2"])
        defer { org.remove() }
        let contact = try await org.client.create("Contact", fields: ["LastName": "Streamer"])
        let heard = Heard()
        let streaming = StreamingClient(client: org.client, holdSeconds: 2)
        let channel = StreamingClient.changeEventChannel(forObject: "Contact")
        #expect(channel == "/data/ContactChangeEvent" && StreamingClient.changeEventChannel(forObject: "Visit__c") == "/data/Visit__ChangeEvent")
        let listening = Task { await streaming.run(channels: [channel], replayFrom: [:]) { heard.append($0) } }
        try await heard.wait("subscribed", Self.listening)

        _ = try await org.server.command(["edit", "Contact", contact, "Title=Changed by the trainer"])
        try await heard.wait("the trainer's edit") { _ in heard.notices.contains { $0.recordIds == [contact] } }
        let edit = try #require(heard.notices.first { $0.recordIds == [contact] })
        #expect(edit.entityName == "Contact" && edit.changeType == "UPDATE" && edit.channel == channel)

        var named = org.client
        named.callOptionsClient = "forceterm/test1"
        try await named.update("Contact", id: contact, fields: ["Title": "Changed by this laptop"])
        try await heard.wait("this laptop's edit") { _ in heard.notices.count >= 2 }
        let own = try #require(heard.notices.last)
        #expect(own.wasMade(byClient: "forceterm/test1") && !own.wasMade(byClient: "forceterm/other") && !edit.wasMade(byClient: "forceterm/test1"))
        // Longer than a hold: the client polls again and again with nothing to hear, and stays subscribed.
        try await Task.sleep(for: .seconds(5))
        #expect(heard.notices.count == 2)
        listening.cancel()
        await listening.value

        // While away: two edits. Back from the last replay id heard, both arrive, in order.
        _ = try await org.server.command(["edit", "Contact", contact, "Title=While away 1"])
        _ = try await org.server.command(["edit", "Contact", contact, "Title=While away 2"])
        let again = Heard()
        let back = Task { await streaming.run(channels: [channel], replayFrom: [channel: own.replayId]) { again.append($0) } }
        try await again.wait("the missed edits replayed") { _ in again.notices.count >= 2 }
        #expect(again.notices.map(\.replayId) == [own.replayId + 1, own.replayId + 2], "\(again.notices)")
        back.cancel()
        await back.value
        streaming.shutdown()
    }

    @Test("A replay id the org no longer has: said, then subscribed for new events; a channel the org refuses: said, and the others still heard")
    func replayGoneAndRefusedChannel() async throws {
        let org = try await SignedInOrg(serverArguments: ["--streaming-timeout", "2", "--no-change-events", "Account"])
        defer { org.remove() }
        let heard = Heard()
        let streaming = StreamingClient(client: org.client, holdSeconds: 2)
        let contacts = "/data/ContactChangeEvent"
        let accounts = "/data/AccountChangeEvent"
        let task = Task { await streaming.run(channels: [contacts, accounts], replayFrom: [contacts: 999_999]) { heard.append($0) } }
        try await heard.wait("subscribed", Self.listening)
        let all = heard.all
        #expect(all.contains(.replayGone(channel: contacts)), "\(all)")
        #expect(all.contains { if case let .refused(channel, reason) = $0 { channel == accounts && reason.contains("does not exist") } else { false } }, "\(all)")
        #expect(all.contains(.listening(channels: [contacts])), "\(all)")
        let created = try await org.client.create("Contact", fields: ["LastName": "After the gap"])
        _ = try await org.client.create("Account", fields: ["Name": "Never announced"])
        try await heard.wait("the new contact") { _ in heard.notices.contains { $0.recordIds == [created] && $0.changeType == "CREATE" } }
        #expect(!heard.notices.contains { $0.entityName == "Account" })
        task.cancel()
        await task.value
        streaming.shutdown()
    }

    @Test("The server restarted and forgot the client: it handshakes again and resumes from the last replay id, losing nothing")
    func serverRestart() async throws {
        let org = try await SignedInOrg(serverArguments: ["--streaming-timeout", "2"])
        defer { org.remove() }
        let contact = try await org.client.create("Contact", fields: ["LastName": "Restart"])
        let heard = Heard()
        var streaming = StreamingClient(client: org.client, holdSeconds: 2)
        streaming.firstRetry = 0.2
        streaming.longestRetry = 1
        let channel = "/data/ContactChangeEvent"
        let task = Task { await streaming.run(channels: [channel], replayFrom: [:]) { heard.append($0) } }
        try await heard.wait("subscribed", Self.listening)
        _ = try await org.server.command(["edit", "Contact", contact, "Title=Before the restart"])
        try await heard.wait("the first edit") { _ in heard.notices.count == 1 }

        let port = org.server.port
        org.server.stop()
        // Made while the server is down (the command writes the org's database directly).
        _ = try await org.server.command(["edit", "Contact", contact, "Title=While the server was down"])
        try await heard.wait("the drop noticed") { news in news.contains { if case .interrupted = $0 { true } else { false } } }
        let restarted = try await LocalOrgProcess(arguments: ["--port", String(port), "--streaming-timeout", "2"], dataDirectory: org.server.dataDirectory)
        defer { restarted.stop() }
        try await heard.wait("the edit made while down, replayed", timeout: 60) { _ in heard.notices.count >= 2 }
        #expect(heard.notices.map(\.replayId) == [heard.notices[0].replayId, heard.notices[0].replayId + 1])
        task.cancel()
        await task.value
        streaming.shutdown()
    }
}
