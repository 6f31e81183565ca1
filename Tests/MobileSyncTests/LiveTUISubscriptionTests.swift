import ContactsApp
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

@testable import MobileSync

/// The TUI's subscription keys on the app model, with forceterm's own sync service over a real
/// localorg and a real store: `a` from a search, `d` on Syncs, `b` on an account, and a change
/// asked while a sync runs.
@Suite("Subscriptions from the TUI's keys")
struct LiveTUISubscriptionTests {
    /// The repo's config with its contacts sync narrowed to Oslo, so a search finds little here.
    static func osloConfig(_ live: LiveSync) throws -> (SyncsConfig, SyncedFields) {
        let url = SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json")
        var config = try SyncsConfig(contentsOf: url)
        config.entries = config.entries.map { entry in
            guard entry.name == "syncDownContacts", case let .down(target) = entry.target, case let .soql(query, _) = target.kind else { return entry }
            var narrowed = entry
            narrowed.target = .down(.soql(query + " WHERE MailingCity = 'Oslo'"))
            return narrowed
        }
        _ = try SyncsSoup(store: live.local.store).apply(config)
        return (config, try SyncedFields(usersyncsJSON: String(contentsOf: url, encoding: .utf8)))
    }

    /// The app model over forceterm's store sync service, signed in as the live client.
    static func model(_ live: LiveSync, _ config: SyncsConfig, _ fields: SyncedFields) throws -> (AppModel, SyncController) {
        let service = StoreSyncService(
            store: live.local.store, entries: config.entries, sessions: .fixed(SignedInSession(client: live.client, storePath: live.local.store.path)))
        let controller = SyncController(service: service)
        return (try AppModel(store: live.local.store, syncedFields: fields, kinds: [.contact, .account], sync: controller, timeZone: .gmt), controller)
    }

    static func sync(_ model: inout AppModel, _ controller: SyncController) async {
        await controller.waitUntilFinished()
        // The tick makes the subscription changes asked during the sync.
        model = await onOwnThread(model) { $0.tick() }
    }

    /// Carries out `command` on a thread of its own, as the TUI's event loop does on the main
    /// thread: a subscribe or unsubscribe waits there for the sync manager, and must not hold
    /// one of Swift's cooperative threads, which the manager's work needs (on two cores, with
    /// other tests beside it, a run once waited for ever).
    static func press(_ command: AppCommand, _ model: inout AppModel) async {
        model = await onOwnThread(model) { $0.perform(command) }
    }

    static func onOwnThread(_ model: AppModel, _ body: @escaping @Sendable (inout AppModel) -> Void) async -> AppModel {
        await withCheckedContinuation { continuation in
            Thread {
                var changed = model
                body(&changed)
                continuation.resume(returning: changed)
            }.start()
        }
    }

    static func prompt(_ model: AppModel) -> SubscriptionPrompt? {
        if case let .subscribing(prompt) = model.overlay { return prompt }
        return nil
    }

    static func type(_ text: String, into model: inout AppModel) {
        for character in text { model.type(character) }
    }

    static func selectSync(_ name: String, in model: inout AppModel) throws {
        model.perform(.showTab(.syncs))
        model.perform(.moveToTop)
        while model.syncs.selected?.name != name, model.syncs.selectedIndex < model.syncs.syncs.count - 1 { model.perform(.moveDown) }
        try #require(model.syncs.selected?.name == name)
    }

    @Test("a on a search that finds nothing here subscribes to what the server has (the condition shown first); a refusal keeps the prompt with its reason; d on Syncs asks and removes it")
    func fromASearch() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let (config, fields) = try Self.osloConfig(live)
        _ = try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Oslo"])
        let marlow = try await live.createOnServer("Contact", ["LastName": "Marlow", "MailingCity": "Bern"])
        let marlowe = try await live.createOnServer("Contact", ["LastName": "Marlowe", "FirstName": "Chloé", "MailingCity": "Zürich"])
        var (model, controller) = try Self.model(live, config, fields)
        model.perform(.sync)
        await Self.sync(&model, controller)
        #expect(model.contacts?.totalCount == 1)

