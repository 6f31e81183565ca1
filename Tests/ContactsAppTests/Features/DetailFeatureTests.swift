import ContactsApp
import ForceJSON
import MobileSync
import SmartStore
import Synchronization
import Testing

/// Enter and back: the detail, a contact's account, an account's contact, and the way back.
@Suite("Detail and navigation")
struct DetailFeatureTests: DrivesAppModel {
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

    @Test("Back goes more than one level: contact → its account → another of its contacts, and back the same way")
    func backThroughSeveralLevels() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedAccount(name: "Zeta", id: "001Z")
        try fixture.addSyncedContact(first: "Ana", last: "Able", accountId: "001Z")
        try fixture.addSyncedContact(first: "Bo", last: "Busy", accountId: "001Z")
        var model = try model(fixture)
        model.perform(.openDetail)
        model.perform(.openDetail)
        #expect(model.tab == .accounts && model.accountContacts.count == 2)
        model.perform(.moveDown)
        model.perform(.openDetail)
        #expect(model.tab == .contacts && model.detailOpen && model.selected?.string("LastName") == "Busy")
        #expect(model.backStack.count == 2)
        model.perform(.back)
        #expect(model.tab == .accounts && model.detailOpen && model.selected?.string("Name") == "Zeta")
        #expect(model.accountContacts.count == 2, "the account's contacts are listed again")
        model.perform(.back)
        #expect(model.tab == .contacts && model.detailOpen && model.selected?.string("LastName") == "Able")
        model.perform(.back)
        #expect(!model.detailOpen && model.backStack.isEmpty)
    }

    @Test("Switching tabs forgets the way back")
    func tabSwitchClearsHistory() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedAccount(name: "Zeta", id: "001Z")
        try fixture.addSyncedContact(first: "Ana", last: "Able", accountId: "001Z")
        var model = try model(fixture)
        model.perform(.openDetail)
        model.perform(.openDetail)
        #expect(model.backStack.count == 1)
        model.perform(.showTab(.contacts))
        #expect(model.backStack.isEmpty && !model.detailOpen)
    }
}
