import ContactsApp
import ForceJSON
import SmartStore
import Testing

/// `c` on a conflicted record: the comparison the detail shows and the two ways out, written
/// through MobileSync's resolver to the real store file.
@Suite("Conflicts: comparison and keep mine / take the server's")
struct ConflictFeatureTests: DrivesAppModel {
    /// A contact edited here whose sync up was refused: `__conflict__` as MobileSync writes it.
    @discardableResult
    func addConflict(_ fixture: StoreFixture, server: JSONObject?) throws -> JSONObject {
        let conflict: JSONValue = .object(["server": server.map(JSONValue.object) ?? .null, "detectedAt": 1_741_082_400_000])
        return try fixture.addSyncedContact(
            first: "Ömer", last: "Okafor", title: "Mine",
            extra: ["__local__": true, "__locally_updated__": true, "LastModifiedDate": "2025-03-01T09:00:00.000+0000", "__conflict__": conflict])
    }

    func serverCopy(title: String = "Theirs") -> JSONObject {
        ["FirstName": "Ömer", "LastName": "Okafor", "Title": .string(title), "LastModifiedDate": "2025-03-04T10:00:00.000+0000"]
    }

    @Test("The comparison lists both versions and marks the fields that differ")
    func comparison() throws {
        let fixture = try StoreFixture()
        let saved = try addConflict(fixture, server: serverCopy())
        let record = try LocalRecord(document: saved)
        let comparison = try #require(ConflictComparison(record: record, fields: ["FirstName", "LastName", "Title"]))
        #expect(!comparison.deletedOnServer)
        #expect(comparison.rows.prefix(3).map(\.field) == ["FirstName", "LastName", "Title"])
        let title = try #require(comparison.rows.first { $0.field == "Title" })
        #expect(title.local == "Mine" && title.server == "Theirs" && title.differs)
        #expect(comparison.rows.first { $0.field == "LastName" }?.differs == false)
        #expect(!comparison.rows.contains { $0.field.hasPrefix("__") || $0.field == "attributes" }, "bookkeeping stays out")
        let plain = try LocalRecord(document: fixture.addSyncedContact(first: "Ana", last: "Zapata"))
        #expect(ConflictComparison(record: plain, fields: ["Title"]) == nil)
        // The org's own modification date differs too, but it is no field the user changed.
        #expect(comparison.rows.first { $0.field == "LastModifiedDate" }?.differs == true)
        #expect(comparison.differingCount == 1, "Title only")
        #expect(comparison.conflictingFields == ["Title"])
    }

    @Test("A record the server deleted shows an empty server side")
    func deletedOnServer() throws {
        let fixture = try StoreFixture()
        let record = try LocalRecord(document: addConflict(fixture, server: nil))
        let comparison = try #require(ConflictComparison(record: record, fields: ["Title"]))
        #expect(comparison.deletedOnServer)
        #expect(comparison.deletion == "changed here, deleted on the server", "the detail's Local state says the same as its header")
        #expect(comparison.rows.first { $0.field == "Title" }?.server == "")
    }

    @Test("c on a record without a conflict says so and opens nothing")
    func noConflict() throws {
        let fixture = try StoreFixture()
        try fixture.addSyncedContact(first: "Ana", last: "Zapata")
        var model = try model(fixture)
        model.perform(.resolveConflict)
        #expect(model.mode == .browsing)
        #expect(model.toast?.message.hasPrefix("This contact has no conflict") == true)
    }

    @Test("Keep mine: the conflict is cleared, my values stay and are pending against the server's version")
    func keepMine() throws {
        let fixture = try StoreFixture()
        let saved = try addConflict(fixture, server: serverCopy())
        var model = try model(fixture)
        #expect(model.selected?.state == .conflict)
        model.perform(.resolveConflict)
        #expect(model.mode == .resolvingConflict)
        model.perform(.resolve(.keepMine))
        #expect(model.mode == .browsing)
        let entryId = try #require(saved["_soupEntryId"]?.int64Value)
        let stored = try fixture.document(entryId)
        #expect(stored["__conflict__"] == nil)
        #expect(stored["Title"] == "Mine")
        #expect(stored["__local__"] == true)
        #expect(stored["LastModifiedDate"] == "2025-03-04T10:00:00.000+0000", "the next sync up is checked against the server version seen")
        #expect(model.selected?.state == .updated)
        #expect(model.localChangeCount == 1)
        #expect(model.toast?.message == "Kept your version; s sends it to the server")
    }

