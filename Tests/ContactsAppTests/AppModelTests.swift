import ContactsApp
import ForceJSON
import MobileSync
import SmartStore
import Synchronization
import Testing

@Suite("The app model: commands, forms, prompts and sync state")
struct AppModelTests {
    func model(_ fixture: StoreFixture, sync: SyncController? = nil, offline: Bool = false) throws -> AppModel {
        var model = try AppModel(store: fixture.store, syncedFields: fixture.fields, sync: sync, offline: offline)
        model.setListHeight(10)
        return model
    }

    func type(_ text: String, into model: inout AppModel) {
        for character in text { model.type(character) }
    }

    @Test("n, typing and save create a contact; the new record is selected and counted as a local change")
    func createThroughCommands() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Zapata")
        var model = try model(fixture)
        model.perform(.newRecord)
        #expect(model.mode == .editing)
        type("Chloé", into: &model)
        model.perform(.nextField)
        type("Dubois", into: &model)
        model.perform(.save)
        #expect(model.mode == .browsing)
        #expect(model.selected?.string("LastName") == "Dubois")
        #expect(model.selected?.state == .created)
        #expect(model.localChangeCount == 1)
        #expect(model.toast?.message == "Saved locally; s syncs it")
    }

    @Test("Saving an invalid form keeps the form open with the problem shown and writes nothing")
    func invalidSave() throws {
        let fixture = try StoreFixture()
        var model = try model(fixture)
        model.perform(.newRecord)
        type("Nobody", into: &model)
        model.perform(.save)
        #expect(model.mode == .editing)
        #expect(model.form?.problems["LastName"] == "Last name is required")
        #expect(try fixture.store.count(.all("contacts")) == 0)
    }

    @Test("Esc on a changed form asks first; n goes back to the form, y discards")
    func unsavedChangesPrompt() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "García")
        var model = try model(fixture)
        model.perform(.editRecord)
        type("x", into: &model)
        model.perform(.cancelEdit)
        #expect(model.mode == .confirmingDiscard)
        model.perform(.confirmNo)
        #expect(model.mode == .editing)
        #expect(model.form?.isDirty == true)
        model.perform(.cancelEdit)
        model.perform(.confirmYes)
        #expect(model.mode == .browsing)
        #expect(model.form == nil)
        #expect(model.selected?.state == .clean, "nothing was saved")
        // An untouched form closes without asking.
        model.perform(.editRecord)
        model.perform(.cancelEdit)
        #expect(model.mode == .browsing)
    }

    @Test("d asks; y deletes and keeps the row visible; u undeletes")
    func deleteFlow() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "García")
        var model = try model(fixture)
        model.perform(.deleteRecord)
        #expect(model.mode == .confirmingDelete)
        model.perform(.confirmNo)
        #expect(model.selected?.state == .clean)
        model.perform(.deleteRecord)
        model.perform(.confirmYes)
        #expect(model.selected?.state == .deleted)
        #expect(model.list.totalCount == 1)
        model.perform(.editRecord)
        #expect(model.mode == .browsing, "a deleted record is undeleted before it is edited")
        model.perform(.undeleteRecord)
        #expect(model.selected?.state == .clean)
        #expect(model.localChangeCount == 0)
    }

    @Test("A contact created under an account created offline carries the account's local id")
    func contactUnderOfflineAccount() throws {
        let fixture = try StoreFixture()
        var model = try model(fixture)
        model.perform(.showTab(.accounts))
        model.perform(.newRecord)
        type("Café Olé", into: &model)
        model.perform(.save)
        let account = try #require(model.selected)
        let accountId = try #require(account.serverId)
        #expect(LocalField.isLocalId(accountId))
        model.perform(.openDetail)
        model.perform(.newRecord)
        #expect(model.form?.title == "New contact at Café Olé")
        model.perform(.nextField)
        type("Haas", into: &model)
        model.perform(.save)
        let contacts = try RecordRepository(store: fixture.store, kind: .contact).records(where: "AccountId", equals: accountId, limit: 10)
        #expect(contacts.map { $0.string("LastName") } == ["Haas"])
        #expect(contacts.first?.state == .created)
        #expect(model.accountContacts.map { $0.string("LastName") } == ["Haas"], "the open account lists its new contact")
        // Enter on it opens the contact in the Contacts tab.
        model.perform(.openDetail)
        #expect(model.tab == .contacts)
        #expect(model.selected?.string("LastName") == "Haas")
    }

    @Test("Without a sync engine, s says so and keeps changes queued; --offline says it is offline")
    func syncNotSetUp() throws {
        let fixture = try StoreFixture()
        _ = try RecordRepository(store: fixture.store, kind: .contact).create(fields: ["LastName": "Queued"])
        var model = try model(fixture)
        model.perform(.sync)
        #expect(model.toast == Toast("Not signed in: run forceterm login, then press s again; 1 local change stays queued", isError: true))
        var offline = try self.model(fixture, offline: true)
        offline.perform(.sync)
        #expect(offline.toast?.message == "Offline: sync skipped; 1 local change stays queued")
        #expect(try fixture.store.count(.exact("contacts", path: "__local__", matchKey: true)) == 1)
    }

    @Test("One progress bar for the whole run: each sync is its share, and it never falls back between syncs")
    func progressAcrossSyncs() {
        let steps = [(0, 0), (0, 100), (1, 0), (1, 50), (2, 0), (3, 0), (3, 100)].map { step, percent in
            SyncProgress(step: step, of: 4, phase: "Sync", percent: percent)
        }
        #expect(steps.map(\.fraction) == [0, 0.25, 0.25, 0.375, 0.5, 0.75, 1])
        #expect(steps[3].phase == "Sync 2/4")
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
        #expect(SyncProgress(step: 7, of: 0, phase: "Sync", percent: 250).fraction == 1, "out-of-range input stays on the bar")
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
        while controller.isRunning { await Task.yield() }
        model.tick()
        #expect(model.toast == Toast("Sync done: 1 with errors (e fixes); sent 0 changes; 1 record new or changed on the server", isError: true))
        #expect(model.list.totalCount == 2, "the list shows what the sync wrote")
        #expect(model.selected?.string("LastName") == "Moreno", "the selection stays on the same record")
    }
}

