import ContactsApp
import ForceJSON
import MobileSync
import SmartStore
import Testing

/// `c` on a create the org did not take as it was: a duplicate is saved anyway, opened as the
/// org's record or discarded; a create in doubt takes a candidate or is created anew — written
/// through MobileSync's `CreateDecisions` to the real store file.
@Suite("Duplicates and creates in doubt: c decides")
struct CreateDecisionFeatureTests: DrivesAppModel {
    /// A contact created here that the org's duplicate rule refused, naming `match`.
    func addDuplicate(_ fixture: StoreFixture, match: RecordReference) throws -> JSONObject {
        let error = RecordError(errorCode: "DUPLICATES_DETECTED", message: "Use one of these records?", duplicates: [match])
        return try fixture.addSyncedContact(
            first: "Augusta", last: "King",
            extra: [
                "Id": "local_7", "__local__": true, "__locally_created__": true, "Email": "ada@example.org",
                "__last_error__": .string(JSONWriter.string(.array([error.json]))),
            ])
    }

    @Test("A duplicate: c shows the org's match; a saves it anyway on the next sync")
    func saveAnyway() throws {
        let fixture = try StoreFixture()
        let match = try fixture.addSyncedContact(first: "Ada", last: "Lovelace")
        let matchId = try #require(match["Id"]?.stringValue)
        let saved = try addDuplicate(fixture, match: RecordReference(id: matchId, name: "Ada Lovelace"))
        var model = try model(fixture)
        let entryId = try #require(saved["_soupEntryId"]?.int64Value)
        #expect(model.selected?.entryId == entryId, "King sorts before Lovelace")
        model.perform(.resolveConflict)
        #expect(model.mode == .decidingCreate)
        let dialog = try #require(model.createDecision)
        let words = model.messages.createDecision(dialog, name: "Augusta King")
        #expect(words.question.contains("Ada Lovelace (\(matchId))") && words.choices.hasPrefix("a = save anyway"))
        model.perform(.decide(.saveAnyway))
        #expect(model.mode == .browsing)
        let stored = try fixture.document(entryId)
        #expect(stored[LocalField.allowDuplicate] == true && stored[LocalField.lastError] == nil && stored["__local__"] == true)
        #expect(model.toast?.message.hasPrefix("The next sync (s) sends it again") == true)
    }

    @Test("A duplicate: o opens the org's record when it is held here; x discards mine")
    func openThenDiscard() throws {
        let fixture = try StoreFixture()
        let match = try fixture.addSyncedContact(first: "Ada", last: "Lovelace")
        let matchId = try #require(match["Id"]?.stringValue)
        let saved = try addDuplicate(fixture, match: RecordReference(id: matchId, name: "Ada Lovelace"))
        var model = try model(fixture)
        let entryId = try #require(saved["_soupEntryId"]?.int64Value)
        model.perform(.resolveConflict)
        model.perform(.decide(.openExisting))
        #expect(model.selected?.serverId == matchId)
        model.perform(.moveToTop)
        #expect(model.selected?.entryId == entryId)
        model.perform(.resolveConflict)
        model.perform(.decide(.discard))
        #expect(try fixture.store.retrieve([entryId], from: "contacts").isEmpty, "a create never sent is removed")
        #expect(model.toast?.message == "Discarded yours; the org's record stays")
    }

    @Test("A create in doubt: a number takes that candidate, n creates it anew; keys of the other kind leave the dialog open")
    func inDoubt() throws {
        let fixture = try StoreFixture()
        let saved = try fixture.addSyncedContact(
            first: "Lena", last: "Flow",
            extra: [
                "Id": "local_9", "__local__": true, "__locally_created__": true,
                "__create_in_flight__": ["sentAt": 1, "fields": ["LastName": "Flow", "FirstName": "Lena"]],
                "__create_in_doubt__": [
                    "reason": "no record on the server holds every value sent",
                    "candidates": [["Id": "003000000000001AAA", "Name": "Lena Flow"]],
                ],
                "__last_error__": .string(JSONWriter.string(.array([RecordError(errorCode: "CREATE_IN_DOUBT", message: "…").json]))),
            ])
        var model = try model(fixture)
        let entryId = try #require(saved["_soupEntryId"]?.int64Value)
        model.perform(.resolveConflict)
        #expect(model.mode == .decidingCreate)
        model.perform(.decide(.saveAnyway))
        #expect(model.mode == .decidingCreate, "a is for duplicates")
        model.perform(.decide(.adopt(1)))
        let stored = try fixture.document(entryId)
        #expect(stored["Id"] == "003000000000001AAA" && stored[LocalField.createInDoubt] == nil && stored["__locally_created__"] == false)
        #expect(model.toast?.message == "It is the server's Lena Flow (003000000000001AAA) now")
    }

    @Test("A new contact that looks like one here (same name, no account) is saved with the warning the org's rule may refuse it")
    func likelyDuplicateSaidAtSave() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Chloé", last: "Dubois")
        var model = try model(fixture)
        model.perform(.newRecord)
        type("chloe", into: &model)
        model.perform(.nextField)
        type("DUBOIS", into: &model)
        model.perform(.save)
        #expect(model.mode == .browsing)
        #expect(model.toast?.message == "Saved locally; it looks like Chloé Dubois here (the same name and account): the org's duplicate rule may refuse it")
    }

    @Test("The ? screen lists the decision's keys, the numbered ones once")
    func helpLines() {
        let lines = AppKeymap.table.helpLines(for: .decidingCreate, ascii: false)
        #expect(lines.contains { $0.help == "a duplicate: save it anyway" })
        #expect(lines.filter { $0.help.hasPrefix("in doubt: the server's record") }.count == 9)
    }
}
