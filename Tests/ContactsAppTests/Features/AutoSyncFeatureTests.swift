import ContactsApp
import ForceJSON
import Foundation
import MobileSync
import SmartStore
import Synchronization
import Testing

/// Automatic sync in the app model: the syncs it starts on the loop's tick, on a clock the test moves.
@Suite("Automatic sync in the app: saves go up, failures back off, the status line says so")
struct AutoSyncFeatureTests: DrivesAppModel {
    /// A clock the test moves by hand, for the model and the controller alike.
    final class HandClock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var clock: AppClock { AppClock { [self] in now.withLock { $0 } } }
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    /// A sync that answers as the test says (synced, or offline), counts its runs and never runs two at once.
    final class ScriptedSync: SyncService {
        let offline = Mutex(false)
        let linkUp = Mutex(true)
        let runs = Mutex(0)
        let inFlight = Mutex(0)
        let most = Mutex(0)
        let store: SmartStore
        init(store: SmartStore) { self.store = store }

        func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
            runs.withLock { $0 += 1 }
            let now = inFlight.withLock {
                $0 += 1
                return $0
            }
            most.withLock { $0 = max($0, now) }
            defer { inFlight.withLock { $0 -= 1 } }
            if offline.withLock({ $0 }) { throw SyncFailure(reason: "the org cannot be reached", connection: .offline) }
            // As a sync up: every local change sent.
            let sent = try store.query(.exact("contacts", path: "__local__", matchKey: true)).compactMap(\.objectValue)
            for var record in sent {
                record["__local__"] = false
                record["__locally_created__"] = false
                _ = try store.upsert([record], in: "contacts")
            }
            return SyncSummary(recordsWithErrors: 0, conflicts: 0, sent: sent.count)
        }

