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
        #expect(list.visibleRows.map { $0.string("LastName") }
            == ["adams", "de la Cruz", "Dubois", "García", "garza", "Nunez", "Ñúñez", "Ortiz", "Öztürk", "Zoë", "山田"])
        // The selection is found again in that order (position counts under the same collation).
        try list.moveToBottom()
        try list.move(by: -3)
        #expect(list.selected?.string("LastName") == "Ortiz")
        try fixture.addSyncedContact(first: "X", last: "Álvarez")
        try list.refresh()
        #expect(list.selected?.string("LastName") == "Ortiz" && list.selectedIndex == 8)
    }

    @Test("A search matching most records, but none of the first in sort order, still finds its first page")
    func denseMatchesClusteredLate() throws {
        let fixture = try StoreFixture()
        // 1,000 clerks sort first (A…), then 2,100 engineers (Z…): two thirds match "en", yet
        // the first rows in sort order hold none of them.
        try fixture.store.write { transaction in
            for n in 0..<3_100 {
                let engineer = n >= 1_000
                _ = try transaction.create([[
                    "attributes": ["type": "Contact"], "Id": .string("003C\(n)"), "FirstName": "F",
                    "LastName": .string((engineer ? "Z" : "A") + String(format: "%05d", (n * 7_919) % 3_100)),
                    "Title": .string(engineer ? "Engineer" : "Clerk"),
                    "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false,
                ]], in: "contacts")
            }
        }
        let repository = RecordRepository(store: fixture.store, kind: .contact)
        #expect(FullTextQuery.usesPrefixIndexOnly("en") && !FullTextQuery.usesPrefixIndexOnly("eng"), "the shortcut is for indexed prefixes")
        let matches = try repository.count(matching: "en")
        #expect(matches == 2_100)
        for (offset, limit) in [(0, 20), (15, 40), (500, 40), (2_090, 20)] {
            let sorted = try repository.page(matching: "en", offset: offset, limit: limit, matchCount: nil).map(\.entryId)
            let planned = try repository.page(matching: "en", offset: offset, limit: limit, matchCount: matches)
            #expect(planned.map(\.entryId) == sorted && !sorted.isEmpty, "offset \(offset)")
            #expect(planned.allSatisfy { $0.string("Title") == "Engineer" })
        }
        // And the other way round: the clerks are a third, below the dense share.
        #expect(try repository.page(matching: "clerk", offset: 0, limit: 20, matchCount: 1_000).count == 20)
    }

    @Test("A search with thousands of matches pages in the same order with either query plan")
    func manyMatchesSamePages() throws {
        let fixture = try StoreFixture()
        // 2,600 engineers (above the sorted-scan threshold) and 50 others, in an order unlike sort order.
        try fixture.store.write { transaction in
            for n in 0..<2_650 {
                let last = "L" + String(String((n * 7_919) % 2_650).reversed())
                _ = try transaction.create([[
                    "attributes": ["type": "Contact"], "Id": .string("003N\(n)"), "FirstName": "F", "LastName": .string(last),
                    "Title": .string(n < 2_600 ? "Engineer" : "Clerk"),
                    "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false,
                ]], in: "contacts")
            }
        }
        let repository = RecordRepository(store: fixture.store, kind: .contact)
        #expect(try repository.count(matching: "engin") == 2_600)
        #expect(try repository.count(matching: "clerk") == 50)
        for offset in [0, 37, 2_590] {
            let sorted = try repository.page(matching: "engin", offset: offset, limit: 20, matchCount: nil).map(\.entryId)
            let scanned = try repository.page(matching: "engin", offset: offset, limit: 20, matchCount: 2_600).map(\.entryId)
            #expect(sorted == scanned && !sorted.isEmpty, "offset \(offset)")
        }
        var list = RecordListViewModel(repository: repository)
        try list.refresh()
        try list.setViewportHeight(10)
        try list.setSearch("engin")
        let names = list.visibleRows.map { $0.string("LastName") }
        #expect(names == names.sorted() && list.totalCount == 2_600 && list.selectedIndex == 0)
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
