import ContactsApp
import ForceJSON
import MobileSync
import SmartStore
import Synchronization
import Testing

/// Delete, undelete and revert of the selected record, an account's contacts with it.
@Suite("Local changes: delete, undelete, revert")
struct LocalChangesFeatureTests: DrivesAppModel {
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
