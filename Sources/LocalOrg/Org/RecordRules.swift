import ForceJSON
import Foundation
import GRDB
import SalesforceTime

/// The org's own rules for a record as it will be stored (record types, restricted picklists,
/// validation rules) and the fields computed from others.
extension RecordValidator {
    /// What an org's configuration adds to a save, checked on the record as it will be stored:
    /// its record type is one of the object's, restricted picklists hold a value the record type
    /// offers (the fields `written` sets, or all when the record type changes), and no validation
    /// rule fails.
    static func checkRecordRules(object: ObjectDefinition, written: [String: DatabaseValue], record: [String: DatabaseValue]) throws {
        var recordType: RecordTypeDefinition?
        if !object.recordTypes.isEmpty {
            if let id = record["RecordTypeId"].flatMap(String.fromDatabaseValue) {
                guard let found = object.recordType(id: id) else {
                    throw APIError(
                        status: 400, errorCode: "INVALID_CROSS_REFERENCE_KEY",
                        message: "Record Type ID: this ID value isn't valid for the user: \(id)", fields: ["RecordTypeId"])
                }
                recordType = found
            } else {
                recordType = object.defaultRecordType
            }
        }
        let recordTypeChanged = written["RecordTypeId"] != nil
        for field in object.fields where field.restrictedPicklist && (recordTypeChanged || written[field.name] != nil) {
            guard let stored = record[field.name].flatMap(String.fromDatabaseValue) else { continue }
            let offered = object.picklistValues(of: field, recordType: recordType)
            let values = field.type == .multipicklist ? stored.split(separator: ";").map(String.init) : [stored]
            if let value = values.first(where: { !offered.contains($0) }) {
                throw APIError(
                    status: 400, errorCode: "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST",
                    message: "\(field.label): bad value for restricted picklist field: \(value)", fields: [field.name])
            }
        }
        let recordTypeName = recordType?.developerName ?? "Master"
        for rule in object.validationRules {
            var holds = true
            for condition in rule.conditions where holds {
                holds = Self.holds(condition, object: object, record: record, recordTypeName: recordTypeName)
            }
            var missing = false
            for name in rule.requires where !missing {
                missing = Self.isBlank(object.field(named: name).flatMap { record[$0.name] })
            }
            if holds && missing {
                throw APIError(
                    status: 400, errorCode: "FIELD_CUSTOM_VALIDATION_EXCEPTION", message: rule.errorMessage,
                    fields: rule.errorField.map { [$0] } ?? [])
            }
        }
    }

    private static func holds(
        _ condition: ValidationRule.Condition, object: ObjectDefinition, record: [String: DatabaseValue],
        recordTypeName: String
    ) -> Bool {
        if condition.field == "RecordType" { return recordTypeName == condition.value }
        guard let field = object.field(named: condition.field) else { return false }
        let text: String
        switch record[field.name]?.storage {
        case let .string(string)?: text = string
        case let .int64(number)? where field.type == .boolean: text = number == 0 ? "false" : "true"
        case let .int64(number)?: text = String(number)
        case let .double(number)?: text = String(number)
        default: return false
        }
        return text.caseInsensitiveCompare(condition.value) == .orderedSame
    }

    private static func isBlank(_ value: DatabaseValue?) -> Bool {
        guard let value, !value.isNull else { return true }
        return String.fromDatabaseValue(value)?.isEmpty == true
    }

    /// Fills fields such as Contact.Name from the fields they concatenate.
    static func fillComputedFields(object: ObjectDefinition, values: inout [String: DatabaseValue]) {
        for field in object.fields where !field.concatenationOf.isEmpty {
            let parts = field.concatenationOf.compactMap { values[$0].flatMap(String.fromDatabaseValue) }.filter { !$0.isEmpty }
            values[field.name] = parts.isEmpty ? .null : parts.joined(separator: " ").databaseValue
        }
    }
}
