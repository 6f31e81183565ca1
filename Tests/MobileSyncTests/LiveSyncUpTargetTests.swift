import ForceJSON
import Foundation
import Testing

@testable import MobileSync

/// Each sync-up target (single record, batch/composite, collection) against a real localorg:
/// creates, updates and deletes arrive, a server-side change is a kept 412 conflict, and records
/// the server refuses carry Salesforce's code and message while the rest of the sync goes on.
@Suite("Sync-up targets against a real localorg", .serialized)
struct LiveSyncUpTargetTests {
    @Test("Creates, updates, deletes, a conflict and validation errors, per target", arguments: SyncUpTarget.Mode.allCases)
    func everyKindOfChange(mode: SyncUpTarget.Mode) async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        try live.useSyncUpMode(mode, for: "syncUpContacts")
        let kept = try await live.createOnServer("Contact", ["LastName": "Kept", "Title": "Before"])
        let removed = try await live.createOnServer("Contact", ["LastName": "Removed"])
        let contested = try await live.createOnServer("Contact", ["LastName": "Contested", "Title": "Original"])
        let blanked = try await live.createOnServer("Contact", ["LastName": "Blanked"])
        try await live.syncDown()
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", contested, "Title=Server"])

        func stored(_ id: String) throws -> JSONObject { try #require(try live.local.document("contacts", id: id)) }
        try live.saveLocally(Records.edited(try stored(kept), ["Title": "After"]), in: "contacts")
        try live.saveLocally(Records.edited(try stored(removed), delete: true), in: "contacts")
        try live.saveLocally(Records.edited(try stored(contested), ["Title": "Mine"]), in: "contacts")
        try live.saveLocally(Records.edited(try stored(blanked), ["LastName": .null]), in: "contacts")
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": "Fresh One"]), in: "contacts")
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["LastName": "Fresh Two", "Title": "New"]), in: "contacts")
        try live.saveLocally(Records.created(nil, type: "Contact", fields: ["FirstName": "Nameless"]), in: "contacts")

        let state = try await live.manager.reSync(name: "syncUpContacts")
        #expect(state.status == .done, "\(mode): \(state.error)")

        // The server: two new contacts once each, the update, the delete; the contested and the
        // refused records keep the server's values.
        let server = try await live.serverRecords("SELECT Id, LastName, Title FROM Contact ORDER BY LastName")
        #expect(server.compactMap { $0["LastName"]?.stringValue } == ["Blanked", "Contested", "Fresh One", "Fresh Two", "Kept"], "\(mode)")
        let byName = Dictionary(uniqueKeysWithValues: server.compactMap { record in record["LastName"]?.stringValue.map { ($0, record) } })
        #expect(byName["Kept"]?["Title"] == "After", "\(mode)")
        #expect(byName["Contested"]?["Title"] == "Server", "\(mode)")
        #expect(byName["Fresh Two"]?["Title"] == "New", "\(mode)")

        // The store: done records are clean with server ids; the conflict keeps both sides; the
        // refused records keep their changes and Salesforce's error.
        let contacts = try live.local.documents("contacts")
        #expect(contacts.count == 6, "\(mode)")
        for name in ["Kept", "Fresh One", "Fresh Two"] {
            let record = try #require(contacts.first { $0["LastName"]?.stringValue == name }, "\(mode) \(name)")
            #expect(!record.isDirty && record[LocalField.lastError] == nil, "\(mode) \(name)")
            #expect(record["Id"]?.stringValue == byName[name]?["Id"]?.stringValue, "\(mode) \(name)")
        }
        let conflict = try stored(contested)
        #expect(conflict.hasConflict && conflict.isDirty && conflict["Title"] == "Mine", "\(mode)")
        #expect(conflict[LocalField.conflict]?["server"]?["Title"] == "Server", "\(mode)")
        for record in [try stored(blanked), try #require(contacts.first { $0["FirstName"] == "Nameless" })] {
            #expect(record.isDirty && !record.hasConflict, "\(mode)")
            // As in the SDK, `__last_error__` holds the errors as JSON text.
            let text = try #require(record[LocalField.lastError]?.stringValue, "\(mode): \(record)")
            let error = try #require(try JSONParser.parse(text).arrayValue?.first, "\(mode): \(text)")
            #expect(error["errorCode"] == "REQUIRED_FIELD_MISSING", "\(mode): \(error)")
            #expect(error["message"]?.stringValue?.contains("LastName") == true, "\(mode): \(error)")
        }
        #expect(try live.local.document("contacts", id: removed) == nil, "\(mode)")

        // Fixing the refused record locally and syncing again sends it; nothing is sent twice.
        try live.saveLocally(Records.edited(try stored(blanked), ["LastName": "Named again"]), in: "contacts")
        #expect(try await live.manager.reSync(name: "syncUpContacts").status == .done)
        let after = try await live.serverRecords("SELECT Id, LastName FROM Contact ORDER BY LastName")
        #expect(after.compactMap { $0["LastName"]?.stringValue } == ["Contested", "Fresh One", "Fresh Two", "Kept", "Named again"], "\(mode)")
        #expect(try stored(blanked)[LocalField.lastError] == nil, "\(mode)")
    }
}

extension LiveSyncUpTargetTests {
    @Test("An update refused because another user changed another field is merged, sent again, and counted as received from the server")
    func aMergedUpdateCountsTheServersChanges() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let id = try await live.createOnServer("Contact", ["LastName": "Noether", "Title": "Original", "Department": "Algebra"])
        try await live.syncDown()
        try await LiveSync.nextSecond()
        try await live.server.command(["edit", "Contact", id, "Department=Physics"])
        try live.saveLocally(Records.edited(try #require(try live.local.document("contacts", id: id)), ["Title": "Mine"]), in: "contacts")
        _ = try await live.manager.reSync(name: "syncUpContacts")
        let syncId = try #require(try await live.manager.getSyncStatus(name: "syncUpContacts")?.id)
        let summary = try #require(await live.manager.lastSyncUpSummary[syncId])
        #expect(
            summary.mergedFromServer == 1 && summary.conflicts == 0 && summary.sent == 1 && summary.updated == 1,
            "one record sent (twice on the wire), counted once: \(summary)")
        let local = try #require(try live.local.document("contacts", id: id))
        #expect(local["Department"] == "Physics" && local["Title"] == "Mine" && !local.isDirty)
        let server = try #require(try await live.serverRecords("SELECT Title, Department FROM Contact").first)
        #expect(server["Title"] == "Mine" && server["Department"] == "Physics")
    }
}