extension AppModelTests {
    @Test("A named sync that failed alone is named in the toast, as an error")
    func failedSyncNamed() async throws {
        let fixture = try StoreFixture()
        let service = StepSync(store: fixture.store, failedSyncs: ["syncDownLayouts"])
        let controller = SyncController(service: service)
        var model = try model(fixture, sync: controller)
        model.perform(.sync)
        service.finish()
        while controller.isRunning { await Task.yield() }
        model.tick()
        #expect(model.toast == Toast("Sync finished, but syncDownLayouts failed (the Syncs tab says why); 1 with errors (e fixes); sent 0 changes; 1 record new or changed on the server", isError: true))
    }
}

extension AppModelTests {
    @Test("r asks, then puts every local change back to the server's version; a record created here is removed; n keeps it")
    func revertKey() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Moreno", title: "CTO")
        var model = try model(fixture)
        model.perform(.revertRecord)
        #expect(model.mode == .browsing && model.toast?.message == "This contact has no local changes to revert")

        model.perform(.editRecord)
        model.perform(.nextField)
        model.perform(.nextField)
        model.perform(.clearLine)
        type("Chief Everything", into: &model)
        model.perform(.save)
        #expect(model.selected?.string("Title") == "Chief Everything" && model.localChangeCount == 1)
        model.perform(.revertRecord)
        #expect(model.mode == .confirmingRevert)
        #expect(model.revertQuestion == "Revert Ana Moreno? Your local changes are dropped and it goes back to the server's version.")
        model.perform(.confirmNo)
        #expect(model.mode == .browsing && model.selected?.string("Title") == "Chief Everything", "n keeps the change")
        model.perform(.revertRecord)
        model.perform(.confirmYes)
        #expect(model.selected?.string("Title") == "CTO" && model.selected?.state == .clean && model.localChangeCount == 0)
        #expect(model.toast?.message == "Reverted to the server's version")

        model.perform(.newRecord)
        model.perform(.nextField)
        type("Nueva", into: &model)
        model.perform(.save)
        #expect(model.list.totalCount == 2)
        model.perform(.revertRecord)
        #expect(model.revertQuestion.contains("created here and never synced, so it is removed"))
        model.perform(.confirmYes)
        #expect(model.list.totalCount == 1 && model.localChangeCount == 0)
        #expect(model.toast?.message == "Removed: it was never on the server")
    }
}

