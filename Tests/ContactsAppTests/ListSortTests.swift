import ContactsApp
import ForceJSON
import Foundation
import SmartStore
import Testing

/// `o`: the list sorted by first name, account or last modified, paged, searched and kept on the
/// selected record as the default order is.
@Suite("Lists sort by last name, first name, account and last modified")
struct ListSortTests {
    func fixture() throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.addSyncedAccount(name: "Zeta Oy", id: "001Z")
        try fixture.addSyncedAccount(name: "Ångström AB", id: "001A")
        try fixture.addSyncedContact(first: "Carl", last: "Adams", accountId: "001Z")
        try fixture.addSyncedContact(first: "Álvaro", last: "Berg", accountId: "001A")
        try fixture.addSyncedContact(first: "", last: "Nofirst")
        try fixture.addSyncedContact(first: "bea", last: "Zorn", accountId: "001A")
        return fixture
    }

    static func names(_ list: RecordListViewModel) -> [String] { list.visibleRows.map { $0.string("LastName") } }

    @Test("each order, the selection kept on its record, searching within it, and back to last name")
    func orders() throws {
        let fixture = try fixture()
        var list = RecordListViewModel(repository: RecordRepository(store: fixture.store, kind: .contact))
        try list.refresh()
        try list.setViewportHeight(10)
        #expect(Self.names(list) == ["Adams", "Berg", "Nofirst", "Zorn"])
        try list.move(by: 3)
        #expect(list.selected?.string("LastName") == "Zorn")

        try list.setSort(.firstName, accountsSoup: "accounts")
        #expect(Self.names(list) == ["Berg", "Zorn", "Adams", "Nofirst"], "Álvaro, bea, Carl (accents and case ignored), no first name last")
        #expect(list.selected?.string("LastName") == "Zorn" && list.selectedIndex == 1, "the selection follows its record")

        try list.setSort(.account, accountsSoup: "accounts")
        #expect(Self.names(list) == ["Berg", "Zorn", "Adams", "Nofirst"], "Ångström AB's two (by last name), Zeta Oy's, none last")

        try list.setSearch("zorn")
        #expect(list.totalCount == 1 && Self.names(list) == ["Zorn"])
        try list.setSearch("")

        _ = try RecordRepository(store: fixture.store, kind: .contact).update(entryId: try #require(list.visibleRows.last?.entryId), fields: ["Title": "Changed"])
        try list.setSort(.lastModified, accountsSoup: "accounts")
        #expect(Self.names(list).first == "Nofirst", "the one changed last comes first")
        try list.refresh()
        #expect(list.totalCount == 4)

        try list.setSort(.name, accountsSoup: "accounts")
        #expect(Self.names(list) == ["Adams", "Berg", "Nofirst", "Zorn"])
    }

    @Test("config.toml's order applies from the start, by account too, and its second column")
    func settingsApplyFromTheStart() throws {
        let fixture = try fixture()
        var model = try AppModel(store: fixture.store, syncedFields: try fixture.fields)
        try model.applyListSettings(sort: .account, columns: ["accounts": "Id"])
        model.setListHeight(10)
        #expect(model.list.repository.sort == .account)
        #expect(Self.names(model.list) == ["Berg", "Zorn", "Adams", "Nofirst"])
        #expect(model.list.selectedIndex == 0 && model.selected?.string("LastName") == "Berg", "opens at the top of its order")
        #expect(model.listColumns == ["accounts": "Id"])
        _ = model.tick()
        #expect(Self.names(model.list) == ["Berg", "Zorn", "Adams", "Nofirst"], "a refresh keeps the order")
    }

    @Test("o cycles the orders a kind offers and the header names it; accounts offer name and last modified")
    func appModelCycles() throws {
        let fixture = try fixture()
        var model = try AppModel(store: fixture.store, syncedFields: try fixture.fields)
        model.setListHeight(10)
        var seen: [ListSort] = []
        for _ in 0..<4 {
            model.perform(.nextSort)
            seen.append(model.list.repository.sort)
        }
        #expect(seen == [.firstName, .account, .lastModified, .name])
        #expect(model.toast?.message == "Sorted by last name; o for the next order")
        model.perform(.showTab(.accounts))
        model.perform(.nextSort)
        #expect(model.list.repository.sort == .lastModified)
        model.perform(.nextSort)
        #expect(model.list.repository.sort == .name)
        #expect(ListSort.choices(for: .account) == [.name, .lastModified])
    }
}
