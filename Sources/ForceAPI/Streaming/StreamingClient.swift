import ForceJSON
import Foundation

/// What one Change Data Capture event says changed: the header, not the fields (what a store
/// holds is for its sync down to decide, under the user's field-level security).
public struct ChangeNotice: Sendable, Equatable {
    public let channel: String
    public let replayId: Int64
    public let entityName: String
    /// CREATE, UPDATE, DELETE, UNDELETE, or a gap (`GAP_UPDATE`, `GAP_OVERFLOW`, …): the server
    /// lost track of what changed, so only a sync says.
    public let changeType: String
    public let recordIds: [String]
    /// `com/salesforce/api/rest/62.0;client=<Sforce-Call-Options client>`; empty for changes
    /// made in the org's own pages.
    public let changeOrigin: String
    public let commitUser: String

    /// Whether the change was made by a request sent with `Sforce-Call-Options: client=<client>`.
    public func wasMade(byClient client: String) -> Bool {
        changeOrigin.split(separator: ";").contains { $0 == "client=\(client)" }
    }
}

/// What the streaming client tells its listener.
public enum StreamingNews: Sendable, Equatable {
    /// Subscribed (again, after a drop) and listening.
    case listening(channels: [String])
    case changes([ChangeNotice])
    /// The events since the replay id asked for are gone from the org (older than its window):
    /// some changes may never be announced, so a sync must look.
    case replayGone(channel: String)
    /// The org will not deliver this channel's events (no Change Data Capture for the object, no
    /// permission): its changes come only when a sync runs.
    case refused(channel: String, reason: String)
    /// The connection failed; the client tries again after `retryIn` seconds.
    case interrupted(reason: String, retryIn: Double)
}

/// Salesforce's Streaming API as a CometD long-polling client: handshake, subscribe (with the
/// replay extension, so a drop loses no event), connect held open by the server until events come
/// or its advised timeout passes, and again. Messages follow the Streaming API Developer Guide
/// ("How the Client Connects", "Message Durability", "Streaming API Error Codes"); cookies the
/// server sets are sent back, as its load balancer expects.
///
/// Long polls use a transport of their own: a held poll moves no bytes for up to the server's
/// timeout (110 s), which the REST transport would call a stall; and they must not hold a
/// connection that a sync's requests wait for.
public struct StreamingClient: Sendable {
    let client: ForceClient
    let transport: CurlTransport
    /// The longest the server holds a connect (its advice): the transport waits this and a margin.
    public let holdSeconds: Double
    /// Seconds between tries after a failure: doubling from the first to the last, with jitter.
    public var firstRetry = 1.0
    public var longestRetry = 60.0

    /// Extra seconds the transport waits past the server's hold before calling the poll stalled.
    static let holdMargin = 30.0

    public init(client: ForceClient, holdSeconds: Double = 110) {
        self.client = client
        self.holdSeconds = holdSeconds
        var configuration = client.transport.configuration
        configuration.stallTimeout = holdSeconds + Self.holdMargin
        configuration.requestDeadline = holdSeconds + Self.holdMargin + 10
        configuration.maxConnections = 1
        configuration.compressesRequestBodies = false
        transport = CurlTransport(configuration: configuration)
    }

    /// `/data/ContactChangeEvent` for Contact; `/data/Thing__ChangeEvent` for `Thing__c`.
    public static func changeEventChannel(forObject object: String) -> String {
        object.hasSuffix("__c") ? "/data/\(object.dropLast(1))ChangeEvent" : "/data/\(object)ChangeEvent"
    }

    /// What the long polls have sent and received (the idle cost of listening).
    public var transferStatistics: TransferStatistics { transport.statistics }

    /// Closes the long polls' connection; call once `run` has returned.
    public func shutdown() { transport.shutdown() }

