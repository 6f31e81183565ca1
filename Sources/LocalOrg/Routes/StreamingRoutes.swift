import ForceJSON
import Foundation
import GRDB

/// The clients of the Streaming API, by Bayeux client id: who they are, what they subscribed to
/// and how far each subscription has been delivered. A client that stops coming back is
/// forgotten, so a server that many clients abandoned holds no more than one that none did.
actor BayeuxClients {
    struct Client: Sendable {
        var userId: String
        /// Channel → the last replay id delivered (or skipped as not this user's).
        var subscriptions: [String: Int64] = [:]
        var lastSeen: ContinuousClock.Instant
        var connects = 0
    }

    private var clients: [String: Client] = [:]
    private var lastPurge = ContinuousClock.now - .seconds(3600)

    /// Whether the old events are due to be forgotten (once a minute: a purge is a write).
    func purgeDue() -> Bool {
        guard ContinuousClock.now - lastPurge >= .seconds(60) else { return false }
        lastPurge = .now
        return true
    }

    func add(userId: String) -> String {
        let id = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        clients[id] = Client(userId: userId, lastSeen: .now)
        return id
    }

    /// The client, seen now; nil when unknown or forgotten.
    func touch(_ id: String) -> Client? {
        clients[id]?.lastSeen = .now
        return clients[id]
    }

    func update(_ id: String, _ change: (inout Client) -> Void) {
        guard var client = clients[id] else { return }
        change(&client)
        client.lastSeen = .now
        clients[id] = client
    }

    func remove(_ id: String) { clients[id] = nil }

    /// Forgets the clients not seen for `idle`.
    func prune(idle: Duration) {
        let now = ContinuousClock.now
        clients = clients.filter { now - $0.value.lastSeen < idle }
    }

    var count: Int { clients.count }
}

/// Salesforce's Streaming API at `/cometd/<version>`: Bayeux 1.0 over long polling (handshake,
/// connect, subscribe, unsubscribe, disconnect), authenticated by the OAuth bearer token, with
/// the replay extension, delivering Change Data Capture events on `/data/<Object>ChangeEvent` and
/// `/data/ChangeEvents`. Shapes follow Salesforce's Streaming API Developer Guide: "How the Client
/// Connects" (advice: timeout 110,000 ms, a client that does not reconnect is removed), "Streaming
/// API Error Codes" (the `400::…` texts), "Message Durability" (replay -1, -2 or an id; an id
/// outside the window is refused), and, for a token that no longer works, the `403::Handshake
/// denied` with `ext.sfdc.failureReason` `401::Authentication invalid` Salesforce has sent since
/// Spring '18.
extension LocalOrgAPI {
    var streamingTimeout: Duration { .milliseconds(settings.streamingTimeoutMilliseconds) }

    /// How many Streaming API clients the server holds now (handshaken and not yet forgotten).
    public var streamingClientCount: Int {
        get async {
            await streaming.prune(idle: streamingTimeout + .milliseconds(settings.streamingClientGraceMilliseconds))
            return await streaming.count
        }
    }

    func handleStreaming(_ request: APIRequest, version: String?) async throws -> APIResponse {
        await streaming.prune(idle: streamingTimeout + .milliseconds(settings.streamingClientGraceMilliseconds))
        let newest = "\(Self.supportedVersions.upperBound).0"
        guard let version else {
            return Self.bayeuxRefusal(400, "API version in the URI is mandatory. URI format: '/cometd/\(newest)'")
        }
        guard Self.supportedVersion(version[...], wholeOnly: false) != nil else {
            return Self.bayeuxRefusal(400, "Unsupported API version. Only API versions '\(Self.supportedVersions.lowerBound).0' and later are supported. URI format: '/cometd/\(newest)'")
        }
        guard request.method == "POST" else { return Self.bayeuxRefusal(400, "Bayeux messages are sent with POST") }
        let messages: [JSONObject]
        switch try? JSONParser.parse(request.body) {
        case let .array(items)? where !items.isEmpty && items.allSatisfy({ $0.objectValue?["channel"]?.stringValue != nil }):
            messages = items.compactMap(\.objectValue)
        case let .object(one)? where one["channel"]?.stringValue != nil:
            messages = [one]
        default:
            return Self.bayeuxRefusal(400, "The request is not a Bayeux message: a JSON array of objects, each with a channel")
        }
        let session = await authenticatedSession(request)
        var replies: [JSONValue] = []
        for message in messages {
            replies += try await answer(message, session: session)
        }
        return .json(.array(replies))
    }

