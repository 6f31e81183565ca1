import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

@testable import MobileSync

/// The parent_children sync down (accounts with their contacts in one query) against localorg.
@Suite("parent_children sync down against a real localorg", .serialized)
struct LiveParentChildrenTests {
    static let target: JSONValue = [
        "type": "parent_children",
        "parent": ["sobjectType": "Account", "soupName": "accounts"],
        "children": ["sobjectType": "Contact", "sobjectTypePlural": "Contacts", "soupName": "contacts", "parentIdFieldName": "AccountId"],
        "parentFieldlist": ["Name"], "childrenFieldlist": ["LastName", "Title"],
        "parentSoqlFilter": "Name LIKE 'Tree%'", "relationshipType": "LOOKUP",
    ]

    @Test("Parents and children are saved to their soups; ghosts go from both, dirty children and other trees stay")
    func treeAndGhosts() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let oak = try await live.createOnServer("Account", ["Name": "Tree Oak"])
        let elm = try await live.createOnServer("Account", ["Name": "Tree Elm"])
        let other = try await live.createOnServer("Account", ["Name": "Bush"])
        let acorn = try await live.createOnServer("Contact", ["LastName": "Acorn", "AccountId": .string(oak)])
        let leaf = try await live.createOnServer("Contact", ["LastName": "Leaf", "AccountId": .string(oak)])
        let branch = try await live.createOnServer("Contact", ["LastName": "Branch", "AccountId": .string(elm)])
        let bark = try await live.createOnServer("Contact", ["LastName": "Bark", "AccountId": .string(elm)])
        let berry = try await live.createOnServer("Contact", ["LastName": "Berry", "AccountId": .string(other)])

        // Another sync brings the Bush tree: its contact is outside this target and must survive it.
        _ = try await live.manager.syncDown(
            .soql("SELECT Id, LastName, AccountId, LastModifiedDate FROM Contact WHERE AccountId = '\(other)'"),
            options: SyncOptions(), soupName: "contacts", name: "bush")
        let tree = try await live.manager.syncDown(try SyncDownTarget(json: Self.target), options: SyncOptions(), soupName: "accounts", name: "tree")
        #expect(tree.status == .done, "\(tree.error)")
        #expect(Set(try live.local.documents("accounts").compactMap { $0["Name"]?.stringValue }) == ["Tree Oak", "Tree Elm"])
        let contacts = try live.local.documents("contacts")
        #expect(Set(contacts.compactMap { $0["LastName"]?.stringValue }) == ["Acorn", "Leaf", "Branch", "Bark", "Berry"])
        #expect(try live.local.document("contacts", id: branch)?["AccountId"]?.stringValue == elm)
        let accounts = try live.local.documents("accounts")
        #expect(contacts.allSatisfy { $0["Contacts"] == nil } && accounts.allSatisfy { $0["Contacts"] == nil })

        // On the server: the Elm tree goes, Leaf goes, Acorn moves to the Bush; Bark has a local edit.
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: bark)), ["Title": "Kept"]), in: "contacts")
        try await live.server.command(["delete", "Contact", leaf])
        try await live.server.command(["edit", "Contact", acorn, "AccountId=\(other)"])
        try await live.server.command(["delete", "Contact", branch])
        try await live.server.command(["delete", "Account", elm])

        let removed = try await live.manager.cleanResyncGhosts(name: "tree")
        // Elm, Leaf, Branch and the moved Acorn; never Bark (dirty) nor Berry (another tree).
        #expect(removed == 4)
        #expect(Set(try live.local.documents("accounts").compactMap { $0["Name"]?.stringValue }) == ["Tree Oak"])
        #expect(Set(try live.local.documents("contacts").compactMap { $0["LastName"]?.stringValue }) == ["Bark", "Berry"])
        _ = berry
    }
}

/// The parent_children sync up (the SDK's ParentChildrenSyncUpTarget) against localorg.
@Suite("parent_children sync up against a real localorg", .serialized)
struct LiveParentChildrenSyncUpTests {
    static func target(_ relationship: String) -> JSONValue {
        [
            "iOSImpl": "SFParentChildrenSyncUpTarget",
            "androidImpl": "com.salesforce.androidsdk.mobilesync.target.ParentChildrenSyncUpTarget",
            "parent": ["idFieldName": "Id", "sobjectType": "Account", "modificationDateFieldName": "LastModifiedDate", "soupName": "accounts"],
            "createFieldlist": ["Name", "Industry"], "updateFieldlist": ["Name", "Industry"],
            "children": [
                "parentIdFieldName": "AccountId", "idFieldName": "Id", "sobjectType": "Contact", "modificationDateFieldName": "LastModifiedDate",
                "soupName": "contacts", "sobjectTypePlural": "Contacts",
            ],
            "childrenCreateFieldlist": ["LastName", "Title"], "childrenUpdateFieldlist": ["LastName", "Title"],
            "relationshipType": .string(relationship),
        ]
    }