extension AppModelTests {
    @Test("f shows only the records with local changes, then errors, then conflicts, with their counts; it combines with a search")
    func filterKey() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Clean")
        let bo = try fixture.addSyncedContact(first: "Bo", last: "Edited")
        _ = try RecordRepository(store: fixture.store, kind: .contact).update(entryId: try #require(bo["_soupEntryId"]?.int64Value), fields: ["Title": "New"])
        try fixture.addSyncedContact(first: "Cy", last: "Refused", extra: [
            "__local__": true, "__locally_updated__": true,
            "__last_error__": [["errorCode": "REQUIRED_FIELD_MISSING", "message": "Required fields are missing: [LastName]", "fields": ["LastName"]]],
        ])
        try fixture.addSyncedContact(first: "Di", last: "Disputed", extra: [
            "__local__": true, "__locally_updated__": true, "__conflict__": ["server": ["LastName": "Disputed"], "fields": ["Title"]],
        ])
        var model = try model(fixture)
        #expect(model.filterCounts == [.pending: 3, .errors: 1, .conflicts: 1])
        func names(_ model: AppModel) -> [String] { model.list.visibleRows.map { $0.string("LastName") } }
        #expect(names(model).count == 4 && model.list.filter == .all)
        model.perform(.nextFilter)
        #expect(model.list.filter == .pending && names(model) == ["Disputed", "Edited", "Refused"])
        model.perform(.nextFilter)
        #expect(model.list.filter == .errors && names(model) == ["Refused"])
        model.perform(.nextFilter)
        #expect(model.list.filter == .conflicts && names(model) == ["Disputed"])
        model.perform(.nextFilter)
        #expect(model.list.filter == .all && names(model).count == 4)

        model.perform(.nextFilter)
        model.perform(.startSearch)
        type("ed", into: &model)
        #expect(names(model) == ["Edited"], "the search within the filter")
        model.perform(.clearSearch)
        model.perform(.revertRecord)
        model.perform(.confirmYes)
        #expect(model.toast?.message == "Reverted to the server's version")
        #expect(model.filterCounts[.pending] == 2, "counts follow changes")
        #expect(names(model) == ["Disputed", "Refused"], "the reverted record left the filtered list")
    }
}

extension AppModelTests {
    @Test("A record the org refused: its errors in words, and e opens the form on the fields they name, marked")
    func refusedRecordRepair() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Moreno", extra: [
            "__local__": true, "__locally_updated__": true,
            "__last_error__": [
                ["errorCode": "REQUIRED_FIELD_MISSING", "message": "Required fields are missing: [LastName]", "fields": ["LastName"]],
                ["errorCode": "SOMETHING_NEW", "message": "The org says no", "fields": []],
            ],
        ])
        var model = try model(fixture)
        let record = try #require(model.selected)
        let errors = RecordSyncError.errors(of: record)
        #expect(errors.map(\.sentence) == ["a required field is empty — Required fields are missing: [LastName]", "The org says no"])
        #expect(errors.first?.fields == ["LastName"])
        #expect(RecordSyncError.errors(of: try LocalRecord(document: ["_soupEntryId": 9, "__last_error__": "plain text"])).map(\.message) == ["plain text"])
        model.perform(.editRecord)
        #expect(model.form?.problems == ["LastName": "a required field is empty"])
        #expect(model.form?.focused?.name == "LastName", "the form opens on the field to fix")
        model.perform(.clearLine)
        type("Moreno-Ruiz", into: &model)
        #expect(model.form?.problems.isEmpty == true, "editing the field clears its mark")
    }
}

extension AppModelTests {
    @Test("Deleting an account says how many contacts Salesforce deletes with it and marks them; undeleting brings them back")
    func deleteAccountCascades() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedAccount(name: "Acme", id: "001A")
        try fixture.addSyncedAccount(name: "Other", id: "001B")
        for name in ["One", "Two"] { try fixture.addSyncedContact(first: name, last: "Acme", accountId: "001A") }
        try fixture.addSyncedContact(first: "Three", last: "Other", accountId: "001B")
        var model = try model(fixture)
        model.perform(.showTab(.accounts))
        #expect(model.selected?.string("Name") == "Acme")
        #expect(model.cascadeCount(of: try #require(model.selected)) == 2)
        model.perform(.deleteRecord)
        model.perform(.confirmYes)
        #expect(model.toast?.message == "Deleted locally with its 2 contacts; u undeletes until the next sync")
        let contacts = try RecordRepository(store: fixture.store, kind: .contact)
        #expect(try contacts.records(where: "AccountId", equals: "001A", limit: 10).allSatisfy(\.isLocallyDeleted))
        #expect(try contacts.records(where: "AccountId", equals: "001B", limit: 10).allSatisfy { !$0.isLocallyDeleted })
        #expect(model.localChangeCount == 3)
        model.perform(.undeleteRecord)
        #expect(model.toast?.message == "Undeleted with its 2 contacts")
        #expect(model.localChangeCount == 0, "undeleted, nothing is left to send")
        #expect(try contacts.records(where: "AccountId", equals: "001A", limit: 10).allSatisfy { !$0.isLocallyDeleted })
    }
}

