import ContactsApp
import ForceJSON
import Foundation
import LocalOrgProcess
import MobileSync
import SmartStore
import Testing

/// The record tabs follow the config: one per soup a named sync down fills, recognised by the
/// sObject its sync queries, over the Mobile SDK's own config files, unchanged.
@Suite("Record tabs from the config")
struct ConfigTabsTests {
    /// A store set up from one of the SDK's config directories (forceterm's soups where it has no
    /// userstore.json), with its syncs.
    final class SDKStore {
        let directory: URL
        let store: SmartStore
        let syncs: SyncsConfig
        let syncsJSON: String

        init(_ name: String) throws {
            let config = RealSalesforce.mobileSyncConfig(name)
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-tabs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try SmartStore(path: directory.appendingPathComponent("store.sqlite").path)
            let userstore = RealSalesforce.text(config.appendingPathComponent("userstore.json")) ?? DefaultConfig.userstoreJSON
            try store.setup(from: StoreConfig(json: userstore))
            syncsJSON = try #require(RealSalesforce.text(config.appendingPathComponent("usersyncs.json")))
            syncs = try SyncsConfig(json: syncsJSON)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        var kinds: [RecordKind] { get throws { RecordKind.tabs(for: syncs, soups: Set(try store.soupNames())) } }

        func model() throws -> AppModel {
            var model = try AppModel(store: store, syncedFields: SyncedFields(usersyncsJSON: syncsJSON), kinds: try kinds)
            model.setListHeight(10)
            return model
        }

        /// A record as a sync down leaves it.
        func addSynced(_ soup: String, type: String, _ fields: JSONObject) throws {
            var document: JSONObject = ["attributes": ["type": .string(type)], "Id": .string("0\(UUID().uuidString.prefix(14))")]
            for (key, value) in fields { document[key] = value }
            for flag in ["__local__", "__locally_created__", "__locally_updated__", "__locally_deleted__"] { document[flag] = false }
            _ = try store.create(document, in: soup)
        }
    }

    @Test("forceterm's own config: Contacts then Accounts, both synced up")
    func builtIn() throws {
        let kinds = RecordKind.tabs(for: try SyncsConfig(json: DefaultConfig.usersyncsJSON), soups: ["contacts", "accounts", "syncs_soup"])
        #expect(kinds.map(\.soupName) == ["contacts", "accounts"])
        #expect(kinds.map(\.role) == [.contact, .account])
        #expect(kinds.allSatisfy { $0.isSyncedUp })
    }

    @Test(
        "MobileSyncExplorer (Swift, Kotlin, hybrid): one Contacts tab; search works without full_text indexes", .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"),
        arguments: [
            "templates-MobileSyncExplorerSwift", "templates-MobileSyncExplorerKotlinTemplate", "shared-samples-mobilesyncexplorer-hybrid",
        ])
    func mobileSyncExplorer(name: String) throws {
        let sdk = try SDKStore(name)
        let kinds = try sdk.kinds
        #expect(kinds.map(\.soupName) == ["contacts"] && kinds.first?.role == .contact && kinds.first?.isSyncedUp == true)
        try sdk.addSynced("contacts", type: "Contact", ["FirstName": "Ana", "LastName": "Silva", "Title": "CTO"])
        try sdk.addSynced("contacts", type: "Contact", ["FirstName": "Bo", "LastName": "Berg", "Title": "Sales"])
        var model = try sdk.model()
        #expect(model.tabs == [.records(RecordKind.contact), .syncs, .inspector])
        #expect(model.tabs.map(\.title) == ["Contacts", "Syncs", "Inspector"])
        #expect(model.list.visibleRows.map { $0.string("LastName") } == ["Berg", "Silva"], "sorted by LastName")
        #expect(model.accounts == nil)
        model.perform(.startSearch)
        for character in "silv" { model.type(character) }
        #expect(model.toast == nil, "\(String(describing: model.toast))")
        #expect(model.list.visibleRows.map { $0.string("LastName") } == ["Silva"])
        model.perform(.clearSearch)
        try sdk.addSynced("contacts", type: "Contact", ["FirstName": "Åsa", "LastName": "Ångström", "Title": "Directrice financière"])
        try model.refreshAll()
        model.perform(.startSearch)
        for character in "asa ÅNGS" { model.type(character) }
        #expect(model.list.visibleRows.map { $0.string("LastName") } == ["Ångström"], "accents and case ignored, both words found")
        model.perform(.clearSearch)
        model.perform(.startSearch)
        for character in "silv" { model.type(character) }
        model.perform(.keepSearch)
        model.perform(.editRecord)
        let synced = try SyncedFields(usersyncsJSON: sdk.syncsJSON).fields(forSoup: "contacts")
        #expect(!synced.isEmpty && model.form?.fields.map(\.name) == synced, "the form edits what the SDK's sync up sends")
        model.perform(.cancelEdit)
        model.perform(.showTabNumber(2))
        #expect(model.tab == .syncs)
        model.perform(.showTabNumber(4))
        #expect(model.tab == .syncs, "no fourth tab")
        model.perform(.nextTab)
        model.perform(.nextTab)
        #expect(model.tab == .records(RecordKind.contact))
    }