    /// The request's session, or why there is none ("401::…", as the guide words it).
    private func authenticatedSession(_ request: APIRequest) async -> Result<Session, BayeuxFailure> {
        guard request.header("authorization") != nil else { return .failure(BayeuxFailure(reason: "401::Request requires authentication")) }
        do {
            return .success(try await authenticate(request))
        } catch {
            return .failure(BayeuxFailure(reason: "401::Authentication invalid"))
        }
    }

    struct BayeuxFailure: Error { let reason: String }

    private func answer(_ message: JSONObject, session: Result<Session, BayeuxFailure>) async throws -> [JSONValue] {
        let channel = message["channel"]?.stringValue ?? ""
        var reply: JSONObject = ["channel": .string(channel)]
        if let id = message["id"] { reply["id"] = id }
        let clientId = message["clientId"]?.stringValue
        if let clientId { reply["clientId"] = .string(clientId) }
        func refused(_ error: String, reconnect: String? = nil) -> [JSONValue] {
            var refusal = reply
            refusal["successful"] = false
            refusal["error"] = .string(error)
            if let reconnect { refusal["advice"] = ["reconnect": .string(reconnect), "interval": 0] }
            return [.object(refusal)]
        }
        if channel == "/meta/handshake" {
            guard case let .success(user) = session else {
                guard case let .failure(failure) = session else { return [] }
                var refusal = reply
                refusal["successful"] = false
                refusal["error"] = "403::Handshake denied"
                refusal["advice"] = ["reconnect": "none"]
                refusal["ext"] = ["sfdc": ["failureReason": .string(failure.reason)], "replay": true]
                return [.object(refusal)]
            }
            let types = message["supportedConnectionTypes"]?.arrayValue?.compactMap(\.stringValue) ?? ["long-polling"]
            guard types.contains("long-polling") else { return refused("400::Invalid connection type \(types.joined(separator: ","))") }
            if await streaming.purgeDue() { try? await store.purgeChangeEvents() }
            reply["clientId"] = .string(await streaming.add(userId: user.userId))
            reply["version"] = "1.0"
            reply["minimumVersion"] = "1.0"
            reply["supportedConnectionTypes"] = ["long-polling"]
            reply["successful"] = true
            reply["advice"] = advice
            reply["ext"] = ["replay": true, "payload.format": true]
            return [.object(reply)]
        }
        guard channel.hasPrefix("/meta/") else { return refused("403::Publish denied: change events are published by the org, not by clients") }
        guard let clientId, let client = await streaming.touch(clientId) else {
            return refused("403::Unknown client", reconnect: "handshake")
        }
        guard case let .success(user) = session, user.userId == client.userId else {
            if case let .failure(failure) = session { return refused(failure.reason, reconnect: "none") }
            return refused("401::Authentication invalid", reconnect: "none")
        }
        switch channel {
        case "/meta/subscribe", "/meta/unsubscribe":
            let subscription = message["subscription"]?.stringValue ?? ""
            reply["subscription"] = .string(subscription)
            guard !subscription.isEmpty else { return refused("400::Channel name not specified") }
            guard subscription.hasPrefix("/") else { return refused("400::Channel subscriptions must start with a leading '/'") }
            guard let objects = changeEventObjects(subscription, session: user) else {
                return refused("400::The channel you requested to subscribe to does not exist {\(subscription)}")
            }
            _ = objects
            if channel == "/meta/unsubscribe" {
                await streaming.update(clientId) { $0.subscriptions[subscription] = nil }
            } else {
                let asked = message["ext"]?.objectValue?["replay"]?.objectValue?[subscription]?.int64Value ?? -1
                let (newest, oldest) = try await store.replayBounds()
                let cursor: Int64
                switch asked {
                case -1: cursor = newest
                case -2: cursor = (oldest ?? newest + 1) - 1
                case let id where id >= 0 && id <= newest && id >= (oldest ?? newest + 1) - 1: cursor = id
                default:
                    return refused("400::The replayId {\(asked)} you provided was invalid.  Please provide a valid ID, -2 to replay all events, or -1 to replay only new events.")
                }
                await streaming.update(clientId) { $0.subscriptions[subscription] = cursor }
            }
            reply["successful"] = true
            return [.object(reply)]
        case "/meta/disconnect":
            await streaming.remove(clientId)
            reply["successful"] = true
            return [.object(reply)]
        case "/meta/connect":
            let connectionType = message["connectionType"]?.stringValue ?? "long-polling"
            guard connectionType == "long-polling" else { return refused("400::Invalid connection type \(connectionType)") }
            await streaming.update(clientId) { $0.connects += 1 }
            // The first connect is answered at once, as CometD servers do: the client learns the advice.
            let events = client.connects == 0 ? [] : try await waitForEvents(clientId: clientId, session: user)
            reply["successful"] = true
            reply["advice"] = advice
            return events + [.object(reply)]
        default:
            return refused("400::Unknown meta channel \(channel)")
        }
    }