    @Test("Take the server's: my changes are dropped and the server's values kept")
    func takeServer() throws {
        let fixture = try StoreFixture()
        let saved = try addConflict(fixture, server: serverCopy())
        var model = try model(fixture)
        model.perform(.resolveConflict)
        model.perform(.resolve(.takeServer))
        let entryId = try #require(saved["_soupEntryId"]?.int64Value)
        let stored = try fixture.document(entryId)
        #expect(stored["__conflict__"] == nil)
        #expect(stored["Title"] == "Theirs")
        #expect(stored["__local__"] == false)
        #expect(model.selected?.state == .clean)
        #expect(model.localChangeCount == 0)
    }

    @Test("Esc in the dialog keeps the conflict for later")
    func later() throws {
        let fixture = try StoreFixture()
        let saved = try addConflict(fixture, server: serverCopy())
        var model = try model(fixture)
        model.perform(.resolveConflict)
        model.perform(.confirmNo)
        #expect(model.mode == .browsing)
        let entryId = try #require(saved["_soupEntryId"]?.int64Value)
        #expect(try fixture.document(entryId)["__conflict__"] != nil)
    }
}

extension ConflictFeatureTests {
    @Test("Taking the server's for the one field both sides changed says my other changes stay, and they do")
    func takeServerKeepsOtherFields() throws {
        let fixture = try StoreFixture()
        let conflict: JSONValue = .object([
            "server": .object(serverCopy().merging(["Department": "Base dept"]) { _, new in new }),
            "fields": ["Title"], "base": ["Title": "Base"], "detectedAt": 1_741_082_400_000,
        ])
        let saved = try fixture.addSyncedContact(
            first: "Ömer", last: "Okafor", title: "Mine",
            extra: [
                "__local__": true, "__locally_updated__": true, "Department": "Mine dept",
                "__base__": ["Title": "Base", "Department": "Base dept"],
                "LastModifiedDate": "2025-03-01T09:00:00.000+0000", "__conflict__": conflict,
            ])
        var model = try model(fixture)
        model.perform(.resolveConflict)
        #expect(model.conflictComparison?.conflictingFields == ["Title"])
        model.perform(.resolve(.takeServer))
        let stored = try fixture.document(try #require(saved["_soupEntryId"]?.int64Value))
        #expect(stored["Title"] == "Theirs" && stored["Department"] == "Mine dept" && stored["__local__"] == true)
        #expect(model.toast?.message == "Took the server's for Title; s sends your other changes")
    }

    @Test("In the list of conflicts, keeping mine for one field and taking the server's for the last says what stays, and does not follow the list to the next conflict")
    func fieldByFieldInConflictList() throws {
        let fixture = try StoreFixture()
        let conflict: JSONValue = .object([
            "server": .object(serverCopy().merging(["Department": "Their dept"]) { _, new in new }),
            "fields": ["Title", "Department"], "base": ["Title": "Base", "Department": "Base dept"], "detectedAt": 1_741_082_400_000,
        ])
        let saved = try fixture.addSyncedContact(
            first: "Ömer", last: "Okafor", title: "Mine",
            extra: [
                "__local__": true, "__locally_updated__": true, "Department": "Mine dept",
                "__base__": ["Title": "Base", "Department": "Base dept"],
                "LastModifiedDate": "2025-03-01T09:00:00.000+0000", "__conflict__": conflict,
            ])
        var other = serverCopy()
        other["LastName"] = "Zed"
        try fixture.addSyncedContact(
            first: "Zoe", last: "Zed", title: "Mine too",
            extra: [
                "__local__": true, "__locally_updated__": true, "LastModifiedDate": "2025-03-01T09:00:00.000+0000",
                "__conflict__": .object(["server": .object(other), "detectedAt": 1_741_082_400_000]),
            ])
        var model = try model(fixture)
        while model.list.filter != .conflicts { model.perform(.nextFilter) }
        #expect(model.selected?.string("LastName") == "Okafor")
        model.perform(.resolveConflict)
        #expect(model.conflictComparison?.conflictingFields == ["Title", "Department"])
        model.perform(.resolve(.keepMine))  // Title
        #expect(model.toast?.message == "Kept yours for Title; 1 left to decide")
        model.perform(.resolve(.takeServer))  // Department, the last
        let stored = try fixture.document(try #require(saved["_soupEntryId"]?.int64Value))
        #expect(stored["Title"] == "Mine" && stored["Department"] == "Their dept" && stored["__local__"] == true)
        #expect(model.toast?.message == "Took the server's for Department; s sends your other changes")
        #expect(model.overlay == nil, "the dialog closes rather than open on the next conflict")
        #expect(model.selected?.string("LastName") == "Zed")
    }
}
