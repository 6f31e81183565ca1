import ContactsApp
import ForceJSON
import MobileSync
import SmartStore
import Synchronization
import Testing

/// `s`: the sync in the background, stepped by the test (`waitUntilFinished`), its toasts and the status line.
@Suite("The sync key: background run, toasts, session")
struct SyncFeatureTests: DrivesAppModel {
    @Test("Without a sync engine, s says so and keeps changes queued; --offline says it is offline")
    func syncNotSetUp() throws {
        let fixture = try StoreFixture()
        _ = try RecordRepository(store: fixture.store, kind: .contact).create(fields: ["LastName": "Queued"])
        var model = try model(fixture)
        model.perform(.sync)
        #expect(model.toast == Toast("Not signed in: run forceterm login, then s; 1 local change stays queued", isError: true))
        var offline = try self.model(fixture, offline: true)
        offline.perform(.sync)
        #expect(offline.toast?.message == "Offline: sync skipped; 1 local change stays queued")
        #expect(try fixture.store.count(.exact("contacts", path: "__local__", matchKey: true)) == 1)
    }

    @Test("One progress bar for the whole run: each sync is its share, and it never falls back, also when syncs report interleaved")
    func progressAcrossSyncs() {
        var run = SyncRunProgress(order: ["up", "downA", "downB", "downC"])
        let soups = ["up": "contacts", "downA": "accounts", "downB": "contacts", "downC": "sobject_metadata"]
        let reports = [
            ("up", 0), ("up", 100), ("downA", 0), ("downB", 50), ("downA", 50), ("downC", 100), ("downB", 40), ("downA", 100),
            ("downB", 100),
        ]
        let steps = reports.map { report in
            run.update(
                name: report.0, phase: report.0 == "up" ? "Sync up" : "Sync down", soup: soups[report.0] ?? "", percent: report.1,
                ended: report.1 == 100)
        }
        #expect(steps.map(\.fraction) == [0, 0.25, 0.25, 0.375, 0.5, 0.75, 0.75, 0.875, 1])
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
        // The label names what runs now and counts what has ended: it never jumps back.
        #expect(
            steps.map(\.phase) == [
                "Sync up contacts 0/4", "Sync up 1/4", "Sync down accounts 1/4", "Sync down accounts, contacts 1/4",
                "Sync down accounts, contacts 1/4", "Sync down accounts, contacts 2/4", "Sync down accounts, contacts 2/4",
                "Sync down contacts 3/4", "Sync down 4/4",
            ])
        var many = SyncRunProgress(order: ["a", "b", "c"])
        _ = many.update(name: "a", phase: "Sync down", soup: "accounts", percent: 0)
        _ = many.update(name: "b", phase: "Sync down", soup: "contacts", percent: 0)
        #expect(
            many.update(name: "c", phase: "Sync down", soup: "sobject_metadata", percent: 0).phase == "Sync down accounts +2 0/3",
            "a long list is said short, to fit the status line")
        var described = SyncRunProgress(order: ["down", "meta"])
        _ = described.update(name: "down", phase: "Sync down", soup: "contacts", percent: 0)
        #expect(
            described.update(name: "meta", phase: "Sync down", soup: "", percent: 0).phase == "Sync down contacts 0/2",
            "an object's description is not named")
        var odd = SyncRunProgress(order: [])
        #expect(odd.update(name: "x", phase: "Sync", soup: "x", percent: 250).fraction == 0, "an unknown sync moves nothing")
        var one = SyncRunProgress(order: ["x"])
        #expect(one.update(name: "x", phase: "Sync", soup: "x", percent: 250).fraction == 1, "out-of-range input stays on the bar")
    }

    @Test("A sync runs in the background: progress while it runs, then a toast and a refreshed list")
    func syncRuns() async throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Moreno")
        let service = StepSync(store: fixture.store)
        let controller = SyncController(service: service)
        var model = try model(fixture, sync: controller)
        model.perform(.undeleteRecord)
        #expect(model.toast != nil)
        model.perform(.sync)
        #expect(controller.isRunning)
        #expect(model.toast == nil, "a sync that starts retires the toast before it")
        model.perform(.sync)
        #expect(model.toast?.message == "A sync is already running")
        await service.waitUntilProgressReported()
        #expect(controller.current == .running(SyncProgress(phase: "Sync down", fraction: 0.5)))
        model.perform(.quit)
        #expect(model.mode == .confirmingQuit, "quitting during a sync asks first")
        model.perform(.confirmNo)
        service.finish()
        await controller.waitUntilFinished()
        model.tick()
        #expect(model.toast == Toast("Sync done: 1 error (e); sent 0, got 1", isError: true))
        #expect(model.list.totalCount == 2, "the list shows what the sync wrote")
        #expect(model.selected?.string("LastName") == "Moreno", "the selection stays on the same record")
    }

    @Test("A named sync that failed alone is named in the toast, as an error")
    func failedSyncNamed() async throws {
        let fixture = try StoreFixture()
        let service = StepSync(store: fixture.store, failedSyncs: ["syncDownLayouts"])
        let controller = SyncController(service: service)
        var model = try model(fixture, sync: controller)
        model.perform(.sync)
        service.finish()
        await controller.waitUntilFinished()
        model.tick()
        #expect(model.toast == Toast("syncDownLayouts failed (Syncs tab); 1 error (e)", isError: true))
    }

    @Test("The status line and s follow the session as it is when s is pressed: signed out, then signed in elsewhere")
    func sessionPickedUp() async throws {
        let fixture = try StoreFixture()
        let service = SessionSync()
        let controller = SyncController(service: service)
        var model = try model(fixture, sync: controller)
        #expect(model.statusParts.first == "not signed in — forceterm login")
        model.perform(.sync)
        #expect(model.toast?.message.hasPrefix("Not signed in: run forceterm login, then s;") == true)
        #expect(!controller.isRunning)
        service.state.withLock { $0 = .signedIn }
        model.perform(.sync)
        #expect(controller.isRunning, "the new sign-in is used without restarting")
        await controller.waitUntilFinished()
        model.tick()
        #expect(model.toast?.message == "Sync complete! Sent 0 changes; nothing new on the server")
        #expect(model.statusParts.first == "online")
    }
}

