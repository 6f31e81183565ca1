import ContactsApp
import ForceJSON
import Foundation
import MobileSync
import SmartStore
import Testing

@Suite("Local create, update, delete and undelete write the SDK's flags")
struct LocalChangeTests {
    @Test("Creating a contact stores attributes.type, a local_ id, __local__ and __locally_created__")
    func create() throws {
        let fixture = try StoreFixture()
        let repository = RecordRepository(store: fixture.store, kind: .contact)
        let record = try repository.create(fields: ["FirstName": "Zoë", "LastName": "Ñúñez"])
        let stored = try fixture.document(record.entryId)
        #expect(stored["attributes"]?["type"] == "Contact")
        #expect(stored["Id"]?.stringValue.map(LocalField.isLocalId) == true)
        #expect(stored["__local__"] == true)
        #expect(stored["__locally_created__"] == true)
        #expect(stored["__locally_updated__"] == false)
        #expect(stored["__locally_deleted__"] == false)
        #expect(stored["LastName"] == "Ñúñez")
        // Sync up finds it the way the SDK's dirty query does.
        #expect(try fixture.store.count(.exact("contacts", path: "__local__", matchKey: true)) == 1)
        #expect(try LocalRecord(document: stored).state == .created)
    }

    @Test("Editing a synced contact sets __local__ and __locally_updated__; an unchanged save writes nothing")
    func update() throws {
        let fixture = try StoreFixture()
        let original = try fixture.addSyncedContact(first: "Ana", last: "García")
        let entryId = try #require(original["_soupEntryId"]?.int64Value)
        let repository = RecordRepository(store: fixture.store, kind: .contact)

        _ = try repository.update(entryId: entryId, fields: ["FirstName": "Ana", "LastName": "García"])
        #expect(try fixture.document(entryId) == original)

        _ = try repository.update(entryId: entryId, fields: ["Title": "CFO"])
        let stored = try fixture.document(entryId)
        #expect(stored["Title"] == "CFO")
        #expect(stored["__local__"] == true)
        #expect(stored["__locally_updated__"] == true)
        #expect(stored["__locally_created__"] == false)
        #expect(try LocalRecord(document: stored).state == .updated)
    }

    @Test("Editing a record created here keeps it created")
    func editCreated() throws {
        let fixture = try StoreFixture()
        let repository = RecordRepository(store: fixture.store, kind: .contact)
        let created = try repository.create(fields: ["LastName": "Okafor"])
        _ = try repository.update(entryId: created.entryId, fields: ["LastName": "Okafor-Smith"])
        let stored = try fixture.document(created.entryId)
        #expect(stored["__locally_created__"] == true)
        #expect(stored["__locally_updated__"] == true)
        #expect(try LocalRecord(document: stored).state == .created)
    }

    @Test("Delete marks and keeps the record; undelete restores __local__ from the other flags")
    func deleteAndUndelete() throws {
        let fixture = try StoreFixture()
        let synced = try fixture.addSyncedContact(first: "Søren", last: "Johansson")
        let entryId = try #require(synced["_soupEntryId"]?.int64Value)
        let repository = RecordRepository(store: fixture.store, kind: .contact)

        _ = try repository.delete(entryId: entryId)
        var stored = try fixture.document(entryId)
        #expect(stored["__locally_deleted__"] == true)
        #expect(stored["__local__"] == true)
        #expect(try LocalRecord(document: stored).state == .deleted)

        _ = try repository.undelete(entryId: entryId)
        stored = try fixture.document(entryId)
        #expect(stored["__locally_deleted__"] == false)
        #expect(stored["__local__"] == false)

        _ = try repository.update(entryId: entryId, fields: ["Title": "VP"])
        _ = try repository.delete(entryId: entryId)
        _ = try repository.undelete(entryId: entryId)
        stored = try fixture.document(entryId)
        #expect(stored["__local__"] == true, "an edited record stays local after undelete")

        // A create recorded by an iOS app ("1", not true) stays pending after delete and undelete.
        let fromIOS = LocalEdit.undeleted(LocalEdit.deleted(["LastName": "Ito", "__locally_created__": "1", "__locally_updated__": "0"]))
        #expect(fromIOS["__local__"] == true && fromIOS["__locally_deleted__"] == false)
    }

    static let markerCases: [(JSONObject, String)] = [
        (["__locally_created__": true], "+"),
        (["__locally_updated__": true], "~"),
        (["__locally_deleted__": true, "__locally_created__": true], "-"),
        (["__locally_updated__": true, "__last_error__": "FIELD_CUSTOM_VALIDATION_EXCEPTION"], "!"),
        (["__locally_updated__": true, "__conflict__": ["LastName": "Server"]], "≠"),
        ([:], " "),
    ]

