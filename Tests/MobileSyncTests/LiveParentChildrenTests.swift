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
        _ = try await live.manager.syncDown(.soql("SELECT Id, LastName, AccountId, LastModifiedDate FROM Contact WHERE AccountId = '\(other)'"),
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
        try live.server.command(["delete", "Contact", leaf])
        try live.server.command(["edit", "Contact", acorn, "AccountId=\(other)"])
        try live.server.command(["delete", "Contact", branch])
        try live.server.command(["delete", "Account", elm])

        let removed = try await live.manager.cleanResyncGhosts(name: "tree")
        // Elm, Leaf, Branch and the moved Acorn; never Bark (dirty) nor Berry (another tree).
        #expect(removed == 4)
        #expect(Set(try live.local.documents("accounts").compactMap { $0["Name"]?.stringValue }) == ["Tree Oak"])
        #expect(Set(try live.local.documents("contacts").compactMap { $0["LastName"]?.stringValue }) == ["Bark", "Berry"])
        _ = berry
    }
}
