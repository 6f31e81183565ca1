import ContactsApp
import ForceJSON
import Foundation
import MobileSync
import SmartStore
import Testing

/// The Syncs and Inspector tabs and the status line, over a real store file.
@Suite("Syncs and Inspector tabs, status line")
struct SyncsAndInspectorTests: DrivesAppModel {
    /// The four named syncs of the built-in usersyncs.json, the down one of contacts after a run.
    func addSyncs(_ fixture: StoreFixture) throws {
        let syncs = try SyncsSoup(store: fixture.store)
        _ = try syncs.apply(SyncsConfig(json: DefaultConfig.usersyncsJSON))
        var state = try #require(try syncs.state(name: "syncDownContacts"))
        state.transition(to: .running, now: 1_741_082_400_000)
        state.transition(to: .done, now: 1_741_082_405_000)
        state.progress = 100
        state.totalSize = 42
        state.maxTimeStamp = 1_741_000_000_000
        try syncs.save(state)
        var failed = try #require(try syncs.state(name: "syncUpAccounts"))
        failed.transition(to: .running, now: 1_741_082_300_000)
        failed.transition(to: .failed, now: 1_741_082_301_000)
        failed.error = "cannot reach Salesforce (connection refused); check the network and sync again"
        try syncs.save(failed)
    }

    @Test("Not signed in, the status line says how to sign in, not that sync is not set up")
    func statusNotSignedIn() throws {
        let fixture = try StoreFixture()
        let model = try model(fixture)
        #expect(model.statusParts == ["not signed in — forceterm login", "0 local changes", "never synced"])
        #expect(try fixture.store.hasSoup("syncs_soup") == false, "reading the syncs creates nothing")
    }

    @Test("With runs recorded, the last sync is the last run that completed, not a sync that ended DONE in a failed run")
    func lastSyncIsTheLastCompletedRun() throws {
        let fixture = try StoreFixture()
        try addSyncs(fixture)  // syncDownContacts ended DONE at 1_741_082_405_000
        try SyncRunLog.recordCompleted(at: 1_741_000_000_000, in: fixture.store)
        let model = try model(fixture)
        #expect(model.syncs.lastSuccessfulRun == 1_741_000_000_000)
        #expect(model.statusParts.contains("last sync \(SyncText.time(1_741_000_000_000, timeZone: model.timeZone))"))
    }

    @Test("The last sync time comes from the sync states")
    func statusLastSync() throws {
        let fixture = try StoreFixture()
        try addSyncs(fixture)
        let model = try model(fixture)
        #expect(model.statusParts.contains("last sync \(SyncText.time(1_741_082_405_000, timeZone: model.timeZone))"))
        #expect(SyncText.time(1_741_082_405_000, timeZone: try #require(TimeZone(identifier: "UTC"))) == "2025-03-04 10:00:05")
    }

