import ForceJSON
import Foundation
import SmartStore

@testable import MobileSync

/// A store in a fresh temporary directory with the repo's soups, removed when the test ends.
final class SyncStore {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let directory: URL
    let path: String
    let store: SmartStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mobilesync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
        store = try SmartStore(path: path)
        try store.setup(from: StoreConfig(contentsOf: Self.packageRoot.appendingPathComponent("config/userstore.json")))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// All documents of a soup, in entry order.
    func documents(_ soup: String) throws -> [JSONObject] {
        try store.query(.all(soup, orderPath: SmartStore.soupEntryId, pageSize: 100_000)).compactMap(\.objectValue)
    }

    func document(_ soup: String, id: String) throws -> JSONObject? {
        try documents(soup).first { $0["Id"]?.stringValue == id }
    }
}

/// Records as the server sends them, and as the app writes local changes.
enum Records {
    static func contact(_ id: String, last: String, modified: String = "2024-05-01T10:00:00.000+0000", extra: JSONObject = [:]) -> JSONObject {
        var record: JSONObject = [
            "attributes": ["type": "Contact", "url": .string("/services/data/v62.0/sobjects/Contact/\(id)")],
            "Id": .string(id), "LastModifiedDate": .string(modified), "LastName": .string(last),
        ]
        for (key, value) in extra { record[key] = value }
        return record
    }

    /// A record the app created offline (`LocalEdit.created`); without `localId` it has no id yet.
    static func created(_ localId: String?, type: String = "Contact", fields: JSONObject) -> JSONObject {
        var record = LocalEdit.created(fields: fields, sObjectType: type, localId: localId ?? "")
        if localId == nil { record.removeValue(forKey: "Id") }
        return record
    }

    /// Edits the stored contact with server id `id` as the app would, from inside a remote's hook
    /// (a hook cannot fail the call; a contact not found is left alone).
    static func editStored(_ store: SmartStore, contact id: String, _ changes: JSONObject) {
        guard let record = try? store.query(.exact("contacts", path: "Id", matchKey: .string(id))).first?.objectValue,
            let edited = LocalEdit.updated(record, fields: changes), let entryId = record.soupEntryId
        else { return }
        _ = try? store.update(edited, id: entryId, in: "contacts")
    }

    /// A local edit as the app records it (`LocalEdit`: flags and the base of each changed field).
    static func edited(_ record: JSONObject, _ changes: JSONObject = [:], delete: Bool = false) -> JSONObject {
        let edited = LocalEdit.updated(record, fields: changes) ?? record
        return delete ? LocalEdit.deleted(edited) : edited
    }

    /// A local edit as a writer that keeps no base records it (an older forceterm, another SDK app):
    /// the flags only.
    static func editedWithoutBase(_ record: JSONObject, _ changes: JSONObject = [:], delete: Bool = false) -> JSONObject {
        var edited = record
        for (key, value) in changes { edited[key] = value }
        edited[LocalField.local] = true
        if delete { edited[LocalField.locallyDeleted] = true } else { edited[LocalField.locallyUpdated] = true }
        return edited
    }
}
