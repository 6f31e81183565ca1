import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

/// The Streaming API at `/cometd/<version>`, called in-process: Bayeux's exchanges, the refusals
/// at the door as Salesforce words them, what each user receives, and clients that never come back.
@Suite("localorg's Streaming API: Bayeux, change events, bad input")
struct StreamingTests {
    /// Bayeux messages sent with `token` (the org's signed-in admin by default; "" sends none).
    func bayeux(_ org: TestOrg, _ messages: [JSONValue], version: String = "45.0", token: String? = nil) async -> (status: Int, replies: [JSONValue]) {
        let bearer = token ?? org.accessToken
        let response = await org.api.handle(
            APIRequest(
                method: "POST", path: "/cometd/\(version)", headers: bearer.isEmpty ? [:] : ["Authorization": "Bearer \(bearer)"],
                body: Array(JSONWriter.string(.array(messages)).utf8), baseURL: TestOrg.baseURL))
        return (response.status, (try? JSONParser.parse(response.body))?.arrayValue ?? [])
    }

    func handshake(_ org: TestOrg, token: String? = nil) async throws -> String {
        let (_, replies) = await bayeux(org, [["channel": "/meta/handshake", "version": "1.0", "supportedConnectionTypes": ["long-polling"]]], token: token)
        return try #require(replies.first?["clientId"]?.stringValue, "\(replies)")
    }

    func subscribe(_ org: TestOrg, _ clientId: String, _ channel: String, replay: Int64 = -1, token: String? = nil) async -> JSONValue? {
        await bayeux(
            org,
            [
                [
                    "channel": "/meta/subscribe", "clientId": .string(clientId), "subscription": .string(channel),
                    "ext": ["replay": .object([channel: .int(replay)])],
                ]
            ], token: token
        ).replies.first
    }

    func connect(_ org: TestOrg, _ clientId: String, token: String? = nil) async -> [JSONValue] {
        await bayeux(org, [["channel": "/meta/connect", "clientId": .string(clientId), "connectionType": "long-polling"]], token: token).replies
    }

    @Test("Refusals at the door: malformed messages, no version, no token, a revoked token, an unknown client or channel, a replay id outside the window")
    func refusals() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let malformed = await org.api.handle(
            APIRequest(
                method: "POST", path: "/cometd/45.0", headers: ["Authorization": "Bearer \(org.accessToken)"],
                body: Array("{not json".utf8), baseURL: TestOrg.baseURL))
        #expect(malformed.status == 400 && malformed.bodyText.contains("400::The request is not a Bayeux message"), "\(malformed.bodyText)")
        let noVersion = await org.api.handle(APIRequest(method: "POST", path: "/cometd", body: Array("[]".utf8), baseURL: TestOrg.baseURL))
        #expect(noVersion.bodyText.contains("400::API version in the URI is mandatory. URI format: '/cometd/"))
        let old = await bayeux(org, [["channel": "/meta/handshake"]], version: "12.0")
        #expect(old.status == 400 && old.replies.first?["error"]?.stringValue?.hasPrefix("400::Unsupported API version") == true)

        let anonymous = await bayeux(org, [["channel": "/meta/handshake", "id": "1"]], token: "")
        #expect(anonymous.replies.first?["error"] == "403::Handshake denied" && anonymous.replies.first?["id"] == "1")
        #expect(anonymous.replies.first?["ext"]?["sfdc"]?["failureReason"] == "401::Request requires authentication")
        #expect(anonymous.replies.first?["advice"]?["reconnect"] == "none")
        let forged = await bayeux(org, [["channel": "/meta/handshake"]], token: "00D000000000001!nonsense")
        #expect(forged.replies.first?["ext"]?["sfdc"]?["failureReason"] == "401::Authentication invalid")

        let clientId = try await handshake(org)
        let unknownChannel = await subscribe(org, clientId, "/topic/InvoiceUpdates")
        #expect(unknownChannel?["error"] == "400::The channel you requested to subscribe to does not exist {/topic/InvoiceUpdates}")
        #expect(await subscribe(org, clientId, "/data/NothingChangeEvent")?["successful"] == false)
        #expect(await subscribe(org, clientId, "/data/RecordTypeChangeEvent")?["successful"] == false, "Salesforce has no change events for record types")
        #expect(await subscribe(org, clientId, "data/ContactChangeEvent")?["error"] == "400::Channel subscriptions must start with a leading '/'")
        let future = await subscribe(org, clientId, "/data/ContactChangeEvent", replay: 1_000_000)
        #expect(future?["error"]?.stringValue?.hasPrefix("400::The replayId {1000000} you provided was invalid.") == true)
        let unknownClient = await connect(org, "no-such-client").first
        #expect(unknownClient?["error"] == "403::Unknown client" && unknownClient?["advice"]?["reconnect"] == "handshake")
        let publish = await bayeux(org, [["channel": "/data/ContactChangeEvent", "clientId": .string(clientId), "data": [:]]]).replies.first
        #expect(publish?["successful"] == false)