    @Test("The iOS native template's Account soup opens as accounts; with no sync up, nothing offers to edit it", .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"))
    func iOSTemplateAccountSoup() throws {
        let sdk = try SDKStore("templates-iOSNativeSwiftTemplate")
        let kinds = try sdk.kinds
        #expect(kinds.map(\.soupName) == ["Account"] && kinds.first?.role == .account && kinds.first?.isSyncedUp == false)
        try sdk.addSynced("Account", type: "Account", ["Name": "Acme", "Industry": "Retail"])
        var model = try sdk.model()
        #expect(model.tabs.map(\.title) == ["Accounts", "Syncs", "Inspector"])
        #expect(model.list.visibleRows.map { $0.string("Name") } == ["Acme"])
        #expect(model.fieldNames(for: try #require(kinds.first)) == ["Name", "Industry"], "the fields its sync down fetches")
        for command: AppCommand in [.editRecord, .newRecord, .deleteRecord] {
            model.perform(command)
            #expect(model.mode == .browsing && model.form == nil, "\(command)")
            #expect(model.toast?.message.contains("no sync up in usersyncs.json sends the Account soup") == true, "\(command)")
        }
        model.perform(.openDetail)
        #expect(model.detailOpen && model.accountContacts.isEmpty && model.contacts == nil)
        model.perform(.openDetail)
        #expect(model.tab == .records(kinds[0]), "no contacts tab to jump to")
    }

    @Test("A metadata or layout document among records is listed by its Id, not as \"(no name)\"")
    func descriptionDocumentsShowTheirId() throws {
        let describe = try LocalRecord(document: ["_soupEntryId": 1, "Id": "Account", "name": "Account", "fields": []])
        let record = try LocalRecord(document: ["_soupEntryId": 2, "attributes": ["type": "Account"], "Id": "001A", "Name": "Acme"])
        let nameless = try LocalRecord(document: ["_soupEntryId": 3, "attributes": ["type": "Account"], "Id": "001B"])
        #expect(RecordKind.account.displayName(of: describe) == "Account")
        #expect(RecordKind.account.displayName(of: record) == "Acme")
        #expect(RecordKind.account.displayName(of: nameless) == "", "a real record without a name stays nameless")
        #expect(RecordKind(soupName: "x", sObjectType: "Case").displayName(of: nameless) == "001B")
    }

    @Test("A SOSL, MRU, refresh, parent_children or briefcase sync down gives its soups tabs by their sObject")
    func otherTargets() throws {
        let syncs = try SyncsConfig(
            json: """
                {"syncs": [
                  {"syncName": "opps", "syncType": "syncDown", "soupName": "opportunities",
                   "target": {"type": "mru", "sobjectType": "Opportunity", "fieldlist": ["Name", "StageName"]}},
                  {"syncName": "found", "syncType": "syncDown", "soupName": "found",
                   "target": {"type": "sosl", "query": "FIND {Joe} IN NAME FIELDS RETURNING Contact(Id, LastName)"}},
                  {"syncName": "tree", "syncType": "syncDown", "soupName": "accts",
                   "target": {"type": "parent_children", "relationshipType": "MASTER_DETAIL",
                              "parent": {"idFieldName": "Id", "sobjectType": "Account", "modificationDateFieldName": "LastModifiedDate", "soupName": "accts"},
                              "parentFieldlist": ["Id", "Name"],
                              "children": {"idFieldName": "Id", "sobjectType": "Contact", "sobjectTypePlural": "Contacts", "modificationDateFieldName": "LastModifiedDate", "soupName": "kids", "parentIdFieldName": "AccountId"},
                              "childrenFieldlist": ["Id", "LastName", "AccountId"]}}
                ]}
                """)
        let kinds = RecordKind.tabs(for: syncs, soups: ["opportunities", "found", "accts", "kids"])
        #expect(kinds.map(\.soupName) == ["found", "kids", "accts", "opportunities"])
        #expect(kinds.map(\.role) == [.contact, .contact, .account, .other])
        #expect(kinds[3].tabTitle == "opportunities" && kinds[3].singular == "Opportunity record")
        #expect(kinds[3].fallbackFields == ["Name", "StageName"])
        #expect(RecordKind.tabs(for: syncs, soups: ["accts"]).map(\.soupName) == ["accts"], "a soup the store lacks has no tab")
    }
}