/// A sync whose session is whatever the test sets, as the TUI's reads the saved credentials.
final class SessionSync: SyncService {
    let state = Mutex(SessionState.signedOut)
    var sessionState: SessionState { state.withLock { $0 } }

    func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        SyncSummary(recordsWithErrors: 0, conflicts: 0)
    }
}

/// A stand-in for the store sync service: it reports progress, then waits until the test lets it
/// finish, and writes one record into the real store as a sync down would.
final class StepSync: SyncService {
    private let store: SmartStore
    private let failedSyncs: [String]
    private let release = AsyncStream<Void>.makeStream()
    private let report = AsyncStream<Void>.makeStream()

    init(store: SmartStore, failedSyncs: [String] = []) {
        self.store = store
        self.failedSyncs = failedSyncs
    }

    func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        progress(SyncProgress(phase: "Sync down", fraction: 0.5))
        report.continuation.finish()
        for await _ in release.stream {}
        _ = try store.create(["Id": "003A", "LastName": "Aaronson", "__local__": false], in: "contacts")
        return SyncSummary(recordsWithErrors: 1, conflicts: 0, failedSyncs: failedSyncs, receivedChanges: 1)
    }

    /// Lets the sync go on to its end.
    func finish() { release.continuation.finish() }

    func waitUntilProgressReported() async {
        for await _ in report.stream {}
    }
}