    private var advice: JSONValue {
        ["interval": 0, "timeout": .int(Int64(settings.streamingTimeoutMilliseconds)), "reconnect": "retry"]
    }

    /// Objects no channel carries: those without change events at all, and those this org has not
    /// selected for Change Data Capture.
    private var undelivered: Set<String> { OrgStore.objectsWithoutChangeEvents.union(settings.objectsWithoutChangeEvents) }

    /// The objects whose events a channel carries, when it is a change event channel the user may
    /// subscribe to: `/data/ChangeEvents` every object the user may read, `/data/<Object>ChangeEvent`
    /// (`/data/Thing__ChangeEvent` for a custom object) that one.
    func changeEventObjects(_ channel: String, session: Session) -> Set<String>? {
        guard channel.hasPrefix("/data/") else { return nil }
        let name = String(channel.dropFirst("/data/".count))
        if name == "ChangeEvents" { return Set(schema.objects.map(\.name)).subtracting(undelivered) }
        let objectName: String
        if name.hasSuffix("__ChangeEvent") {
            objectName = String(name.dropLast("ChangeEvent".count)) + "c"
        } else if name.hasSuffix("ChangeEvent") {
            objectName = String(name.dropLast("ChangeEvent".count))
        } else {
            return nil
        }
        guard let object = schema.object(named: objectName), object.name == objectName,
            !undelivered.contains(object.name)
        else { return nil }
        return [object.name]
    }

