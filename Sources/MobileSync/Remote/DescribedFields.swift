import ForceJSON
import SmartStore

/// An object's fields as the org describes them to the signed-in user: a field their profile hides
/// is not there, a read-only one is neither createable nor updateable, a long text area is not
/// filterable. The sync asks only for fields the user may read, filters only on filterable ones
/// and sends only what the user may write, so one hidden field never stops a sync.
public struct DescribedFields: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var type: String
        public var length: Int
        public var filterable: Bool
        public var createable: Bool
        public var updateable: Bool
        /// A formula or roll-up: its value changes without its record being saved.
        public var calculated: Bool = false
    }

    public let sobjectType: String
    private let byName: [String: Field]

    public init?(describe: JSONObject) {
        guard let type = describe["name"]?.stringValue, let list = describe["fields"]?.arrayValue else { return nil }
        sobjectType = type
        var fields: [String: Field] = [:]
        for json in list {
            guard let name = json["name"]?.stringValue else { continue }
            fields[name.lowercased()] = Field(
                name: name, type: json["type"]?.stringValue ?? "string", length: Int(json["length"]?.int64Value ?? 0),
                filterable: json["filterable"]?.boolValue ?? true, createable: json["createable"]?.boolValue ?? true,
                updateable: json["updateable"]?.boolValue ?? true, calculated: json["calculated"]?.boolValue ?? false)
        }
        byName = fields
    }

    public func field(_ name: String) -> Field? { byName[name.lowercased()] }

    /// Whether the user may read the field: the describe lists it. A relationship path
    /// (`Account.Name`, `Parent__r.Name`) counts by its reference field (`AccountId`, `Parent__c`).
    public func isReadable(_ name: String) -> Bool {
        guard let dot = name.firstIndex(of: ".") else { return field(name) != nil }
        let relationship = String(name[..<dot])
        if relationship.hasSuffix("__r") { return field(String(relationship.dropLast(3)) + "__c") != nil }
        return field(relationship + "Id") != nil || field(relationship) != nil
    }

    /// Whether a SOQL WHERE may name the field and a value of `length` characters: filterable,
    /// not a long text area.
    public func canFilter(_ name: String) -> Bool {
        guard let field = field(name) else { return false }
        return field.filterable && !(field.type == "textarea" && field.length > 255)
    }

    public func canWrite(_ name: String, creating: Bool) -> Bool {
        guard let field = field(name) else { return false }
        return creating ? field.createable : field.updateable
    }

    /// The describe of `sobjectType` a metadata sync of this store keeps, if any (the Mobile SDK's
    /// `metadata` target stores it under the object's name).
    public static func stored(_ sobjectType: String, store: SmartStore, syncs: SyncsSoup) throws -> DescribedFields? {
        for state in try syncs.all() where state.type == .syncDown {
            guard case let .down(target) = state.target, case let .metadata(type) = target.kind,
                type.caseInsensitiveCompare(sobjectType) == .orderedSame
            else { continue }
            let soup = state.soupName
            guard try store.read({ try $0.hasSoup(soup) && $0.hasIndex(soup: soup, path: target.idFieldName) }) else { continue }
            let rows = try store.read { try $0.query(.exact(soup, path: target.idFieldName, matchKey: .string(type), pageSize: 2)) }
            if let describe = rows.first?.objectValue, let fields = DescribedFields(describe: describe) { return fields }
        }
        return nil
    }

    /// The stored describe of `sobjectType`, else one asked of the org now (a config without a
    /// metadata sync, as most of the Mobile SDK's are); nil when neither has one (offline, say).
    static func storedOrAsked(_ sobjectType: String, store: SmartStore, syncs: SyncsSoup, remote: any SyncRemote) async throws -> DescribedFields? {
        if let stored = try stored(sobjectType, store: store, syncs: syncs) { return stored }
        guard let answer = try? await remote.resource("sobjects/\(sobjectType)/describe", query: []) else { return nil }
        return DescribedFields(describe: answer)
    }
}
