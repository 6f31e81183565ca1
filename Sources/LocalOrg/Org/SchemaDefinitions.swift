import ForceJSON
import Foundation

/// The field types localorg stores; the raw values are Salesforce's describe `type` names.
public enum FieldType: String, Sendable {
    case id, string, textarea, email, phone, url, picklist, multipicklist, boolean, int, double, currency, percent, date, datetime, reference

    /// The describe `soapType` for this type.
    var soapType: String {
        switch self {
        case .id, .reference: return "tns:ID"
        case .boolean: return "xsd:boolean"
        case .int: return "xsd:int"
        case .double, .currency, .percent: return "xsd:double"
        case .date: return "xsd:date"
        case .datetime: return "xsd:dateTime"
        default: return "xsd:string"
        }
    }

    /// True for the types whose values are text in JSON and compare case-insensitively in SOQL.
    var isText: Bool {
        switch self {
        case .string, .textarea, .email, .phone, .url, .picklist, .multipicklist: return true
        default: return false
        }
    }

    /// Numbers stored as SQLite numbers and compared as such in SOQL.
    var isNumber: Bool { [.int, .double, .currency, .percent].contains(self) }

    /// A field whose values come from a list (`;`-separated in a multi-select picklist).
    var isPicklist: Bool { self == .picklist || self == .multipicklist }
}

/// One field of an object, as the schema file describes it (plus the system fields added in code).
public struct FieldDefinition: Sendable {
    public var name: String
    public var label: String
    public var type: FieldType
    public var length: Int = 0
    public var digits: Int = 0
    public var precision: Int = 0
    public var scale: Int = 0
    public var nillable = true
    public var createable = true
    public var updateable = true
    public var defaultedOnCreate = false
    public var externalId = false
    public var unique = false
    public var idLookup = false
    public var nameField = false
    public var custom = false
    public var picklistValues: [String] = []
    /// Only the picklist's values are accepted (`INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST`).
    public var restrictedPicklist = false
    /// Field-level security: users who are not admins may read the field but not set it.
    public var editableByAdminsOnly = false
    public var referenceTo: String?
    public var relationshipName: String?
    public var childRelationshipName: String?
    public var cascadeDelete = false
    /// For computed name fields: the fields joined with a space (Contact.Name = FirstName LastName).
    public var concatenationOf: [String] = []
    public var defaultValue: JSONValue?
    public var isSystem = false

    /// Salesforce's rule: required on create when createable, not nillable and not defaulted.
    public var isRequiredOnCreate: Bool { createable && !nillable && !defaultedOnCreate }
    /// The SQLite column holding this field.
    var columnName: String { name }

    /// A long text area: Salesforce cannot filter, sort or group on it.
    var isLongText: Bool { type == .textarea && length > 255 }
}

/// A record type of an object (Account's "Partner"), offering its own subset of some picklists.
public struct RecordTypeDefinition: Sendable {
    /// The id every org gives the Master record type.
    public static let masterId = "012000000000000AAA"
    public var id: String
    public var developerName: String
    public var label: String
    /// The record type a user's new records get when they name none.
    public var isDefault: Bool
    /// Field name → the values this record type offers; a picklist not named offers all its values.
    public var picklistValues: [String: [String]]

    public var isMaster: Bool { id == Self.masterId }
}

/// A declarative validation rule: when every condition holds, each field in `requires` must have
/// a value, else the save fails with `FIELD_CUSTOM_VALIDATION_EXCEPTION` and `errorMessage`.
public struct ValidationRule: Sendable {
    public struct Condition: Sendable {
        /// A field name, or `RecordType` for the record type's developer name.
        public var field: String
        public var value: String
    }

    public var name: String
    public var errorMessage: String
    /// The field the error is shown on; nil shows it at the top of the page (no field).
    public var errorField: String?
    public var conditions: [Condition]
    public var requires: [String]
}