extension AppModelTests {
    @Test("Enter in a contact's detail opens its account; back returns to the contact")
    func contactToAccountAndBack() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedAccount(name: "Acme", id: "001A")
        try fixture.addSyncedAccount(name: "Zeta", id: "001Z")
        try fixture.addSyncedContact(first: "Ana", last: "Alone")
        try fixture.addSyncedContact(first: "Bo", last: "Busy", accountId: "001Z")
        var model = try model(fixture)
        model.perform(.openDetail)
        model.perform(.openDetail)
        #expect(model.tab == .contacts && model.toast?.message == "This contact has no account")
        model.perform(.back)
        model.perform(.moveDown)
        model.perform(.openDetail)
        model.perform(.openDetail)
        #expect(model.tab == .accounts && model.detailOpen && model.selected?.string("Name") == "Zeta")
        #expect(model.accountContacts.map { $0.string("LastName") } == ["Busy"])
        model.perform(.back)
        #expect(model.tab == .contacts && model.detailOpen && model.selected?.string("LastName") == "Busy")
        model.perform(.back)
        #expect(!model.detailOpen)
    }
}

extension AppModelTests {
    @Test("A contact's account is picked in the form from a search-as-you-type list, shown by name, and can be cleared")
    func accountLookup() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedAccount(name: "Acme", id: "001A")
        try fixture.addSyncedAccount(name: "Zeta Logistics", id: "001Z")
        try fixture.addSyncedContact(first: "Bo", last: "Busy", accountId: "001A")
        var model = try model(fixture)
        model.perform(.editRecord)
        var form = try #require(model.form)
        let account = try #require(form.fields.first { $0.name == "AccountId" })
        #expect(account.lookup == .account && model.lookupDisplay(account) == "Acme")
        while model.form?.focused?.name != "AccountId" { model.perform(.nextField) }
        type("xyz", into: &model)
        #expect(model.form?.focused?.value == "001A", "a lookup is not typed into")
        model.perform(.openLookup)
        #expect(model.mode == .pickingLookup && model.lookupPicker?.list.totalCount == 2)
        #expect(model.lookupPicker?.list.selected?.string("Name") == "Acme", "the current account is selected")
        type("zet", into: &model)
        #expect(model.lookupPicker?.list.visibleRows.map { $0.string("Name") } == ["Zeta Logistics"])
        model.perform(.keepSearch)
        #expect(model.mode == .editing && model.lookupPicker == nil)
        form = try #require(model.form)
        let picked = try #require(form.focused)
        #expect(picked.value == "001Z" && model.lookupDisplay(picked) == "Zeta Logistics")
        model.perform(.save)
        #expect(model.selected?.string("AccountId") == "001Z" && model.selected?.state == .updated)
        #expect(model.selected?.document["__base__"]?["AccountId"] == "001A", "the base is kept for a field-level merge")

        model.perform(.editRecord)
        while model.form?.focused?.name != "AccountId" { model.perform(.nextField) }
        model.perform(.openLookup)
        model.perform(.clearSearch)
        #expect(model.form?.focused?.value == "001Z", "Esc leaves it as it was")
        model.perform(.openLookup)
        model.perform(.clearLine)
        #expect(model.form?.focused?.value == "")
        model.perform(.save)
        #expect(model.selected?.document["AccountId"] == .null, "no account")
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

extension AppModelTests {
    @Test("The status line and s follow the session as it is when s is pressed: signed out, then signed in elsewhere")
    func sessionPickedUp() async throws {
        let fixture = try StoreFixture()
        let service = SessionSync()
        let controller = SyncController(service: service)
        var model = try model(fixture, sync: controller)
        #expect(model.statusParts.first == "not signed in — forceterm login")
        model.perform(.sync)
        #expect(model.toast?.message.hasPrefix("Not signed in: run forceterm login, then press s again") == true)
        #expect(!controller.isRunning)
        service.state.withLock { $0 = .signedIn }
        model.perform(.sync)
        #expect(controller.isRunning, "the new sign-in is used without restarting")
        while controller.isRunning { await Task.yield() }
        model.tick()
        #expect(model.toast?.message == "Sync complete! Sent 0 changes; nothing new on the server")
        #expect(model.statusParts.first == "online")
    }
}

/// A stand-in for MobileSync, which does not exist on this branch yet: it reports progress, then
/// waits until the test lets it finish, and writes one record into the real store as a sync down would.
final class StepSync: SyncService {
    private let store: SmartStore
    private let released = Mutex(false)
    private let reported = Mutex(false)
    private let failedSyncs: [String]

    init(store: SmartStore, failedSyncs: [String] = []) {
        self.store = store
        self.failedSyncs = failedSyncs
    }

    func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        progress(SyncProgress(phase: "Sync down", fraction: 0.5))
        reported.withLock { $0 = true }
        while !released.withLock({ $0 }) { await Task.yield() }
        _ = try store.create(["Id": "003A", "LastName": "Aaronson", "__local__": false], in: "contacts")
        return SyncSummary(recordsWithErrors: 1, conflicts: 0, failedSyncs: failedSyncs, receivedChanges: 1)
    }

    func finish() { released.withLock { $0 = true } }

    func waitUntilProgressReported() async {
        while !reported.withLock({ $0 }) { await Task.yield() }
    }
}
