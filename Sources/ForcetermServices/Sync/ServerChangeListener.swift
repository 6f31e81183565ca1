import ContactsApp
import Dispatch
import ForceAPI
import Foundation
import MobileSync
import SmartStore
import Synchronization

/// Listens, while the TUI or `forceterm sync --watch` runs, to the org's Change Data Capture
/// events for every object a sync down fills, and tells the sync controller when another user or
/// app changed one: the controller then runs the incremental sync (the event's fields are never
/// written into the store: field-level security and the config's field list decide what it
/// holds). Changes this store sent itself are passed over. The last replay id of each channel is
/// kept in the store, so a drop or a restart resumes where it stopped; when the org no longer
/// has those events, a sync looks instead. It runs beside the syncs, never under the sync lock.
public final class ServerChangeListener: Sendable {
    public let store: SmartStore
    /// The objects listened to, by channel.
    public let objects: [String: String]
    let service: StoreSyncService
    let controller: SyncController
    /// The server's hold of a long poll (its advice): the transport waits that long for an answer.
    let holdSeconds: Double
    private let running = Mutex<Task<Void, Never>?>(nil)
    private let ended = DispatchSemaphore(value: 0)
    /// Seconds between looks for a session while there is none to use.
    static let sessionWait = 5.0
    static let longestSessionWait = 300.0
    /// Whether the last connection listened at all before it ended.
    private let listened = Mutex(false)
    static let replayKeyPrefix = "forceterm.replayId "

    public init(service: StoreSyncService, controller: SyncController, holdSeconds: Double = 110) {
        store = service.store
        self.service = service
        self.controller = controller
        self.holdSeconds = holdSeconds
        // The subscriptions' objects too, as the store holds them when listening starts (one made
        // later for an object no sync brings is heard after a restart, as its tab appears then).
        let objects = Self.objects(in: service.entries + ((try? SyncsSoup(store: service.store).subscriptionEntries()) ?? []))
        self.objects = Dictionary(objects.map { (StreamingClient.changeEventChannel(forObject: $0), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The objects whose records the sync downs bring, in the config's order.
    public static func objects(in entries: [SyncsConfig.Entry]) -> [String] {
        var objects: [String] = []
        for entry in entries {
            guard case let .down(target) = entry.target else { continue }
            for soup in target.filledSoups(soupName: entry.soupName) where soup.holdsRecords {
                if let object = soup.sobjectType, !objects.contains(object) { objects.append(object) }
            }
        }
        return objects
    }

    /// Starts listening in the background (once).
    public func start() {
        running.withLock { task in
            guard task == nil, !objects.isEmpty else { return }
            task = Task.detached { [self] in
                await listen()
                ended.signal()
            }
        }
    }

    /// Stops listening and waits (a few seconds at most) for the long poll to be closed.
    public func stop() {
        guard let task = running.withLock({ $0 }) else { return }
        task.cancel()
        _ = ended.wait(timeout: .now() + .seconds(3))
    }

    private func listen() async {
        var waits = 0
        while !Task.isCancelled {
            // Longer each time nothing listened: a session the org refuses is not asked again every few seconds.
            let wait = min(Self.longestSessionWait, Self.sessionWait * Double(1 << min(waits, 8)))
            guard let session = try? service.session(), let own = try? StoreDevice.client(of: store) else {
                do { try await Task.sleep(for: .seconds(Self.sessionWait)) } catch { return }
                continue
            }
            let streaming = StreamingClient(client: session.client, holdSeconds: holdSeconds)
            let replay = replayIds()
            // Subscribed from now on, without a replay id: a change made before the subscription
            // and after the last sync's query would go unannounced; one sync once listening covers it.
            let fresh = replay.count < objects.count
            await streaming.run(channels: objects.keys.sorted(), replayFrom: replay) { news in
                self.handle(news, ownClient: own)
                if fresh, case .listening = news { self.controller.noteServerChange() }
            }
            streaming.shutdown()
            if Task.isCancelled || controller.serverPush.refused.count == objects.count { return }
            waits = listened.withLock { $0 } ? 0 : waits + 1
            listened.withLock { $0 = false }
            // The session ended (expired, signed out): looked for again.
            do { try await Task.sleep(for: .seconds(wait)) } catch { return }
        }
    }

    func handle(_ news: StreamingNews, ownClient: String) {
        switch news {
        case let .listening(channels):
            let listening = channels.compactMap { objects[$0] }
            listened.withLock { $0 = true }
            controller.noteServerPush { push in
                push.listening = listening
                push.interrupted = nil
            }
        case let .changes(notices):
            saveReplayIds(notices)
            // Only the soups of the objects others changed are synced down.
            let changed = Set(notices.filter { !$0.wasMade(byClient: ownClient) }.compactMap { objects[$0.channel] })
            if !changed.isEmpty { controller.noteServerChange(objects: changed) }
        case let .replayGone(channel):
            saveReplayIds([], forgetting: channel)
            controller.noteServerChange(objects: objects[channel].map { [$0] })
        case let .refused(channel, reason):
            guard let object = objects[channel] else { return }
            // Salesforce's words for an object not selected for Change Data Capture, made short for the Syncs tab.
            let said = reason.contains("does not exist") ? "no Change Data Capture" : reason
            controller.noteServerPush { push in
                push.refused[object] = said
                push.listening.removeAll { $0 == object }
            }
        case let .interrupted(reason, _):
            controller.noteServerPush { push in
                push.listening = []
                push.interrupted = reason
            }
        }
    }

    /// The last replay id seen on each channel, as saved in the store.
    func replayIds() -> [String: Int64] {
        let objects = self.objects
        return
            (try? store.read { transaction in
                var ids: [String: Int64] = [:]
                for channel in objects.keys {
                    if let text = try transaction.setting(Self.replayKeyPrefix + channel), let id = Int64(text) { ids[channel] = id }
                }
                return ids
            }) ?? [:]
    }

    /// Saves each channel's newest replay id (one transaction for a poll's events).
    private func saveReplayIds(_ notices: [ChangeNotice], forgetting gone: String? = nil) {
        var newest: [String: Int64] = [:]
        for notice in notices { newest[notice.channel] = max(newest[notice.channel] ?? notice.replayId, notice.replayId) }
        // A lost write only replays these events again after a drop: one more incremental sync.
        try? store.write { transaction in
            if let gone { try transaction.setSetting(Self.replayKeyPrefix + gone, nil) }
            for (channel, id) in newest { try transaction.setSetting(Self.replayKeyPrefix + channel, String(id)) }
        }
    }
}