    @Test("3 shows every named sync; ↑/↓ select one; Tab cycles through all four tabs")
    func syncsTab() throws {
        let fixture = try StoreFixture()
        try addSyncs(fixture)
        var model = try model(fixture)
        model.perform(.showTab(.syncs))
        #expect(model.tab == .syncs)
        #expect(
            model.syncs.syncs.map(\.name) == [
                "syncDownAccounts", "syncUpAccounts", "syncDownContacts", "syncUpContacts",
                "syncDownContactMetadata", "syncDownAccountMetadata",
            ])
        model.perform(.moveDown)
        #expect(model.syncs.selected?.status == .failed)
        #expect(model.syncs.selected?.error.contains("connection refused") == true)
        model.perform(.moveDown)
        #expect(model.syncs.selected?.totalSize == 42)
        for _ in 0..<4 { model.perform(.moveDown) }
        #expect(model.syncs.selectedIndex == 5, "the selection stops at the last sync")
        model.perform(.nextTab)
        #expect(model.tab == .inspector && model.mode == .inspecting)
        model.perform(.nextTab)
        #expect(model.tab == .contacts && model.mode == .browsing)
    }

    @Test("The Inspector runs Smart SQL and pages through the results from SQLite")
    func inspectorPaging() throws {
        let fixture = try StoreFixture()
        for index in 0..<12 { try fixture.addSyncedContact(first: "F\(index)", last: String(format: "L%02d", index)) }
        var model = try model(fixture)
        model.perform(.showTab(.inspector))
        model.perform(.editQuery)
        #expect(model.mode == .typingQuery)
        for character in "SELECT {contacts:LastName} FROM {contacts} ORDER BY {contacts:LastName}" { model.type(character) }
        model.perform(.runQuery)
        #expect(model.mode == .inspecting)
        let first = try #require(model.inspector.page)
        #expect(first.columns == ["LastName"])
        #expect(first.summary.totalRows == 12)
        #expect(first.rows.count == model.inspector.pageSize)
        #expect(first.rows.first == ["L00"])
        model.perform(.moveDown)
        let second = try #require(model.inspector.page)
        #expect(second.summary.page == 2)
        #expect(second.rows.first == .some([.string("L\(String(format: "%02d", model.inspector.pageSize))")]))
        model.perform(.moveUp)
        #expect(model.inspector.page?.summary.page == 1)
    }

    @Test("The SQL prompt edits like a line: the cursor moves, text goes in and out where it is, Ctrl-U clears")
    func inspectorPromptEditing() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ada", last: "Lovelace")
        var model = try model(fixture)
        model.perform(.showTab(.inspector))
        model.perform(.editQuery)
        for character in "SELECT {contacts:LastName} FROM {contacts}" { model.type(character) }
        // Fix a typo in the middle: LastName → FirstName.
        for _ in 0..<" FROM {contacts}".count + "LastName}".count { model.perform(.cursorLeft) }
        for _ in 0..<4 { model.perform(.deleteForward) }
        for character in "First" { model.type(character) }
        #expect(model.inspector.queryText == "SELECT {contacts:FirstName} FROM {contacts}")
        #expect(model.inspector.prompt.cursor == "SELECT {contacts:First".count)
        model.perform(.cursorHome)
        model.perform(.deleteBackward)
        #expect(model.inspector.prompt.cursor == 0 && model.inspector.queryText.hasPrefix("SELECT"), "nothing before the start")
        model.perform(.cursorEnd)
        model.perform(.runQuery)
        #expect(model.inspector.page?.rows.first == ["Ada"])
        model.perform(.editQuery)
        model.perform(.clearLine)
        #expect(model.inspector.queryText.isEmpty && model.inspector.prompt.cursor == 0)
        #expect(model.inspector.page?.rows.first == ["Ada"], "the results stay until another query runs")
    }

    @Test("A bad query shows the error and the app carries on")
    func inspectorError() throws {
        let fixture = try StoreFixture()
        var model = try model(fixture)
        model.perform(.showTab(.inspector))
        model.perform(.editQuery)
        for character in "SELECT * FROM {leads}" { model.type(character) }
        model.perform(.runQuery)
        #expect(model.inspector.error?.contains("leads") == true)
        #expect(model.inspector.page == nil)
        model.perform(.editQuery)
        model.perform(.runQuery)
        #expect(model.inspector.error != nil)
    }

    @Test("o lists the soups and i their indices, with the SDK inspector's queries")
    func soupsAndIndices() throws {
        let fixture = try StoreFixture()
        var model = try model(fixture)
        model.perform(.showTab(.inspector))
        model.perform(.showSoups)
        let soups = try #require(model.inspector.page)
        #expect(soups.rows.compactMap { $0.first?.stringValue }.sorted() == ["accounts", "contacts", "sobject_metadata"])
        model.perform(.showIndices)
        let indices = try #require(model.inspector.page)
        #expect(indices.columns == ["soupName", "path", "columnType"])
        #expect(indices.rows.first?.first == "accounts", "sorted by soup, then path")
        #expect(indices.summary.totalRows > indices.rows.count, "paged: more indices than one page holds")
        while model.inspector.page?.rows.contains(where: { $0.first == "contacts" && $0.dropFirst().first == "LastName" }) != true,
            let page = model.inspector.page, page.summary.page < page.summary.pageCount
        {
            model.perform(.moveDown)
        }
        #expect(model.inspector.page?.rows.contains { $0.first == "contacts" && $0.dropFirst().first == "LastName" } == true)
    }
}
