import ContactsApp
import MobileSync
import Testing

/// Every toast and question comes from `Messages`, which names keys from the keymap in use.
@Suite("Messages name the keys in use")
struct MessagesTests: DrivesAppModel {
    @Test("With the default keys, messages read as they always have")
    func defaultKeys() {
        let messages = Messages(keymap: AppKeymap.table)
        #expect(messages.savedLocally == "Saved locally; s syncs it")
        #expect(messages.deleted(contacts: 2) == "Deleted locally with its 2 contacts; u undeletes until the next sync")
        #expect(messages.notSignedIn(queued: 1) == "Not signed in: run forceterm login, then s; 1 local change stays queued")
    }

    @Test("A sync that left out fields the org hides says which, after what it exchanged")
    func hiddenFieldsToast() {
        let messages = Messages(keymap: AppKeymap.table)
        let toast = messages.syncFinished(SyncSummary(recordsWithErrors: 0, conflicts: 0, sent: 1, receivedChanges: 2, hiddenFields: ["Department"]))
        #expect(toast.message == "Sync complete! Sent 1 change; 2 records new or changed on the server; the org hides Department from you")
        #expect(!toast.isError)
    }

    @Test("A key rebound in config.toml is the key the toasts and questions name")
    func reboundKeys() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "García")
        var model = try model(fixture)
        model.keymap = try AppKeymap.table(rebinding: ["sync": [.character("S")], "undelete": [.character("U")]])
        model.perform(.deleteRecord)
        #expect(model.question?.text.hasPrefix("Delete Ana García?") == true)
        model.perform(.confirmYes)
        #expect(model.toast?.message == "Deleted locally; U undeletes until the next sync")
        model.perform(.undeleteRecord)
        model.perform(.editRecord)
        type("x", into: &model)
        model.perform(.save)
        #expect(model.toast?.message == "Saved locally; S syncs it")
    }

    @Test("A question's words are fixed when it is asked, and answering it closes it")
    func questionCarriesItsText() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "García")
        var model = try model(fixture)
        model.perform(.deleteRecord)
        #expect(model.mode == .confirmingDelete)
        let asked = try #require(model.selected?.entryId)
        #expect(model.question == Question(subject: .delete, text: model.messages.deleteQuestion(name: "Ana García", cascade: 0), entryId: asked))
        model.perform(.confirmNo)
        #expect(model.question == nil && model.overlay == nil && model.mode == .browsing)
    }
}
