import ContactsApp
import ForceJSON
import Foundation
import SmartStore

/// A real store file in a fresh temporary directory, set up from forceterm's built-in userstore.json,
/// removed when the test's scope ends.
final class StoreFixture {
    let directory: URL
    let store: SmartStore

    /// With `key`, the store is encrypted with it.
    init(key: StoreKey? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("contactsapp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SmartStore(path: directory.appendingPathComponent("store.sqlite").path, encryption: key.map { .encrypted($0) } ?? .plain)
        try store.setup(from: StoreConfig(json: DefaultConfig.userstoreJSON))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var fields: SyncedFields {
        get throws { try SyncedFields(usersyncsJSON: DefaultConfig.usersyncsJSON) }
    }

    /// A contact as sync down leaves it: a server id and every local flag false.
    @discardableResult
    func addSyncedContact(first: String, last: String, title: String = "", accountId: String? = nil, extra: JSONObject = [:]) throws -> JSONObject {
        var document: JSONObject = [
            "attributes": ["type": "Contact"], "Id": .string("003\(UUID().uuidString.prefix(12))"),
            "FirstName": .string(first), "LastName": .string(last), "Title": .string(title),
            "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false,
        ]
        if let accountId { document["AccountId"] = .string(accountId) }
        for (key, value) in extra { document[key] = value }
        return try store.create(document, in: "contacts")
    }

    @discardableResult
    func addSyncedAccount(name: String, id: String) throws -> JSONObject {
        try store.create(
            [
                "attributes": ["type": "Account"], "Id": .string(id), "Name": .string(name),
                "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false,
            ], in: "accounts")
    }

    /// The stored document, read back from the file.
    func document(_ entryId: Int64, soup: String = "contacts") throws -> JSONObject {
        guard let document = try store.retrieve([entryId], from: soup).first else { throw FixtureError("no entry \(entryId)") }
        return document
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
