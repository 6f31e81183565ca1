import ForceJSON
import Foundation
import GRDB

/// A record-triggered flow of the org, declared in the schema (`fieldUpdates`): as a record is
/// saved, it sets a field, or refuses the save. A client sees only its effect: the create's answer
/// is `{id, success, errors}` (201) and the changed value shows when the record is read back; a
/// refusal is `CANNOT_EXECUTE_FLOW_TRIGGER` with the flow's label in curly quotes and an Error ID,
/// as a recorded answer shows it.
public struct FieldUpdate: Sendable {
    public enum Action: Sendable, Equatable {
        case set(String)
        case setIfBlank(String)
        case lowercase, uppercase, trim, digitsOnly
        /// Refuse the save with this message (a flow's fault path).
        case refuse(String)
    }

    public var name: String
    /// The field it changes (none for a refusal).
    public var field: String?
    public var action: Action
    /// On create only, or on every save.
    public var onCreateOnly: Bool
    /// Field → value the record must hold (as validation rules' `when`); empty: always.
    public var conditions: [ValidationRule.Condition]

    static func parse(_ json: JSONValue, object: ObjectDefinition) throws -> FieldUpdate {
        guard let name = json["name"]?.stringValue else { throw SchemaError(description: "every field update of \(object.name) needs a name") }
        let field = json["field"]?.stringValue
        let action: Action
        if let value = json["set"]?.stringValue {
            action = .set(value)
        } else if let value = json["setIfBlank"]?.stringValue {
            action = .setIfBlank(value)
        } else if let message = json["refuse"]?.stringValue {
            action = .refuse(message)
        } else {
            switch json["transform"]?.stringValue {
            case "lowercase": action = .lowercase
            case "uppercase": action = .uppercase
            case "trim": action = .trim
            case "digitsOnly": action = .digitsOnly
            default:
                throw SchemaError(description: "field update \(object.name).\(name) needs set, setIfBlank, refuse, or transform (lowercase, uppercase, trim, digitsOnly)")
            }
        }
        if case .refuse = action {
        } else {
            guard let field, object.field(named: field) != nil else {
                throw SchemaError(description: "field update \(object.name).\(name) names no field of \(object.name)")
            }
        }
        let on = json["on"]?.stringValue ?? "save"
        guard on == "create" || on == "save" else { throw SchemaError(description: "field update \(object.name).\(name): \"on\" is create or save") }
        let conditions = (json["when"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { key, value in
            ValidationRule.Condition(field: key, value: value.stringValue ?? JSONWriter.string(value))
        }
        return FieldUpdate(
            name: name, field: field.flatMap { object.field(named: $0)?.name }, action: action, onCreateOnly: on == "create",
            conditions: conditions)
    }

    /// Runs the object's flows on `record` (as it will be stored), in order.
    static func apply(_ updates: [FieldUpdate], object: ObjectDefinition, record: inout [String: DatabaseValue], creating: Bool) throws {
        for update in updates where creating || !update.onCreateOnly {
            guard
                update.conditions.allSatisfy({ condition in
                    guard let field = object.field(named: condition.field), let text = String.fromDatabaseValue(record[field.name] ?? .null) else { return false }
                    return text.caseInsensitiveCompare(condition.value) == .orderedSame
                })
            else { continue }
            let current = update.field.flatMap { String.fromDatabaseValue(record[$0] ?? .null) }
            let changed: String?
            switch update.action {
            case let .refuse(message):
                let errorId = "\(Int.random(in: 100_000_000...999_999_999))-\(Int.random(in: 10_000...99_999)) (\(Int.random(in: 1_000_000_000...2_147_483_647)))"
                throw APIError(
                    status: 400, errorCode: "CANNOT_EXECUTE_FLOW_TRIGGER",
                    message: "We can't save this record because the \u{201C}\(update.name)\u{201D} process failed. Give your Salesforce admin these details. \(message) Error ID: \(errorId)",
                    fields: [])
            case let .set(value): changed = value
            case let .setIfBlank(value): changed = (current ?? "").isEmpty ? value : current
            case .lowercase: changed = current?.lowercased()
            case .uppercase: changed = current?.uppercased()
            case .trim: changed = current?.trimmingCharacters(in: .whitespaces)
            case .digitsOnly: changed = current.map { text in (text.hasPrefix("+") ? "+" : "") + text.filter(\.isNumber) }
            }
            if let field = update.field { record[field] = changed.map { $0.databaseValue } ?? .null }
        }
    }
}