extension SyncFeatureTests {
    @Test("Beside a conflict (the server's change, kept beside mine) the toast says nothing else is new")
    func nothingElseNewBesideAConflict() {
        #expect(SyncSummary(recordsWithErrors: 0, conflicts: 1).exchangedBriefly == "sent 0, nothing else new")
        #expect(SyncSummary(recordsWithErrors: 0, conflicts: 0).exchangedBriefly == "sent 0, nothing new")
        #expect(SyncSummary(recordsWithErrors: 0, conflicts: 2, sent: 1).exchanged == "sent 1 change; nothing else new on the server")
        // Records removed as deleted on the server are news too (a trial read "nothing else new" after 30 went).
        #expect(SyncSummary(recordsWithErrors: 0, conflicts: 1, removedOnServer: 30).exchangedBriefly == "sent 0, got 0, 30 gone")
        #expect(
            SyncSummary(recordsWithErrors: 0, conflicts: 0, sent: 2, removedOnServer: 30).exchanged
                == "sent 2, got 0, 30 gone (deleted on the server)")
    }

    @Test("A locale that is not UTF-8 stays said on the status line, whatever toast comes after")
    func notUTF8StaysOnTheStatusLine() async throws {
        let fixture = try StoreFixture()
        let service = SessionSync()
        service.state.withLock { $0 = .signedIn }
        let controller = SyncController(service: service)
        var model = try model(fixture, sync: controller)
        #expect(model.statusParts.first != "not UTF-8: export LANG=C.UTF-8")
        model.notUTF8 = true
        model.perform(.sync)
        await controller.waitUntilFinished()
        model.tick()
        #expect(model.toast?.message.hasPrefix("Sync complete!") == true)
        #expect(model.statusParts.first == "not UTF-8: export LANG=C.UTF-8", "\(model.statusParts)")
        #expect(model.statusFacts.first?.wordings.last == "LANG=C.UTF-8?", "kept, in short, on a narrow terminal")
    }

    @Test("While a sync runs the status line says so, and a quit asked during it happens when it ends, its outcome kept to say")
    func quitQuestionEndsWithTheSync() async throws {
        let fixture = try StoreFixture()
        let service = StepSync(store: fixture.store)
        let controller = SyncController(service: service)
        var model = try model(fixture, sync: controller)
        model.perform(.sync)
        #expect(model.statusParts.first == "syncing")
        #expect(model.statusParts.contains("never synced"), "a run under way is not a last sync: \(model.statusParts)")
        model.perform(.quit)
        #expect(model.mode == .confirmingQuit)
        service.finish()
        await controller.waitUntilFinished()
        model.tick()
        #expect(model.mode == .browsing && model.shouldQuit, "nothing left to ask about: the user asked to quit")
        #expect(model.farewell != nil && model.farewell == model.toast?.message, "the outcome is said after the TUI closes")
    }

    @Test("Ctrl-C is honoured while a sync runs: the first asks, the second quits; at a delete question it answers no")
    func controlCTwiceQuits() async throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Moreno")
        let service = StepSync(store: fixture.store)
        let controller = SyncController(service: service)
        var model = try model(fixture, sync: controller)
        func controlC() {
            if let command = model.keymap.action(for: .control("c"), in: model.mode) { model.perform(command) }
        }
        model.perform(.sync)
        controlC()
        #expect(model.mode == .confirmingQuit && !model.shouldQuit)
        controlC()
        #expect(model.shouldQuit)
        service.finish()
        await controller.waitUntilFinished()

        var other = try self.model(fixture)
        other.perform(.deleteRecord)
        #expect(other.mode == .confirmingDelete)
        if let command = other.keymap.action(for: .control("c"), in: other.mode) { other.perform(command) }
        #expect(other.mode == .browsing && !other.shouldQuit)
        #expect(other.selected?.isLocallyDeleted == false, "nothing was deleted")
    }

    @Test("A sync that cannot reach the org says so in a line that fits 80 columns, and that the changes stay queued")
    func offlineToast() async throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Moreno", extra: ["__local__": true, "__locally_updated__": true])
        let controller = SyncController(service: OfflineSync())
        var model = try model(fixture, sync: controller)
        model.perform(.sync)
        await controller.waitUntilFinished()
        model.tick()
        let toast = try #require(model.toast)
        #expect(toast.isError && toast.message == "Offline: org unreachable; 1 local change stays queued (s retries)")
        #expect(toast.message.count <= 76, "one line of a toast at 80 columns")
        #expect(model.statusParts.first == "offline")
    }
}

/// A sync whose requests never reach the org, as a dropped network fails them.
final class OfflineSync: SyncService {
    func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        throw SyncFailure(
            reason: "syncUpContacts stopped: cannot reach Salesforce (connection refused). Local changes are kept in the store; run forceterm sync again.",
            connection: .offline)
    }
}
