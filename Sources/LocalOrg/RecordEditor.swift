import ForceJSON
import GRDB

/// Server-side edits made outside the API, as a named user: what `localorg edit` and
/// `localorg delete` use to show a trainee a remote change or a conflict.
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

    public func update(object objectName: String, id idText: String, body: JSONObject, actingUsername: String?) async throws {
        let (object, id, userId) = try resolve(object: objectName, id: idText, actingUsername: actingUsername)
        let values = try RecordValidator.values(for: object, body: body, mode: .update)
        let now = OrgStore.now()
        let store = self.store
        try await store.write { db in try store.updateRow(db, object: object, id: id, values: values, actingUserId: userId, now: now) }
    }

    public func delete(object objectName: String, id idText: String, actingUsername: String?) async throws {
        let (object, id, userId) = try resolve(object: objectName, id: idText, actingUsername: actingUsername)
        let now = OrgStore.now()
        let store = self.store
        try await store.write { db in try store.deleteRow(db, object: object, id: id, actingUserId: userId, now: now) }
    }
}