    @Test("Row markers follow the flags, errors and conflicts", arguments: markerCases)
    func markers(flags: JSONObject, marker: String) throws {
        var document: JSONObject = ["_soupEntryId": 1, "LastName": "X"]
        for (key, value) in flags { document[key] = value }
        #expect(try LocalRecord(document: document).state.marker == marker)
    }
}

@Suite("Edit form validation")
struct FormValidationTests {
    func contactForm(_ values: [String: String]) throws -> RecordForm {
        let fixture = try StoreFixture()
        var document: JSONObject = ["_soupEntryId": 1]
        for (key, value) in values { document[key] = .string(value) }
        return RecordForm(
            kind: .contact, purpose: .edit(entryId: 1), title: "Edit", fieldNames: try fixture.fields.fields(forSoup: "contacts"),
            record: try LocalRecord(document: document))
    }

    @Test("The form shows usersyncs.json's contact fields, without the AccountId reference")
    func fields() throws {
        let form = try contactForm([:])
        #expect(
            form.fields.map(\.name) == [
                "FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone", "Phone", "Salutation",
                "MailingStreet", "MailingCity", "MailingState", "MailingPostalCode", "MailingCountry", "Description",
            ])
    }

    @Test("Last name is required, and a blank one does not count")
    func lastNameRequired() throws {
        var form = try contactForm(["LastName": "   "])
        let valid = form.validate()
        #expect(!valid)
        #expect(form.problems["LastName"] == "Last name is required")
        #expect(form.focused?.name == "LastName", "focus moves to the first field with a problem")
    }

    @Test(
        "Email must look like an address",
        arguments: [
            ("ana@example.com", true), ("ana.garcia+crm@mail.example.es", true), ("ana", false), ("ana@", false),
            ("@example.com", false), ("ana@example", false), ("ana @example.com", false), ("a@b@c.com", false),
        ])
    func email(_ address: String, valid: Bool) throws {
        var form = try contactForm(["LastName": "García", "Email": address])
        let accepted = form.validate()
        #expect(accepted == valid)
        #expect((form.problems["Email"] == nil) == valid)
    }

    @Test("Lengths follow Salesforce's field sizes, counted in characters not bytes")
    func lengths() throws {
        var form = try contactForm(["LastName": String(repeating: "山", count: 80)])
        let eighty = form.validate()
        #expect(eighty)
        form = try contactForm(["LastName": String(repeating: "é", count: 81)])
        let eightyOne = form.validate()
        #expect(!eightyOne)
        #expect(form.problems["LastName"] == "Last name is 81 characters; the limit is 80")
    }

    @Test("An account needs a name")
    func accountName() throws {
        var form = RecordForm(kind: .account, purpose: .create(preset: [:]), title: "New", fieldNames: ["Name", "Phone"], record: nil)
        let valid = form.validate()
        #expect(!valid)
        #expect(form.problems["Name"] == "Name is required")
    }

    @Test("Typing, moving the cursor and deleting edit the focused field; the form knows it is dirty")
    func editing() throws {
        var form = try contactForm(["LastName": "Gar"])
        form.focusNext()
        #expect(!form.isDirty)
        form.moveCursorToStart()
        form.insert("Ó")
        form.moveCursorToEnd()
        form.insert("c")
        form.insert("í")
        form.insert("a")
        form.deleteBackward()
        #expect(form.focused?.value == "ÓGarcí")
        #expect(form.isDirty)
        #expect(form.values["LastName"] == "ÓGarcí")
        #expect(form.values["Title"] == nil, "an untouched field is not saved: a sync may have filled it since the form opened")
        form.clearFocused()
        #expect(form.focused?.value == "" && form.focused?.cursor == 0 && form.values["LastName"] == .null)
    }
}

@Suite("Configuration")
struct ConfigTests {
    @Test("The built-in config is the repository's config/ files, byte for byte")
    func builtInMatchesRepository() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let userstore = try String(contentsOf: root.appendingPathComponent("config/userstore.json"), encoding: .utf8)
        let usersyncs = try String(contentsOf: root.appendingPathComponent("config/usersyncs.json"), encoding: .utf8)
        #expect(DefaultConfig.userstoreJSON == userstore.trimmingCharacters(in: .newlines))
        #expect(DefaultConfig.usersyncsJSON == usersyncs.trimmingCharacters(in: .newlines))
    }

    @Test("A usersyncs.json that is not JSON is reported in one line")
    func badSyncs() {
        #expect(throws: ConfigError.self) { try SyncedFields(usersyncsJSON: "{syncs: [") }
        #expect(throws: ConfigError("usersyncs.json has no \"syncs\" array")) { try SyncedFields(usersyncsJSON: "{}") }
    }
}
