import ForceJSON
import GRDB

/// What a trainer reads at the command line (`localorg show`, `localorg query`): records as the
/// REST API renders them, seen as an administrator, every record whatever its owner.
public struct RecordInspector: Sendable {
    let store: OrgStore
    static let apiVersion = "\(LocalOrgAPI.supportedVersions.upperBound).0"

    public init(store: OrgStore) { self.store = store }

    /// A field's value as a person reads it: text as it is, other values as JSON, nil for null.
    public static func displayText(_ value: JSONValue) -> String? {
        switch value {
        case .null: nil
        case let .string(text): text
        default: JSONWriter.string(value)
        }
    }

    /// The record with this id (15 or 18 characters, any object), in the schema's field order,
    /// also from the recycle bin; nil when no record has it.
    public func record(id text: String) async throws -> (object: String, fields: [(name: String, value: JSONValue)])? {
        guard let id = SalesforceId.canonical(text) else {
            throw APIError(status: 400, errorCode: "MALFORMED_ID", message: "\(text) is not a Salesforce id (15 or 18 letters and digits)")
        }
        guard let object = store.schema.objects.first(where: { $0.keyPrefix == SalesforceId.keyPrefix(of: id) }) else {
            throw APIError(status: 404, errorCode: "NOT_FOUND", message: "no object has the key prefix \(SalesforceId.keyPrefix(of: id)) (the id's first three characters)")
        }
        guard let stored = try await store.record(object, id: id) else { return nil }
        let rendered = RecordRenderer.record(stored, object: object, apiVersion: Self.apiVersion)
        return (object.name, object.fields.map { ($0.name, rendered[$0.name] ?? .null) })
    }

    /// Every record a SOQL query returns (all pages), as an administrator sees them, and how
    /// many it matched (a `COUNT()` query has no records, only the count).
    public func query(_ soql: String, includeDeleted: Bool = false) async throws -> (totalSize: Int, records: [JSONValue]) {
        let admin = try store.userSummaries().first(where: \.isAdmin)?.id ?? store.userId(username: nil) ?? ""
        let engine = QueryEngine(store: store)
        var page = try await engine.query(
            soql, includeDeleted: includeDeleted, batchSize: QueryEngine.defaultBatchSize, userId: admin,
            apiVersion: Self.apiVersion)
        var records = page.records
        while let locator = page.nextLocator {
            page = try await engine.more(locator: locator, userId: admin, apiVersion: Self.apiVersion)
            records += page.records
        }
        return (page.totalSize, records)
    }
}
