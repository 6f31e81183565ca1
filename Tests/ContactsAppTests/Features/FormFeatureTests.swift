import ContactsApp
import ForceJSON
import MobileSync
import SmartStore
import Synchronization
import Testing

/// The edit form: new and edit, the rules checked on save, the discard question, the pickers.
@Suite("The form: create, edit, save, discard, pick")
struct FormFeatureTests: DrivesAppModel {
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

    @Test("A sync while the form is open: fields left alone keep the sync's values; a field changed on both sides is said before it is saved over")
    func syncWhileEditing() throws {
        let fixture = try StoreFixture()
        let synced = try fixture.addSyncedContact(first: "Ana", last: "García", title: "Analista")
        let entryId = try #require(synced[SmartStore.soupEntryId]?.int64Value)
        var model = try model(fixture)
        model.perform(.editRecord)
        type("x", into: &model)  // FirstName
        // The sync in the background brings another user's changes to the record.
        func syncBrings(_ fields: JSONObject) throws {
            var document = try fixture.document(entryId)
            for (key, value) in fields { document[key] = value }
            _ = try fixture.store.update(document, id: entryId, in: "contacts")
        }
        try syncBrings(["Title": "Jefa de ventas", "Department": "Ventas"])
        model.perform(.save)
        #expect(model.mode == .browsing)
        var stored = try fixture.document(entryId)
        #expect(stored["FirstName"]?.stringValue == "Anax")
        #expect(
            stored["Title"]?.stringValue == "Jefa de ventas" && stored["Department"]?.stringValue == "Ventas",
            "the values the form showed when it opened are not saved back over the sync's")

        model.perform(.editRecord)
        model.perform(.nextField)
        type("z", into: &model)  // LastName: "Garcíaz"
        try syncBrings(["LastName": "Gómez", "Title": "Directora"])
        model.perform(.save)
        #expect(model.mode == .editing, "not saved over a value the user has not seen")
        #expect(model.toast == Toast("Not saved: a sync changed Last name to “Gómez”; Ctrl-S keeps yours", isError: true))
        #expect(model.form?.fields.first { $0.name == "Title" }?.value == "Directora", "the form shows what the sync brought")
        #expect(try fixture.document(entryId)["LastName"]?.stringValue == "Gómez")
        model.perform(.save)
        #expect(model.mode == .browsing)
        stored = try fixture.document(entryId)
        #expect(stored["LastName"]?.stringValue == "Garcíaz" && stored["Title"]?.stringValue == "Directora")
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

    @Test("A record the org refused: its errors in words, and e opens the form on the fields they name, marked")
    func refusedRecordRepair() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(
            first: "Ana", last: "Moreno",
            extra: [
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

extension FormFeatureTests {
    @Test("Saving keeps the search: the list stays narrowed and the saved record selected")
    func searchSurvivesSave() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Wolf")
        try fixture.addSyncedContact(first: "Bo", last: "Wolfe")
        try fixture.addSyncedContact(first: "Cy", last: "Zapata")
        var model = try model(fixture)
        model.perform(.startSearch)
        type("wolf", into: &model)
        model.perform(.keepSearch)
        #expect(model.list.totalCount == 2)
        model.perform(.moveDown)
        let edited = try #require(model.selected?.entryId)
        model.perform(.editRecord)
        model.perform(.nextField)
        model.perform(.nextField)
        type("Chief", into: &model)
        model.perform(.save)
        #expect(model.list.search == "wolf" && model.list.totalCount == 2, "the search is still on")
        #expect(model.selected?.entryId == edited && model.selected?.string("Title") == "Chief")
        // A new contact the search does not match is saved, selected and shown, and the toast says so.
        model.perform(.newRecord)
        type("Dee", into: &model)
        model.perform(.nextField)
        type("Zed", into: &model)
        model.perform(.save)
        #expect(model.list.totalCount == 3 && model.selected?.string("LastName") == "Zed")
        #expect(model.toast?.message == "Saved; shown though /wolf no longer matches it; s syncs it")
        // Changing the search lets it go.
        model.perform(.startSearch)
        type("e", into: &model)
        model.perform(.keepSearch)
        #expect(model.list.search == "wolfe" && model.list.totalCount == 1)
    }

    @Test("An edit that makes the record miss the search keeps it selected: the next record never slides under the cursor")
    func editedOutOfTheSearchStaysSelected() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Søren", last: "Rossi")
        try fixture.addSyncedContact(first: "Søren", last: "Silva")
        try fixture.addSyncedContact(first: "Ana", last: "Zapata")
        var model = try model(fixture)
        model.perform(.startSearch)
        type("sor", into: &model)
        model.perform(.keepSearch)
        #expect(model.list.totalCount == 2)
        let rossi = try #require(model.selected)
        #expect(rossi.string("LastName") == "Rossi")
        model.perform(.editRecord)
        for _ in 0..<5 { model.perform(.deleteBackward) }
        type("Sven", into: &model)
        model.perform(.save)
        #expect(model.selected?.entryId == rossi.entryId && model.selected?.string("FirstName") == "Sven", "still the record just edited")
        #expect(model.list.totalCount == 2, "Silva and the kept Sven Rossi")
        #expect(model.toast?.message == "Saved; shown though /sor no longer matches it; s syncs it")
        model.perform(.moveDown)
        model.perform(.moveUp)
        #expect(model.selected?.entryId == rossi.entryId, "kept while moving about")
        // Read again (after a sync, another process's writes), the list is what the search matches.
        try model.refreshAll()
        #expect(model.list.totalCount == 1 && model.list.keptInView == nil)
    }
}