    @Test("A parent and its children created offline reach the server in one run, the children pointing at the parent's new id")
    func createTree() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let target = try SyncUpTarget(json: Self.target("LOOKUP"))
        #expect(try SyncUpTarget(json: target.json) == target, "round-trips through the SDK's keys")
        #expect(target.json["iOSImpl"] == "SFParentChildrenSyncUpTarget")
        try live.saveLocally(Records.created("local_tree1", type: "Account", fields: ["Name": "Tree Co", "Industry": "Forestry"]), in: "accounts")
        for name in ["Root", "Branch"] {
            try live.saveLocally(Records.created(nil, fields: ["LastName": .string(name), "Title": "Ranger", "AccountId": "local_tree1"]), in: "contacts")
        }
        let state = try await live.manager.syncUp(target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "tree")
        #expect(state.status == .done, "\(state.error)")
        let account = try #require(try live.local.documents("accounts").first { $0["Name"] == "Tree Co" })
        let accountId = try #require(account["Id"]?.stringValue)
        #expect(!LocalField.isLocalId(accountId) && account["__local__"] == false)
        let contacts = try live.local.documents("contacts").filter { $0["Title"] == "Ranger" }
        #expect(contacts.count == 2 && contacts.allSatisfy { $0["AccountId"]?.stringValue == accountId && $0["__local__"] == false })
        let onServer = try await live.serverRecords("SELECT LastName FROM Contact WHERE AccountId = '\(accountId)' ORDER BY LastName")
        #expect(onServer.compactMap { $0["LastName"]?.stringValue } == ["Branch", "Root"])
        let stored = try #require(try SyncsSoup(store: live.local.store).state(name: "tree"))
        #expect(stored.soupName == "accounts" && stored.target == .up(target), "the definition is saved as given, never a side's")

        // A child edited alone is sent; a second run sends nothing.
        let root = try #require(contacts.first { $0["LastName"] == "Root" })
        try live.saveLocally(Records.edited(root, ["Title": "Chief Ranger"]), in: "contacts")
        _ = try await live.manager.reSync(name: "tree")
        let edited = try await live.serverRecords("SELECT Title FROM Contact WHERE Id = '\(try #require(root["Id"]?.stringValue))'")
        #expect(edited.first?["Title"] == "Chief Ranger")
        #expect(try live.local.documents("contacts").allSatisfy { $0["__local__"] == false })
    }

    @Test("MASTER_DETAIL: deleting a parent deletes it on the server and removes its children here, their local edits unsent")
    func deleteMaster() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let accountId = try await live.createOnServer("Account", ["Name": "Doomed"])
        let child = try await live.createOnServer("Contact", ["LastName": "Kid", "AccountId": .string(accountId)])
        _ = try await live.manager.syncDown(
            .soql("SELECT Id, Name, LastModifiedDate FROM Account WHERE Id = '\(accountId)'"),
            options: SyncOptions(), soupName: "accounts", name: "parents")
        _ = try await live.manager.syncDown(
            .soql("SELECT Id, LastName, AccountId, LastModifiedDate FROM Contact WHERE Id = '\(child)'"),
            options: SyncOptions(), soupName: "contacts", name: "kids")
        try live.saveLocally(Records.edited(try #require(try live.local.document("accounts", id: accountId)), delete: true), in: "accounts")
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: child)), ["Title": "Edited"]), in: "contacts")
        let state = try await live.manager.syncUp(
            try SyncUpTarget(json: Self.target("MASTER_DETAIL")), options: SyncOptions(mergeMode: .overwrite),
            soupName: "accounts", name: "tree")
        #expect(state.status == .done, "\(state.error)")
        #expect(try live.local.document("accounts", id: accountId) == nil)
        #expect(try await live.serverRecords("SELECT Id FROM Account WHERE Id = '\(accountId)'").isEmpty)
        #expect(try live.local.documents("contacts").isEmpty, "the detail went with its master, here as on the server")
        #expect(try await live.serverRecords("SELECT Id FROM Contact WHERE LastName = 'Kid'").isEmpty, "its edit was not sent (nor re-created)")
    }
}
