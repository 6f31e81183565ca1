import ContactsApp
import ForceJSON
import SmartStore
import Testing

@Suite("Lists page from SQLite, search and keep the selection")
struct ListViewModelTests {
    /// 120 contacts: LastName "Name000"…"Name119" inserted in reverse, so insertion order is not sort order.
    func numberedFixture() throws -> StoreFixture {
        let fixture = try StoreFixture()
        for n in (0..<120).reversed() {
            try fixture.addSyncedContact(first: "P\(n)", last: Self.name(n))
        }
        return fixture
    }

    /// "Name007" for 7: zero-padded so text order is number order.
    static func name(_ n: Int) -> String {
        let digits = String(n)
        return "Name" + String(repeating: "0", count: 3 - digits.count) + digits
    }

    @Test("Rows come sorted by last name, one window at a time, and g/G/PgDn move through all of them")
    func paging() throws {
        let fixture = try numberedFixture()
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.refresh()
        try list.setViewportHeight(10)
        #expect(list.totalCount == 120)
        #expect(list.visibleRows.count == 10, "only the visible window is loaded")
        let expected: [String] = (0..<10).map(Self.name)
        let names: [String] = list.visibleRows.map { $0.string("LastName") }
        #expect(names == expected)
        try list.pageDown()
        #expect(list.selected?.string("LastName") == "Name010")
        try list.moveToBottom()
        #expect(list.selected?.string("LastName") == "Name119")
        #expect(list.topIndex == 110)
        try list.move(by: 5)
        #expect(list.selectedIndex == 119, "the selection stops at the last row")
        try list.moveToTop()
        try list.move(by: -1)
        #expect(list.selectedIndex == 0)
    }

