import ContactsApp
import ForceJSON
import Testing

@testable import SmartStore

@Suite("The list's search pages read ahead on an encrypted store")
struct SearchPageWarmupTests {
    @Test func theModelReadsThemAheadWhenItOpensAndAfterEachRefresh() throws {
        let fixture = try StoreFixture(key: StoreKey.random())
        let names = ["Kowalski", "Okafor", "Yamada", "Lovelace", "Núñez", "Henderson"]
        let contacts: [JSONObject] = (0..<2_000).map { index in
            [
                "Id": .string("003WARM\(index)"), "FirstName": .string("Person\(index)"), "LastName": .string(names[index % names.count]),
                "Title": .string("Field Engineer \(index)"), "__local__": false,
            ]
        }
        _ = try fixture.store.create(contacts, in: "contacts")
        let store = fixture.store
        func searchPagesRead() throws -> Int32 {
            #expect(store.waitForSearchPageWarmup())
            return try store.pagesReadFromFile { _ = try store.fullTextMatchIds(soup: "contacts", matching: "k* e*") }
        }

        var model = try AppModel(store: store, syncedFields: try fixture.fields)
        #expect(try searchPagesRead() == 0)
        // A commit empties every reader's cache; the refresh that shows it reads the pages again.
        try fixture.addSyncedContact(first: "Kim", last: "Late")
        try model.refreshAll()
        #expect(try searchPagesRead() == 0)
        // Without a refresh nothing reads them ahead: the test sees the pages a search reads.
        try fixture.addSyncedContact(first: "Kai", last: "Later")
        #expect(try searchPagesRead() > 0)
    }
}