/// One sObject type.
public struct ObjectDefinition: Sendable {
    public var name: String
    public var label: String
    public var labelPlural: String
    public var keyPrefix: String
    public var hasOwner: Bool
    public var createable: Bool
    public var deletable: Bool
    public var fields: [FieldDefinition]
    /// The record types besides Master; empty for objects without record types (and no RecordTypeId).
    public var recordTypes: [RecordTypeDefinition] = []
    public var validationRules: [ValidationRule] = []
    /// The org's record-triggered flows that change values on save (`fieldUpdates`).
    public var fieldUpdates: [FieldUpdate] = []
    private var fieldIndexByLowercaseName: [String: Int] = [:]
    /// `INSERT INTO … (every column) VALUES (?, …)`, built once: inserts bind a value for every field.
    let insertSQL: String
    /// `SELECT` every field's column, in field order, of the row with an Id: built once, and read
    /// by position (a look-up by column name costs more than the read itself).
    let selectByIdSQL: String
    /// `UPDATE … SET` every field's column but the Id, in field order, of the row with an Id.
    let updateByIdSQL: String

    init(
        name: String, label: String, labelPlural: String, keyPrefix: String, hasOwner: Bool,
        createable: Bool, deletable: Bool, fields: [FieldDefinition]
    ) {
        self.name = name
        self.label = label
        self.labelPlural = labelPlural
        self.keyPrefix = keyPrefix
        self.hasOwner = hasOwner
        self.createable = createable
        self.deletable = deletable
        self.fields = fields
        for (index, field) in fields.enumerated() { fieldIndexByLowercaseName[field.name.lowercased()] = index }
        let table = quoted("sobject_\(name)")
        insertSQL = "INSERT INTO \(table) (\(fields.map { quoted($0.columnName) }.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: fields.count).joined(separator: ", ")))"
        selectByIdSQL = "SELECT \(fields.map { quoted($0.columnName) }.joined(separator: ", ")) FROM \(table) WHERE Id = ?"
        updateByIdSQL = "UPDATE \(table) SET \(fields.filter { $0.type != .id }.map { "\(quoted($0.columnName)) = ?" }.joined(separator: ", ")) WHERE Id = ?"
    }

    /// Looks a field up by name, ignoring case as Salesforce does.
    public func field(named name: some StringProtocol) -> FieldDefinition? {
        fieldIndexByLowercaseName[name.lowercased()].map { fields[$0] }
    }

    /// The reference field whose relationship name is `name` (`Account` → `AccountId`).
    public func relationship(named name: some StringProtocol) -> FieldDefinition? {
        let lowered = name.lowercased()
        return fields.first { $0.type == .reference && $0.relationshipName?.lowercased() == lowered }
    }

    /// Master followed by the object's own record types.
    public var allRecordTypes: [RecordTypeDefinition] {
        [
            RecordTypeDefinition(
                id: RecordTypeDefinition.masterId, developerName: "Master", label: "Master",
                isDefault: recordTypes.isEmpty, picklistValues: [:])
        ] + recordTypes
    }

    /// The record type new records get: the default one, else Master.
    public var defaultRecordType: RecordTypeDefinition {
        allRecordTypes.first { $0.isDefault } ?? allRecordTypes[0]
    }

    public func recordType(id: String?) -> RecordTypeDefinition? {
        guard let id else { return nil }
        return allRecordTypes.first { $0.id == id }
    }

    /// The values `field` offers on a record of `recordType` (all of them for Master).
    public func picklistValues(of field: FieldDefinition, recordType: RecordTypeDefinition?) -> [String] {
        recordType?.picklistValues[field.name] ?? field.picklistValues
    }

    /// The SQLite table holding this object's records (`insertSQL` spells the same name).
    var tableName: String { "sobject_\(name)" }
    /// The field shown as the record's name (`Name` for all objects shipped).
    var nameFieldName: String? { fields.first { $0.nameField }?.name }
}

/// A parent-to-child relationship, seen from the parent (Account → Contacts).
public struct ChildRelationship: Sendable {
    public var childObject: String
    public var field: String
    public var relationshipName: String
    public var cascadeDelete: Bool
}

public struct SchemaError: Error, CustomStringConvertible {
    public var description: String
}