    @Test("Search is prefix, accent- and case-insensitive over names, title and email")
    func search() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "JOSÉ", last: "Núñez", title: "Field Engineer")
        try fixture.addSyncedContact(first: "Josefina", last: "Müller", title: "CFO")
        try fixture.addSyncedContact(first: "Ana", last: "Joseph", title: "Buyer")
        try fixture.addSyncedContact(first: "太郎", last: "山田", title: "営業部長")
        try fixture.addSyncedContact(first: "Kim", last: "Lee", extra: ["Email": "kim.lee@exämple.com"])
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.setViewportHeight(10)
        try list.refresh()

        try list.setSearch("jose")
        #expect(Set(list.visibleRows.map { $0.string("LastName") }) == ["Núñez", "Müller", "Joseph"])
        try list.setSearch("nunez jo")
        #expect(list.visibleRows.map { $0.string("LastName") } == ["Núñez"])
        try list.setSearch("MULL")
        #expect(list.visibleRows.map { $0.string("LastName") } == ["Müller"])
        try list.setSearch("field eng")
        #expect(list.totalCount == 1)
        try list.setSearch("kim.lee")
        #expect(list.visibleRows.map { $0.string("LastName") } == ["Lee"])
        try list.setSearch("\"*) - (")
        #expect(list.totalCount == 5, "punctuation alone searches for nothing, so everything shows")
        try list.setSearch("zzz")
        #expect(list.totalCount == 0)
        #expect(list.selected == nil)
        try list.setSearch("")
        #expect(list.totalCount == 5)
    }

    @Test("The list sorts as people read: case and accents ignored, ties in a fixed order")
    func humanSortOrder() throws {
        let fixture = try StoreFixture()
        for last in ["Zoë", "Ñúñez", "adams", "García", "Nunez", "garza", "Öztürk", "Ortiz", "de la Cruz", "Dubois", "山田"] {
            try fixture.addSyncedContact(first: "X", last: last)
        }
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.repository.prepareListIndexes()
        try list.setViewportHeight(20)
        try list.refresh()
        #expect(
            list.visibleRows.map { $0.string("LastName") }
                == ["adams", "de la Cruz", "Dubois", "García", "garza", "Nunez", "Ñúñez", "Ortiz", "Öztürk", "Zoë", "山田"])
        // The selection is found again in that order (position counts under the same collation).
        try list.moveToBottom()
        try list.move(by: -3)
        #expect(list.selected?.string("LastName") == "Ortiz")
        try fixture.addSyncedContact(first: "X", last: "Álvarez")
        try list.refresh()
        #expect(list.selected?.string("LastName") == "Ortiz" && list.selectedIndex == 8)
    }

    /// Contacts made in one transaction: `count` of them, LastName and Title from `fields(n)`.
    func addContacts(_ fixture: StoreFixture, count: Int, fields: (Int) -> (last: String, title: String)) throws {
        try fixture.store.write { transaction in
            for n in 0..<count {
                let (last, title) = fields(n)
                _ = try transaction.create(
                    [
                        [
                            "attributes": ["type": "Contact"], "Id": .string("003T\(n)"), "FirstName": "F", "LastName": .string(last),
                            "Title": .string(title),
                            "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false,
                        ]
                    ], in: "contacts")
            }
        }
    }

    /// What a search must show, by the plain query: every match sorted by SQLite.
    func expectedOrder(_ fixture: StoreFixture, search: String) throws -> [Int64] {
        let terms = try #require(FullTextQuery.prefixTerms(search))
        let sql = """
            SELECT {contacts:_soupEntryId} FROM {contacts} WHERE {contacts:_soupEntryId} IN \
            (SELECT rowid FROM {contacts}_fts WHERE {contacts}_fts MATCH ?) \
            ORDER BY {contacts:LastName} COLLATE \(TextCollation.name), {contacts:_soupEntryId}
            """
        return try fixture.store.query(.smart(sql, pageSize: 100_000), arguments: [.string(terms)])
            .compactMap { $0.arrayValue?.first?.int64Value }
    }

    /// Every row of the list, read a window at a time from the top.
    func allRows(_ list: inout RecordListViewModel) throws -> [Int64] {
        try list.moveToTop()
        var ids: [Int64] = []
        while true {
            for (offset, row) in list.visibleRows.enumerated() where list.topIndex + offset == ids.count { ids.append(row.entryId) }
            guard ids.count < list.totalCount, list.topIndex + list.viewportHeight < list.totalCount else { return ids }
            try list.move(by: list.viewportHeight)
        }
    }

    @Test("Every page of a search is what SQLite's own sort of the matches gives: dense, sparse, clustered late, accented")
    func searchPagesAsSorted() throws {
        let fixture = try StoreFixture()
        // 1,000 clerks sort first (A…), 2,100 engineers last (Z…), inserted in an order unlike sort
        // order, and a few accented names that sort among the plain ones.
        try addContacts(fixture, count: 3_100) { n in
            let engineer = n >= 1_000
            return ((engineer ? "Z" : "A") + String(format: "%05d", (n * 7_919) % 3_100), engineer ? "Engineer" : "Clerk")
        }
        for last in ["Ázúa", "Zoë", "zapata", "Ñúñez"] { try fixture.addSyncedContact(first: "F", last: last, title: "Engineer") }
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.repository.prepareListIndexes()
        try list.setViewportHeight(37)
        try list.refresh()
        for search in ["en", "engineer", "clerk", "z", "a", "f", "nunez", "zzz"] {
            try list.setSearch(search)
            let expected = try expectedOrder(fixture, search: search)
            #expect(list.totalCount == expected.count, "count of \(search)")
            #expect(try allRows(&list) == expected, "pages of \(search)")
        }
        try list.setSearch("")
        #expect(list.totalCount == 3_104)
    }

    @Test("A search sees records another writer added or removed after the list's order was read")
    func searchFollowsOtherWriters() throws {
        let fixture = try StoreFixture()
        try addContacts(fixture, count: 300) { n in ("M" + String(format: "%04d", (n * 37) % 300), n % 2 == 0 ? "Engineer" : "Clerk") }
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.setViewportHeight(10)
        try list.refresh()
        try list.setSearch("en")
        #expect(list.totalCount == 150)
        // A sync (another process) adds an engineer who sorts first, and removes the first match.
        let added = try fixture.addSyncedContact(first: "F", last: "Aaronson", title: "Engineer")
        let removed = try #require(list.visibleRows.first?.entryId)
        try fixture.store.delete([removed], from: "contacts")
        try list.setSearch("eng")
        #expect(list.totalCount == 150 && list.visibleRows.first?.entryId == added["_soupEntryId"]?.int64Value)
        #expect(try allRows(&list) == expectedOrder(fixture, search: "eng"))
        // Removed while its page is on screen: the next move runs the search again.
        try list.moveToTop()
        let onScreen = try #require(list.visibleRows.dropFirst().first?.entryId)
        try fixture.store.delete([onScreen], from: "contacts")
        try list.move(by: 1)
        #expect(list.totalCount == 149 && !list.visibleRows.map(\.entryId).contains(onScreen))
        #expect(list.visibleRows.count == 10)
    }

    @Test("Searching a soup whose entry ids are far apart (after much churn) pages the same way")
    func searchWithScatteredIds() throws {
        let fixture = try StoreFixture()
        try addContacts(fixture, count: 3_000) { n in ("N" + String(format: "%04d", (n * 7_919) % 3_000), n % 3 == 0 ? "Engineer" : "Clerk") }
        // Keep every 250th record: 12 records with ids thousands apart.
        let ids = try fixture.store.query(.smart("SELECT {contacts:_soupEntryId} FROM {contacts}", pageSize: 10_000))
            .compactMap { $0.arrayValue?.first?.int64Value }
        try fixture.store.delete(ids.enumerated().filter { $0.offset % 250 != 0 }.map(\.element), from: "contacts")
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.setViewportHeight(3)
        try list.refresh()
        #expect(list.totalCount == 12)
        for search in ["en", "cl", "n"] {
            try list.setSearch(search)
            #expect(try allRows(&list) == expectedOrder(fixture, search: search), "pages of \(search)")
        }
    }

    @Test("A refresh keeps the selection on the same record when rows appear before it")
    func refreshKeepsSelection() throws {
        let fixture = try numberedFixture()
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.setViewportHeight(10)
        try list.refresh()
        try list.move(by: 50)
        let chosen = try #require(list.selected)
        #expect(chosen.string("LastName") == "Name050")
        // Another process (a sync) adds rows that sort before it.
        for n in 0..<7 { try fixture.addSyncedContact(first: "New", last: "Aaron\(n)") }
        try list.refresh()
        #expect(list.selected?.entryId == chosen.entryId)
        #expect(list.selectedIndex == 57)
    }

    @Test("Typing a search keeps the selected record selected while it still matches")
    func searchKeepsSelection() throws {
        let fixture = try StoreFixture()
        for last in ["Adams", "Baker", "Garcia", "Garner", "Gates", "Young"] { try fixture.addSyncedContact(first: "X", last: last) }
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.setViewportHeight(10)
        try list.refresh()
        try list.move(by: 3)
        #expect(list.selected?.string("LastName") == "Garner")
        try list.setSearch("ga")
        #expect(list.selected?.string("LastName") == "Garner")
        try list.setSearch("gat")
        #expect(list.selected?.string("LastName") == "Gates", "the old selection no longer matches: the first match is selected")
    }

    @Test("A search keeps the selection in the first page, further down, and when it widens past the first page")
    func searchKeepsSelectionWherever() throws {
        let fixture = try numberedFixture()
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.setViewportHeight(10)
        try list.refresh()
        // In the first page: found among the rows on screen.
        try list.move(by: 5)
        try list.setSearch("name")
        #expect(list.selected?.string("LastName") == "Name005" && list.selectedIndex == 5 && list.topIndex == 0)
        // Scrolled down: found by its place, and the window does not jump.
        try list.move(by: 45)
        #expect(list.selected?.string("LastName") == "Name050" && list.topIndex == 41)
        try list.setSearch("nam")
        #expect(list.selected?.string("LastName") == "Name050" && list.selectedIndex == 50 && list.topIndex == 41)
        // A narrower search puts it near the top; widening it again (Backspace) moves it past the first page.
        try list.setSearch("name01")
        #expect(list.totalCount == 10 && list.selected?.string("LastName") == "Name010", "Name050 no longer matches")
        try list.moveToTop()
        try list.move(by: 5)
        #expect(list.selected?.string("LastName") == "Name015" && list.topIndex == 0)
        try list.setSearch("name0")
        #expect(list.selected?.string("LastName") == "Name015" && list.selectedIndex == 15 && list.topIndex == 6)
        #expect(list.visibleRows.map { $0.string("LastName") }.first == "Name006")
    }

    @Test("Records without a last name sort first and can still be found and kept")
    func missingSortField() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "B", last: "Brown")
        let nameless = try fixture.store.create(["FirstName": "Only", "__local__": false], in: "contacts")
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.setViewportHeight(5)
        try list.refresh()
        try list.moveToBottom()
        try list.select(entryId: try #require(nameless["_soupEntryId"]?.int64Value))
        #expect(list.selectedIndex == 0)
        #expect(list.selected?.string("FirstName") == "Only")
    }
}