    /// Holds the connect until an event this client may see arrives, or the timeout passes.
    private func waitForEvents(clientId: String, session: Session) async throws -> [JSONValue] {
        let deadline = ContinuousClock.now + streamingTimeout
        while true {
            guard let client = await streaming.touch(clientId) else { return [] }
            let (messages, cursors) = try await deliverable(client, session: session)
            if cursors != client.subscriptions { await streaming.update(clientId) { $0.subscriptions.merge(cursors) { _, new in new } } }
            if !messages.isEmpty || ContinuousClock.now >= deadline { return messages }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The events after each subscription's cursor that the user may see, as Bayeux messages, and
    /// the cursors past them (and past the events that are not this user's).
    private func deliverable(_ client: BayeuxClients.Client, session: Session) async throws -> ([JSONValue], [String: Int64]) {
        guard let from = client.subscriptions.values.min() else { return ([], client.subscriptions) }
        let events = try await store.changeEvents(after: from, objects: nil)
        guard !events.isEmpty else { return ([], client.subscriptions) }
        let rules = await self.rules.current()
        let access: FieldAccess = session.isAdmin ? .administrator : rules.isOn(.fieldLevelSecurity) ? session.fields : .standardUser
        let owner = settings.sharing == .private && !session.isAdmin ? session.userId : nil
        let visible = try await visibleEvents(events, owner: owner, access: access)
        var messages: [JSONValue] = []
        var cursors = client.subscriptions
        for (channel, cursor) in client.subscriptions {
            guard let objects = changeEventObjects(channel, session: session) else { continue }
            for event in visible where event.replayId > cursor && objects.contains(event.entityName) {
                messages.append(Self.message(event, channel: channel))
            }
            cursors[channel] = max(cursor, events.last?.replayId ?? cursor)
        }
        messages.sort { ($0["data"]?["event"]?["replayId"]?.int64Value ?? 0) < ($1["data"]?["event"]?["replayId"]?.int64Value ?? 0) }
        return (messages, cursors)
    }

    /// The events as this user sees them: only the records they may read, only the fields they may read.
    private func visibleEvents(_ events: [ChangeEvent], owner: String?, access: FieldAccess) async throws -> [ChangeEvent] {
        let store = self.store
        let schema = self.schema
        return try await store.read { db in
            events.compactMap { event -> ChangeEvent? in
                guard let object = schema.object(named: event.entityName) else { return nil }
                var seen = event
                if !event.changeType.hasPrefix("GAP_") {
                    seen.recordIds = event.recordIds.filter { id in
                        guard let record = try? store.fetchRecord(db, object: object, id: id) else { return false }
                        return (try? store.isVisible(db, record, object: object, to: owner)) ?? false
                    }
                    if seen.recordIds.isEmpty { return nil }
                }
                let readable = { (name: String) in object.field(named: name).map { access.canRead($0, in: object) } ?? false }
                seen.changedFields = event.changedFields.filter(readable)
                seen.fields = event.fields.filter { readable($0.key) }
                if event.changeType == "UPDATE" && !seen.changedFields.contains(where: { $0 != "LastModifiedDate" }) { return nil }
                return seen
            }
        }
    }

    /// An event as Salesforce delivers it over CometD.
    static func message(_ event: ChangeEvent, channel: String) -> JSONValue {
        var header: JSONObject = [
            "entityName": .string(event.entityName), "recordIds": .array(event.recordIds.map(JSONValue.string)),
            "changeType": .string(event.changeType), "changeOrigin": .string(event.changeOrigin),
            "transactionKey": .string(event.transactionKey), "sequenceNumber": .int(event.sequenceNumber),
            "commitTimestamp": .int(event.commitTimestamp), "commitNumber": .int(event.replayId), "commitUser": .string(event.commitUser),
        ]
        header["changedFields"] = .array(event.changedFields.map(JSONValue.string))
        header["diffFields"] = []
        header["nulledFields"] = .array(event.changeType == "UPDATE" ? event.fields.filter { $0.value.isNull }.map { .string($0.key) } : [])
        var payload: JSONObject = ["ChangeEventHeader": .object(header)]
        for (name, value) in event.fields { payload[name] = value }
        let created = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(event.commitTimestamp) / 1000))
        return [
            "channel": .string(channel),
            "data": [
                "schema": .string("localorg-\(event.entityName)ChangeEvent"), "payload": .object(payload),
                "event": ["replayId": .int(event.replayId), "createdDate": .string(created)],
            ],
        ]
    }

    /// A refusal before any message was read, in Bayeux's shape.
    static func bayeuxRefusal(_ status: Int, _ text: String) -> APIResponse {
        .json(.array([["successful": false, "error": .string("\(status)::\(text)")]]), status: status)
    }
}
