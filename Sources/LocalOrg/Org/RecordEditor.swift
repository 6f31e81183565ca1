import ForceJSON
import Foundation
import GRDB

/// Server-side edits made outside the API, as a named user: what `localorg edit` and
/// `localorg delete` use to show a trainee a remote change or a conflict. Each one goes to the
/// trainer's log as the request it stands for, in the same transaction as the change; a refused
/// one is logged with the status the API would have answered.
public struct RecordEditor: Sendable {
    let store: OrgStore

    public init(store: OrgStore) { self.store = store }

    func resolve(object objectName: String, id idText: String, actingUsername: String?) throws -> (ObjectDefinition, String, String) {
        guard let object = store.schema.object(named: objectName) else {
            throw APIError(status: 404, errorCode: "NOT_FOUND", message: "No object named \(objectName)")
        }
        guard let id = SalesforceId.canonical(idText), SalesforceId.keyPrefix(of: id) == object.keyPrefix else {
            throw APIError(status: 400, errorCode: "MALFORMED_ID", message: "\(idText) is not a \(object.name) id")
        }
        guard let userId = try store.userId(username: actingUsername) else {
            throw APIError(status: 404, errorCode: "NOT_FOUND", message: "No user \(actingUsername ?? "(non-admin)")")
        }
        return (object, id, userId)
    }

    /// Changes the fields of `body`; returns the record as it was just before, read in the same
    /// transaction (so a caller knows exactly what its change replaced).
    @discardableResult
    public func update(object objectName: String, id idText: String, body: JSONObject, actingUsername: String?) async throws -> JSONObject {
        try await logged(method: "PATCH", object: objectName, id: idText, actingUsername: actingUsername, origin: "localorg edit") {
            store, object, id, userId, db in
            let values = try RecordValidator.values(for: object, body: body, mode: .update)
            try store.updateRow(db, object: object, id: id, values: values, actingUserId: userId, now: OrgStore.now())
        }
    }

    /// Moves the record to the recycle bin; returns it as it was just before.
    @discardableResult
    public func delete(object objectName: String, id idText: String, actingUsername: String?) async throws -> JSONObject {
        try await logged(method: "DELETE", object: objectName, id: idText, actingUsername: actingUsername, origin: "localorg delete") {
            store, object, id, userId, db in
            try store.deleteRow(db, object: object, id: id, actingUserId: userId, now: OrgStore.now())
        }
    }

    private func logged(
        method: String, object objectName: String, id idText: String, actingUsername: String?, origin: String,
        change: @escaping @Sendable (OrgStore, ObjectDefinition, String, String, Database) throws -> Void
    ) async throws -> JSONObject {
        let started = Date()
        let version = LocalOrgAPI.supportedVersions.upperBound
        let entry: @Sendable (_ status: Int, _ username: String?) -> RequestLogEntry = { status, username in
            RequestLogEntry(
                time: Date(), username: username, method: method, path: "/services/data/v\(version).0/sobjects/\(objectName)/\(idText)",
                status: status, inner: nil, milliseconds: Date().timeIntervalSince(started) * 1000, origin: origin)
        }
        let store = self.store
        do {
            let (object, id, userId) = try resolve(object: objectName, id: idText, actingUsername: actingUsername)
            let username = try store.username(userId: userId)
            return try await store.write { db in
                let before = try Self.previous(db, store: store, object: object, id: id)
                try change(store, object, id, userId, db)
                try OrgStore.appendEvents(db, [entry(204, username)])
                return before
            }
        } catch let error as APIError {
            try? store.appendEventNow(entry(error.status, actingUsername))
            throw error
        }
    }

    private static func previous(_ db: Database, store: OrgStore, object: ObjectDefinition, id: String) throws -> JSONObject {
        guard let record = try store.fetchRecord(db, object: object, id: id) else { return [:] }
        return RecordRenderer.record(record, object: object, apiVersion: "\(LocalOrgAPI.supportedVersions.upperBound).0").objectValue ?? [:]
    }
}