    /// Listens to `channels` until the task is cancelled, from `replayFrom` (a channel's last
    /// replay id seen; missing: only new events). Returns early when every channel is refused or
    /// the session ends.
    public func run(channels: [String], replayFrom: [String: Int64], news: @Sendable (StreamingNews) async -> Void) async {
        var bayeux = BayeuxConversation(replay: replayFrom)
        var wanted = channels
        var failures = 0
        while !Task.isCancelled && !wanted.isEmpty {
            do {
                try await bayeux.handshake(self)
                let (listening, refusals, gone) = try await bayeux.subscribe(self, to: wanted)
                for channel in gone { await news(.replayGone(channel: channel)) }
                for (channel, reason) in refusals {
                    wanted.removeAll { $0 == channel }
                    await news(.refused(channel: channel, reason: reason))
                }
                guard !listening.isEmpty else { return }
                await news(.listening(channels: listening))
                failures = 0
                while !Task.isCancelled {
                    let notices = try await bayeux.connect(self)
                    if !notices.isEmpty { await news(.changes(notices)) }
                }
            } catch BayeuxError.rehandshake {
                continue
            } catch {
                if Task.isCancelled { return }
                if Self.endsTheSession(error) {
                    // A new session is the caller's to find (a sign-in elsewhere, a refreshed token saved).
                    await news(.interrupted(reason: "\(error)", retryIn: 0))
                    return
                }
                failures += 1
                let ceiling = min(longestRetry, firstRetry * Double(1 << min(failures - 1, 16)))
                let delay = ceiling / 2 + Double.random(in: 0...(ceiling / 2))
                await news(.interrupted(reason: "\(error)", retryIn: delay))
                do { try await Task.sleep(for: .milliseconds(Int(delay * 1000))) } catch { return }
            }
        }
    }

    /// The session is over: no token refresh helps, a sign-in does.
    static func endsTheSession(_ error: any Error) -> Bool {
        switch error {
        case ForceAPIError.sessionExpired, ForceAPIError.authentication: return true
        case let BayeuxError.refused(text): return text.hasPrefix("401::") || text.hasPrefix("403::Handshake denied")
        default: return false
        }
    }

    /// Posts Bayeux messages and returns the replies (events among them).
    func post(_ messages: [JSONObject], cookies: inout [String: String]) async throws -> [JSONObject] {
        let credentials = await client.session.credentials
        let path = "/cometd/\(client.apiVersion)"
        var headers = [
            HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json"),
            HTTPHeader("Authorization", "Bearer \(credentials.accessToken.revealed)"),
        ]
        if !cookies.isEmpty {
            headers.append(HTTPHeader("Cookie", cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")))
        }
        let request = HTTPRequest(
            method: "POST", url: credentials.instanceURL + path, headers: headers,
            body: Array(JSONWriter.string(.array(messages.map(JSONValue.object))).utf8), isIdempotent: false)
        let started = ContinuousClock.now
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            client.requestLog?("POST \(path) failed: \(error)")
            throw error
        }
        let elapsed = ContinuousClock.now - started
        client.requestLog?("POST \(path) \(response.status) (\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000) ms\(ForceClient.sizes(request, response)))")
        for header in response.headers where header.name.lowercased() == "set-cookie" {
            let pair = header.value.prefix { $0 != ";" }
            guard let equals = pair.firstIndex(of: "=") else { continue }
            cookies[String(pair[..<equals]).trimmingCharacters(in: .whitespaces)] = String(pair[pair.index(after: equals)...])
        }
        if response.status == 401 {
            _ = try await client.session.refresh(after: credentials.accessToken)
            throw BayeuxError.rehandshake
        }
        let replies = (try? JSONParser.parse(response.body))?.arrayValue?.compactMap(\.objectValue)
        guard response.status == 200, let replies else {
            let text = replies?.first?["error"]?.stringValue ?? "HTTP \(response.status)"
            throw ForceAPIError.refused(status: response.status, errors: [SalesforceError(errorCode: "STREAMING_API", message: text)])
        }
        return replies
    }
}

enum BayeuxError: Error, CustomStringConvertible {
    /// The server forgot this client (or its token changed): handshake and subscribe again.
    case rehandshake
    /// The server refused, in Bayeux's words (`403::Handshake denied`, …).
    case refused(String)

    var description: String {
        switch self {
        case .rehandshake: "the server asked for a new handshake"
        case let .refused(text): "the Streaming API refused: \(text)"
        }
    }
}

/// One client's state across handshakes: its id, the server's cookies, the message counter and
/// the last replay id seen on each channel.
struct BayeuxConversation {
    var clientId: String?
    var cookies: [String: String] = [:]
    var replay: [String: Int64]
    var nextId = 1
    /// A token refreshed after a handshake refused it; a second refusal is the session's end.
    var refreshedForHandshake = false

    init(replay: [String: Int64]) { self.replay = replay }

    mutating func message(_ channel: String, _ fields: JSONObject = [:]) -> JSONObject {
        var message = fields
        message["channel"] = .string(channel)
        message["id"] = .string(String(nextId))
        if let clientId { message["clientId"] = .string(clientId) }
        nextId += 1
        return message
    }