        model.perform(.startSearch)
        Self.type("marlow", into: &model)
        model.perform(.keepSearch)
        #expect(model.list.totalCount == 0, "not carried here yet")
        model.perform(.subscribe)
        let prompt = try #require(Self.prompt(model))
        #expect(prompt.step == .condition && prompt.soupName == "contacts" && prompt.name.text == "marlow")
        #expect(prompt.condition.text == "FirstName LIKE '%marlow%' OR LastName LIKE '%marlow%' OR Title LIKE '%marlow%' OR Email LIKE '%marlow%'")
        await Self.press(.submitPrompt, &model)
        #expect(Self.prompt(model)?.step == .name)
        await Self.press(.submitPrompt, &model)
        #expect(model.overlay == nil && controller.isRunning, "stored, and its fetch runs as a sync")
        #expect(model.toast?.message == "marlow is subscribed; fetching")
        await Self.sync(&model, controller)
        #expect(model.list.totalCount == 2, "the search, kept, shows them now")
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }).isSuperset(of: [marlow, marlowe]))

        try Self.selectSync("marlow", in: &model)
        let row = try #require(model.syncs.selected)
        #expect(model.syncs.subscription(of: row)?.held == 2 && model.syncs.subscription(of: row)?.state == .complete)

        // Refused before anything is stored: the prompt stays, back at the condition, saying why.
        model.perform(.subscribe)
        model.perform(.clearLine)
        Self.type("Description = 'met at the fair'", into: &model)
        await Self.press(.submitPrompt, &model)
        model.perform(.clearLine)
        Self.type("fair", into: &model)
        await Self.press(.submitPrompt, &model)
        let refused = try #require(Self.prompt(model))
        #expect(refused.step == .condition && refused.error?.contains("Contact.Description cannot be filtered") == true, "\(refused)")
        #expect(!controller.isRunning)
        #expect(try SyncsSoup(store: live.local.store).state(name: "fair") == nil)
        model.perform(.cancelPrompt)
        #expect(model.overlay == nil)

        // d on a config sync says what d does here; on the subscription it asks first.
        try Self.selectSync("syncDownContacts", in: &model)
        model.perform(.deleteRecord)
        #expect(model.overlay == nil && model.toast?.message.contains("removes only subscriptions") == true)
        try Self.selectSync("marlow", in: &model)
        model.perform(.deleteRecord)
        #expect(model.question?.subject == .unsubscribe(name: "marlow"))
        #expect(model.question?.text.hasPrefix("Stop carrying marlow? Its 2 records of contacts leave the store") == true)
        await Self.press(.confirmYes, &model)
        #expect(model.toast?.message == "marlow removed: 2 records left the store")
        #expect(try live.local.documents("contacts").count == 1)
        #expect(!model.syncs.syncs.contains { $0.name == "marlow" })
    }

    @Test("b on an account takes it and its contacts offline, asked while a sync runs it waits for that sync's end; b again asks and lets them go")
    func accountOffline() async throws {
        let live = try await LiveSync(serverArguments: ["--latency", "300"])
        defer { live.remove() }
        let (config, fields) = try Self.osloConfig(live)
        let acme = try await live.createOnServer("Account", ["Name": "Acme Zürich"])
        let ada = try await live.createOnServer("Contact", ["LastName": "Ada", "MailingCity": "Bern", "AccountId": .string(acme)])
        let bo = try await live.createOnServer("Contact", ["LastName": "Bo", "MailingCity": "Oslo", "AccountId": .string(acme)])
        var (model, controller) = try Self.model(live, config, fields)
        model.perform(.sync)
        await Self.sync(&model, controller)
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == [bo])

        model.perform(.showTab(.accounts))
        try #require(model.selected?.serverId == acme)
        model.perform(.sync)
        #expect(controller.isRunning)
        await Self.press(.toggleOffline, &model)
        #expect(model.toast?.message == "acme-zürich: stored once this sync ends, then fetched")
        await Self.sync(&model, controller)
        #expect(controller.isRunning, "the queued subscription was stored and its fetch started")
        #expect(try SyncsSoup(store: live.local.store).state(name: "acme-zürich.contacts")?.subscription?.selection == .account(acme))
        await Self.sync(&model, controller)
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == [ada, bo])

        model.perform(.showTab(.accounts))
        await Self.press(.toggleOffline, &model)
        #expect(model.question?.subject == .unsubscribe(name: "acme-zürich"))
        await Self.press(.confirmYes, &model)
        // The account is the config's, and Bo its Oslo sync's: only Ada leaves.
        #expect(model.toast?.message == "acme-zürich removed: 1 record left the store, 2 kept (other syncs hold them)")
        #expect(Set(try live.local.documents("contacts").compactMap { $0["Id"]?.stringValue }) == [bo])
    }
}
