import ContactsApp
import ForceJSON
import MobileSync
import SmartStore
import Synchronization
import Testing

/// A record tab's list: filters and their counts.
@Suite("Records: filters")
struct RecordsFeatureTests: DrivesAppModel {
    @Test("A search finds contacts by their account's name as well as by their own fields")
    func searchByAccountName() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedAccount(name: "Zeta Oy", id: "001Z")
        try fixture.addSyncedAccount(name: "Ångström AB", id: "001A")
        try fixture.addSyncedContact(first: "Carl", last: "Adams", accountId: "001Z")
        try fixture.addSyncedContact(first: "Álvaro", last: "Berg", accountId: "001A")
        try fixture.addSyncedContact(first: "Zeta", last: "Zorn")
        var model = try model(fixture)
        func names(_ model: AppModel) -> [String] { model.list.visibleRows.map { $0.string("LastName") } }
        model.perform(.startSearch)
        type("zeta", into: &model)
        #expect(names(model) == ["Adams", "Zorn"], "Zeta Oy's contact and the one named Zeta")
        model.perform(.clearSearch)
        model.perform(.startSearch)
        type("angstrom", into: &model)
        #expect(names(model) == ["Berg"], "accents folded, as in any search")
    }

    @Test("f shows only the records with local changes, then errors, then conflicts, with their counts; it combines with a search")
    func filterKey() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Clean")
        let bo = try fixture.addSyncedContact(first: "Bo", last: "Edited")
        _ = try RecordRepository(store: fixture.store, kind: .contact).update(entryId: try #require(bo["_soupEntryId"]?.int64Value), fields: ["Title": "New"])
        try fixture.addSyncedContact(
            first: "Cy", last: "Refused",
            extra: [
                "__local__": true, "__locally_updated__": true,
                "__last_error__": [["errorCode": "REQUIRED_FIELD_MISSING", "message": "Required fields are missing: [LastName]", "fields": ["LastName"]]],
            ])
        try fixture.addSyncedContact(
            first: "Di", last: "Disputed",
            extra: [
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