        // The token revoked while the client is connected: its next connect says so, and not to reconnect.
        #expect(await org.call("POST", "/services/oauth2/revoke?token=\(org.accessToken)").status == 200)
        let revoked = await connect(org, clientId).first
        #expect(revoked?["error"] == "401::Authentication invalid" && revoked?["advice"]?["reconnect"] == "none", "\(String(describing: revoked))")
    }

    @Test("A connect is held until an event the user may see arrives; each user only their records; replay -2 and an id bring the past again")
    func eventsPerUser() async throws {
        let admin = try await TestOrg(sharing: .private, streamingTimeoutMilliseconds: 1_500)
        defer { admin.remove() }
        let trainer = try await admin.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        let clientId = try await handshake(trainer, token: trainer.accessToken)
        #expect(await subscribe(trainer, clientId, "/data/ContactChangeEvent", token: trainer.accessToken)?["successful"] == true)
        #expect(await connect(trainer, clientId, token: trainer.accessToken).count == 1, "the first connect is answered at once")

        _ = try await admin.create("Contact", #"{"LastName":"Not the trainer's"}"#)
        let started = ContinuousClock.now
        let quiet = await connect(trainer, clientId, token: trainer.accessToken)
        #expect(quiet.count == 1 && quiet.first?["channel"] == "/meta/connect", "another user's record is not the trainer's to hear of: \(quiet)")
        #expect(ContinuousClock.now - started >= .milliseconds(1_400), "held for the advice's timeout")

        let account = try await trainer.create("Account", #"{"Name":"Trainer's"}"#)
        let own = try await trainer.create("Contact", #"{"LastName":"Ours","AccountId":"\#(account)"}"#)
        let delivered = await connect(trainer, clientId, token: trainer.accessToken)
        let event = try #require(delivered.first { $0["channel"] == "/data/ContactChangeEvent" }, "\(delivered)")
        #expect(event["data"]?["payload"]?["ChangeEventHeader"]?["recordIds"] == .array([.string(own)]))
        #expect(event["data"]?["payload"]?["ChangeEventHeader"]?["changeType"] == "CREATE")
        #expect(event["data"]?["payload"]?["LastName"] == "Ours")
        #expect(delivered.allSatisfy { $0["channel"] != "/data/AccountChangeEvent" }, "only the channel subscribed to")
        let replayId = try #require(event["data"]?["event"]?["replayId"]?.int64Value)

        // A second client replays everything kept (-2), then from an id: the trainer's event again, never the admin's.
        let replaying = try await handshake(trainer, token: trainer.accessToken)
        #expect(await subscribe(trainer, replaying, "/data/ChangeEvents", replay: -2, token: trainer.accessToken)?["successful"] == true)
        _ = await connect(trainer, replaying, token: trainer.accessToken)
        let past = await connect(trainer, replaying, token: trainer.accessToken).filter { $0["channel"] == "/data/ChangeEvents" }
        let ids = past.compactMap { $0["data"]?["payload"]?["ChangeEventHeader"]?["recordIds"]?.arrayValue?.first?.stringValue }
        #expect(ids.contains(own) && ids.contains(account) && ids.allSatisfy { $0 == own || $0 == account || $0.hasPrefix("005") }, "\(ids) \(past)")
        let fromId = try await handshake(trainer, token: trainer.accessToken)
        _ = await subscribe(trainer, fromId, "/data/ContactChangeEvent", replay: replayId - 1, token: trainer.accessToken)
        _ = await connect(trainer, fromId, token: trainer.accessToken)
        let again = await connect(trainer, fromId, token: trainer.accessToken).first { $0["channel"] == "/data/ContactChangeEvent" }
        #expect(again?["data"]?["event"]?["replayId"]?.int64Value == replayId)
    }

    @Test("Clients that never come back are forgotten once the advice's deadline has passed: the server holds none of them")
    func abandonedClients() async throws {
        let org = try await TestOrg(streamingTimeoutMilliseconds: 200, streamingClientGraceMilliseconds: 4_800)
        defer { org.remove() }
        for _ in 0..<100 { _ = try await handshake(org) }
        // Under load the first may already be past the deadline when the last is made; the last is held.
        #expect((1...100).contains(await org.api.streamingClientCount))
        try await Task.sleep(for: .milliseconds(5_300))
        #expect(await org.api.streamingClientCount == 0)
        let late = try await handshake(org)
        try await Task.sleep(for: .milliseconds(5_300))
        #expect(await connect(org, late).first?["error"] == "403::Unknown client", "a client back too late hands shake again")
    }

    @Test("A snapshot restore sends a gap event per object, with replay ids that go on rising")
    func restoreIsAGap() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let snapshots = OrgSnapshots(orgDirectory: OrgDirectory(path: org.directory))
        _ = try snapshots.save("before", from: org.store)
        _ = try await org.create("Account", #"{"Name":"After the snapshot"}"#)
        let (newest, _) = try await org.store.replayBounds()
        _ = try snapshots.restore("before", into: org.store)
        let gaps = try await org.store.changeEvents(after: newest, objects: ["Contact", "Account"])
        #expect(Set(gaps.map(\.entityName)) == ["Contact", "Account"] && gaps.allSatisfy { $0.changeType == "GAP_OVERFLOW" && $0.replayId > newest })
        #expect(gaps.first { $0.entityName == "Contact" }?.recordIds == ["003*"])
    }
}
