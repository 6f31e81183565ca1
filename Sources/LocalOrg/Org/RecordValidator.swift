import ForceJSON
import GRDB
import SalesforceTime

/// Turns a JSON record body into column values, checking it the way Salesforce does and answering
/// with Salesforce's error codes. Checks that need the database (references, uniqueness) happen
/// later, inside the write transaction.
public enum RecordValidator {
    public enum Mode: Sendable { case create, update }

    /// The field values a body sets, keyed by canonical field name, converted for storage.
    /// `access`: the user's field-level security. A field they may not read is no field at all
    /// (`No such column`), one they may only read is refused with every such field named, as a
    /// real org answers (both recorded: "INVALID_FIELD … No such column 'Department' on sobject of
    /// type Contact" without `fields`; "Unable to create/update fields: A, B. …" with them).
    public static func values(for object: ObjectDefinition, body: JSONObject, mode: Mode, access: FieldAccess = .administrator) throws(APIError) -> [String: DatabaseValue] {
        var result: [String: DatabaseValue] = [:]
        var readOnly: [String] = []
        for (key, value) in body {
            if key == "attributes" { continue }
            guard let field = object.field(named: key), access.canRead(field, in: object) else {
                throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "No such column '\(key)' on sobject of type \(object.name)")
            }
            if field.type == .id {
                if mode == .update { continue }
                throw APIError(status: 400, errorCode: "INVALID_FIELD_FOR_INSERT_UPDATE", message: "cannot specify Id in an insert call", fields: [])
            }
            if !access.canWrite(field, in: object, creating: mode == .create) {
                readOnly.append(field.name)
                continue
            }
            result[field.name] = try convert(value, for: field)
        }
        if !readOnly.isEmpty {
            throw APIError(
                status: 400, errorCode: "INVALID_FIELD_FOR_INSERT_UPDATE",
                message:
                    "Unable to create/update fields: \(readOnly.joined(separator: ", ")). Please check the security settings of this field and verify that it is read/write for your profile or permission set.",
                fields: readOnly)
        }
        if mode == .create {
            for field in object.fields where field.type == .boolean && result[field.name] == nil && !field.isSystem {
                result[field.name] = (field.defaultValue?.boolValue ?? false).databaseValue
            }
            let missing = object.fields.filter { $0.isRequiredOnCreate && (result[$0.name] ?? .null).isNull }.map(\.name)
            if !missing.isEmpty { throw requiredFieldsMissing(missing) }
        } else {
            let cleared = object.fields.filter { !$0.nillable && !$0.isSystem && result[$0.name]?.isNull == true }.map(\.name)
            if !cleared.isEmpty { throw requiredFieldsMissing(cleared) }
        }
        return result
    }

    static func requiredFieldsMissing(_ names: [String]) -> APIError {
        APIError(status: 400, errorCode: "REQUIRED_FIELD_MISSING", message: "Required fields are missing: [\(names.joined(separator: ", "))]", fields: names)
    }

    /// Converts one JSON value to the stored form of `field`, or explains why it cannot.
    public static func convert(_ value: JSONValue, for field: FieldDefinition) throws(APIError) -> DatabaseValue {
        if value.isNull { return field.type == .boolean ? false.databaseValue : .null }
        switch field.type {
        case .string, .textarea, .phone, .url, .picklist, .multipicklist, .email:
            let text: String
            switch value {
            case let .string(s): text = s
            case let .int(i): text = String(i)
            case let .double(d): text = String(d)
            default: throw cannotDeserialize(field, value)
            }
            if text.isEmpty { return .null }
            if field.length > 0 && text.utf16.count > field.length {
                throw APIError(
                    status: 400, errorCode: "STRING_TOO_LONG",
                    message: "\(field.label): data value too large: \(text) (max length=\(field.length))", fields: [field.name])
            }
            if field.type == .email && !isPlausibleEmail(text) {
                throw APIError(status: 400, errorCode: "INVALID_EMAIL_ADDRESS", message: "\(field.label): invalid email address: \(text)", fields: [field.name])
            }
            return text.databaseValue
        case .boolean:
            guard let flag = value.boolValue else { throw cannotDeserialize(field, value) }
            return flag.databaseValue
        case .int:
            guard let number = value.int64Value else { throw cannotDeserialize(field, value) }
            return number.databaseValue
        case .double, .currency, .percent:
            guard let number = value.doubleValue else { throw cannotDeserialize(field, value) }
            return number.databaseValue
        case .date:
            guard let text = value.stringValue else { throw cannotDeserialize(field, value) }
            if text.isEmpty { return .null }
            let datePart = text.count > 10 ? String(text.prefix(10)) : text
            guard let days = SalesforceDate.parseDate(datePart) else { throw cannotDeserialize(field, value) }
            return SalesforceDate.formatDate(days: days).databaseValue
        case .datetime:
            guard let text = value.stringValue else { throw cannotDeserialize(field, value) }
            if text.isEmpty { return .null }
            guard let seconds = SalesforceDate.parseDateTime(text) else { throw cannotDeserialize(field, value) }
            return seconds.databaseValue
        case .reference, .id:
            guard let text = value.stringValue else { throw cannotDeserialize(field, value) }
            if text.isEmpty { return .null }
            guard let id = SalesforceId.canonical(text) else { throw malformedReference(field, text) }
            return id.databaseValue
        }
    }

    static func malformedReference(_ field: FieldDefinition, _ text: String) -> APIError {
        APIError(status: 400, errorCode: "MALFORMED_ID", message: "\(field.label): id value of incorrect type: \(text)", fields: [field.name])
    }

    static func cannotDeserialize(_ field: FieldDefinition, _ value: JSONValue) -> APIError {
        let token: String
        switch value {
        case .string: token = "VALUE_STRING"
        case .int: token = "VALUE_NUMBER_INT"
        case .double: token = "VALUE_NUMBER_FLOAT"
        case let .bool(flag): token = flag ? "VALUE_TRUE" : "VALUE_FALSE"
        case .array: token = "START_ARRAY"
        case .object: token = "START_OBJECT"
        case .null: token = "VALUE_NULL"
        }
        return .jsonParser(
            "Cannot deserialize instance of \(field.type.soapType.split(separator: ":").last ?? "") from \(token) value \(JSONWriter.string(value)) or request may be missing a required field")
    }

    /// Salesforce's email check, roughly: one `@`, a non-empty local part without spaces, and a
    /// dotted domain of letters, digits and hyphens.
    static func isPlausibleEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(" ") else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" }
        }
    }
}