        func linkIsUp() async -> Bool { linkUp.withLock { $0 } }
    }

    /// Ticks until the running sync has ended and the model has taken its result.
    func settle(_ model: inout AppModel, _ controller: SyncController) async {
        await controller.waitUntilFinished()
        model.tick()
    }

    func save(_ name: String, into model: inout AppModel) {
        model.perform(.newRecord)
        model.perform(.nextField)
        type(name, into: &model)
        model.perform(.save)
    }

    @Test("Opening syncs; three quick saves go up in one sync two seconds after the first, with no key pressed")
    func savesGoUp() async throws {
        let fixture = try StoreFixture()
        let hand = HandClock()
        let service = ScriptedSync(store: fixture.store)
        let controller = SyncController(service: service, automatic: AutoSyncSettings(interval: 300), clock: hand.clock, random: { 0.5 })
        var model = try model(fixture, sync: controller)
        model.clock = hand.clock
        model.tick()
        #expect(controller.isRunning && controller.startedBy == .opened)
        await settle(&model, controller)
        #expect(model.toast == nil, "a sync that brought nothing says nothing")
        for (index, name) in ["Uno", "Dos", "Tres"].enumerated() {
            if index > 0 { hand.advance(0.5) }
            save(name, into: &model)
            #expect(model.toast?.message == "Saved locally; it syncs within seconds")
            model.tick()
            #expect(!controller.isRunning, "still saving: the sync waits for the last save")
        }
        hand.advance(0.5)
        model.tick()
        #expect(!controller.isRunning, "half a second after the last save another may follow")
        hand.advance(0.5)
        model.tick()
        #expect(controller.isRunning && controller.startedBy == .localChanges, "two seconds after the first save")
        await settle(&model, controller)
        #expect(service.runs.withLock { $0 } == 2)
        #expect(model.toast?.message == "Synced: sent 3, nothing new")
        #expect(model.localChangeCount == 0)
        hand.advance(60)
        model.tick()
        #expect(!controller.isRunning, "the sync's own writes are not saves to send")
        hand.advance(240)
        model.tick()
        #expect(controller.startedBy == .timer, "the interval brings the server's changes")
        await settle(&model, controller)
        #expect(service.most.withLock { $0 } == 1)
    }

    @Test("Offline: the status line says since when and the next try, the link's return syncs at once, nothing is said at each try")
    func offlineThenBack() async throws {
        let fixture = try StoreFixture()
        let hand = HandClock()
        let service = ScriptedSync(store: fixture.store)
        service.offline.withLock { $0 = true }
        let controller = SyncController(service: service, automatic: AutoSyncSettings(), clock: hand.clock, random: { 0.5 })
        var model = try AppModel(store: fixture.store, syncedFields: fixture.fields, sync: controller, timeZone: TimeZone(identifier: "UTC") ?? .current)
        model.setListHeight(10)
        model.clock = hand.clock
        save("Túnel", into: &model)
        model.tick()
        await settle(&model, controller)
        #expect(model.toast?.message == "Saved locally; it syncs within seconds", "offline is the status line's to say, not a toast's")
        #expect(model.statusParts.prefix(2) == ["offline since 08:00, next try 08:00:02", "1 waiting to send"])
        hand.advance(2)
        service.linkUp.withLock { $0 = false }
        model.tick()
        #expect(controller.startedBy == .retry)
        await settle(&model, controller)
        #expect(model.statusParts.first == "offline since 08:00, next try 08:00:06")
        // The probe finds the link down, then up: a sync starts before the four seconds are over.
        model.tick()
        try await waitForProbe(controller, hand: hand)
        service.linkUp.withLock { $0 = true }
        service.offline.withLock { $0 = false }
        hand.advance(3)
        model.tick()
        try await waitUntil { controller.automatic?.due(at: hand.now.withLock { $0 }) == .linkBack }
        model.tick()
        #expect(controller.startedBy == .linkBack)
        await settle(&model, controller)
        #expect(model.statusParts.prefix(2) == ["online", "0 local changes"])
        #expect(service.most.withLock { $0 } == 1, "never two syncs at once")
    }

    @Test("Another process's save (an import, forceterm create) is noticed on the tick and sent")
    func otherProcessesSaves() async throws {
        let fixture = try StoreFixture()
        let hand = HandClock()
        let service = ScriptedSync(store: fixture.store)
        let controller = SyncController(service: service, automatic: AutoSyncSettings(), clock: hand.clock, random: { 0.5 })
        var model = try model(fixture, sync: controller)
        model.clock = hand.clock
        model.tick()
        await settle(&model, controller)
        let elsewhere = try SmartStore(path: fixture.store.path)
        _ = try RecordRepository(store: elsewhere, kind: .contact).create(fields: ["LastName": "Importada"])
        model.tick()
        hand.advance(1)
        model.tick()
        #expect(controller.startedBy == .localChanges)
        await settle(&model, controller)
        #expect(service.runs.withLock { $0 } == 2)
    }

    @Test("Off ([sync] auto = false): nothing starts by itself and the save says s syncs it")
    func off() async throws {
        let fixture = try StoreFixture()
        let hand = HandClock()
        let service = ScriptedSync(store: fixture.store)
        let controller = SyncController(service: service, automatic: AutoSyncSettings(enabled: false), clock: hand.clock)
        var model = try model(fixture, sync: controller)
        model.clock = hand.clock
        save("Manual", into: &model)
        #expect(model.toast?.message == "Saved locally; s syncs it")
        for _ in 0..<5 {
            hand.advance(1000)
            model.tick()
        }
        #expect(!controller.isRunning && service.runs.withLock { $0 } == 0)
    }

    func waitForProbe(_ controller: SyncController, hand: HandClock) async throws {
        try await waitUntil { !(controller.automatic?.probeDue(at: hand.now.withLock { $0 }) ?? true) }
        // The probe's answer lands after its time is noted: give its task the moment it needs.
        try await Task.sleep(for: .milliseconds(50))
    }

    func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<200 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the condition never held")
    }
}