    mutating func handshake(_ client: StreamingClient) async throws {
        clientId = nil
        let hello = message(
            "/meta/handshake",
            [
                "version": "1.0", "minimumVersion": "1.0",
                "supportedConnectionTypes": ["long-polling"], "ext": ["replay": true],
            ])
        let reply = try await client.post([hello], cookies: &cookies).first { $0["channel"]?.stringValue == "/meta/handshake" }
        guard let reply else { throw BayeuxError.refused("no handshake reply") }
        guard reply["successful"]?.boolValue == true, let id = reply["clientId"]?.stringValue else {
            let reason = reply["ext"]?["sfdc"]?["failureReason"]?.stringValue ?? reply["error"]?.stringValue ?? "handshake refused"
            if reason.hasPrefix("401::"), !refreshedForHandshake {
                // The token expired: refreshed once, then the next handshake says whether it helped.
                refreshedForHandshake = true
                let credentials = await client.client.session.credentials
                _ = try await client.client.session.refresh(after: credentials.accessToken)
                throw BayeuxError.rehandshake
            }
            throw BayeuxError.refused(reason)
        }
        refreshedForHandshake = false
        clientId = id
    }

    /// Subscribes to every channel in one request. Returns the channels subscribed, those refused
    /// with the reason, and those whose replay id was too old (subscribed again for new events).
    mutating func subscribe(_ client: StreamingClient, to channels: [String]) async throws
        -> (listening: [String], refused: [(String, String)], replayGone: [String])
    {
        var listening: [String] = []
        var refused: [(String, String)] = []
        var gone: [String] = []
        var pending = channels
        while !pending.isEmpty {
            let messages = pending.map { channel in
                message("/meta/subscribe", ["subscription": .string(channel), "ext": ["replay": [channel: .int(replay[channel] ?? -1)]]])
            }
            let replies = try await client.post(messages, cookies: &cookies).filter { $0["channel"]?.stringValue == "/meta/subscribe" }
            var again: [String] = []
            for channel in pending {
                guard let reply = replies.first(where: { $0["subscription"]?.stringValue == channel }) else {
                    refused.append((channel, "no reply to the subscription"))
                    continue
                }
                if reply["successful"]?.boolValue == true {
                    listening.append(channel)
                    continue
                }
                let error = reply["error"]?.stringValue ?? "refused"
                if error.hasPrefix("403::Unknown client") || reply["advice"]?["reconnect"]?.stringValue == "handshake" {
                    throw BayeuxError.rehandshake
                }
                if error.localizedCaseInsensitiveContains("replayId"), replay[channel] != nil {
                    replay[channel] = nil
                    gone.append(channel)
                    again.append(channel)
                } else {
                    refused.append((channel, Self.readable(error)))
                }
            }
            pending = again
        }
        return (listening, refused, gone)
    }

    /// One long poll: the events it brought (their replay ids noted).
    mutating func connect(_ client: StreamingClient) async throws -> [ChangeNotice] {
        let poll = message("/meta/connect", ["connectionType": "long-polling"])
        let replies = try await client.post([poll], cookies: &cookies)
        var notices: [ChangeNotice] = []
        for reply in replies {
            let channel = reply["channel"]?.stringValue ?? ""
            if channel == "/meta/connect" {
                guard reply["successful"]?.boolValue == true else {
                    let error = reply["error"]?.stringValue ?? "connect refused"
                    let reconnect = reply["advice"]?["reconnect"]?.stringValue
                    if reconnect == "none" && !error.hasPrefix("401::") { throw BayeuxError.refused(error) }
                    if error.hasPrefix("401::") {
                        let credentials = await client.client.session.credentials
                        _ = try await client.client.session.refresh(after: credentials.accessToken)
                    }
                    throw BayeuxError.rehandshake
                }
                continue
            }
            guard !channel.hasPrefix("/meta/"), let data = reply["data"], let replayId = data["event"]?["replayId"]?.int64Value else { continue }
            replay[channel] = max(replay[channel] ?? replayId, replayId)
            let header = data["payload"]?["ChangeEventHeader"]
            notices.append(
                ChangeNotice(
                    channel: channel, replayId: replayId, entityName: header?["entityName"]?.stringValue ?? "",
                    changeType: header?["changeType"]?.stringValue ?? "",
                    recordIds: header?["recordIds"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                    changeOrigin: header?["changeOrigin"]?.stringValue ?? "",
                    commitUser: header?["commitUser"]?.stringValue ?? ""))
        }
        return notices
    }

    /// "400::The channel you requested to subscribe to does not exist {…}" without its code.
    static func readable(_ error: String) -> String {
        guard let separator = error.range(of: "::") else { return error }
        return String(error[separator.upperBound...])
    }
}
