import ForceJSON
import MobileSync
import SmartStore

/// Where a record stands against the server, in the order the row marker shows it. The raw value
/// is the state's name in `forceterm list` and the JSON the commands print.
public enum LocalState: String, Sendable, Hashable {
    case clean, created, updated, deleted, error, conflict

    /// The row marker from the design: `+` created, `~` updated, `-` deleted, `!` error, `≠` conflict.
    public var marker: String {
        switch self {
        case .clean: return " "
        case .created: return "+"
        case .updated: return "~"
        case .deleted: return "-"
        case .error: return "!"
        case .conflict: return "≠"
        }
    }

    /// The marker for terminals that cannot show `≠`.
    public var asciiMarker: String { self == .conflict ? "#" : marker }

    /// The state in words, for the detail pane.
    public var summary: String {
        switch self {
        case .clean: return "in sync with the server"
        case .created: return "created here, not synced yet"
        case .updated: return "changed here, not synced yet"
        case .deleted: return "deleted here, not synced yet (u undeletes)"
        case .error: return "the last sync of this record failed"
        case .conflict: return "changed here and on the server"
        }
    }
}

/// One soup entry as the screens see it: its entry id and its document.
public struct LocalRecord: Sendable, Equatable {
    public let entryId: Int64
    public let document: JSONObject

    public init(document: JSONObject) throws {
        guard let id = document[SmartStore.soupEntryId]?.int64Value else {
            throw ConfigError("a stored record has no \(SmartStore.soupEntryId)")
        }
        self.entryId = id
        self.document = document
    }

    /// A field as text; empty when missing or null. Numbers and booleans are written as JSON.
    public func string(_ field: String) -> String { Self.text(document[field]) }

    /// A value as the screens show it: empty when missing or null, numbers and booleans as JSON.
    public static func text(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return ""
        case let .string(text)?: return text
        case let value?: return JSONWriter.string(value)
        }
    }

    public func flag(_ key: String) -> Bool { Self.flag(key, in: document) }

    /// A flag as the SDK platforms store it: true, "true", "1" or a non-zero number.
    static func flag(_ key: String, in document: JSONObject) -> Bool {
        switch document[key] {
        case let .bool(value)?: return value
        case let .string(text)?: return text == "true" || text == "1"
        case let .int(number)?: return number != 0
        default: return false
        }
    }

    public var serverId: String? { document["Id"]?.stringValue }

    public var lastError: String? {
        let text = string(LocalField.lastError)
        return text.isEmpty ? nil : text
    }

    public var hasConflict: Bool {
        guard let value = document[LocalField.conflict] else { return false }
        return !value.isNull && value != .bool(false)
    }

    /// The most important state: conflict, then error, then deleted, created, updated.
    public var state: LocalState {
        if hasConflict { return .conflict }
        if lastError != nil { return .error }
        if flag(LocalField.locallyDeleted) { return .deleted }
        if flag(LocalField.locallyCreated) { return .created }
        if flag(LocalField.locallyUpdated) { return .updated }
        return .clean
    }

    public var isLocallyDeleted: Bool { flag(LocalField.locallyDeleted) }
    public var isLocallyCreated: Bool { flag(LocalField.locallyCreated) }
    /// Changed here and not synced yet, or in conflict: something a revert would undo.
    public var hasLocalChanges: Bool { flag(LocalField.local) || hasConflict }
}

/// One of Salesforce's refusals of a record, from `__last_error__`, in words for the detail and
/// the form: what happened, the org's own message, and the fields it names.
public struct RecordSyncError: Sendable, Equatable {
    public let code: String
    public let message: String
    public let fields: [String]
    /// `DUPLICATES_DETECTED`: the records the org's duplicate rule matched.
    public var duplicates: [RecordReference] = []

    /// The errors a record carries: the SDK's `[{"errorCode","message","fields"}]`, or plain text.
    public static func errors(of record: LocalRecord) -> [RecordSyncError] {
        switch record.document[LocalField.lastError] {
        case nil, .null?: return []
        case let .string(text)?:
            // The Mobile SDK keeps the org's answer as text; read it as the JSON it holds.
            if let parsed = try? JSONParser.parse(text), parsed.arrayValue != nil || parsed.objectValue != nil {
                return errors(in: parsed)
            }
            return text.isEmpty ? [] : [RecordSyncError(code: "", message: text, fields: [])]
        case let value?:
            return errors(in: value)
        }
    }

    private static func errors(in value: JSONValue) -> [RecordSyncError] {
        switch value {
        case let .array(items):
            return items.map { item in
                var error = RecordSyncError(
                    code: item["errorCode"]?.stringValue ?? item["statusCode"]?.stringValue ?? "",
                    message: item["message"]?.stringValue ?? LocalRecord.text(item),
                    fields: item["fields"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                error.duplicates = item["duplicates"]?.arrayValue?.compactMap(RecordReference.init) ?? []
                return error
            }
        default:
            return [
                RecordSyncError(
                    code: value["errorCode"]?.stringValue ?? "", message: value["message"]?.stringValue ?? LocalRecord.text(value),
                    fields: value["fields"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            ]
        }
    }

    /// What the error code means for the person editing, when it is one of Salesforce's common ones.
    public var explanation: String? {
        switch code {
        case "REQUIRED_FIELD_MISSING": "a required field is empty"
        case "INVALID_CROSS_REFERENCE_KEY": "it points at a record the org does not have (deleted there, or not synced yet)"
        case "FIELD_CUSTOM_VALIDATION_EXCEPTION": "a validation rule of the org refused it"
        case "STRING_TOO_LONG": "a value is longer than the org allows"
        case "INVALID_EMAIL_ADDRESS": "an email address is not valid"
        case "DUPLICATE_VALUE": "the org already has a record with that unique value"
        case "DUPLICATES_DETECTED": "the org's duplicate rule found records like it"
        case "ENTITY_IS_DELETED": "it was deleted on the server"
        case "INSUFFICIENT_ACCESS_OR_READONLY":
            "your user may not change this record in the org (its sharing may have changed); revert your change, and the next sync removes the record if it is no longer shared with you"
        case "INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY": "it points at a record your user may not use in the org"
        case "CANNOT_EXECUTE_FLOW_TRIGGER", "CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY":
            "an automation of the org (a flow or a trigger) refused it; its message says why: change the record, or ask your admin"
        case "UNABLE_TO_LOCK_ROW": "another job held a record it needs in the org; the next sync sends it again"
        case "CREATE_IN_DOUBT": "its create may be on the server already; decide with forceterm resolve"
        case "FIELD_NOT_WRITABLE": "the org does not let you set one of its fields"
        case "FIELD_INTEGRITY_EXCEPTION": "a country or state is not one the org offers"
        case "INVALID_FIELD_FOR_INSERT_UPDATE", "INVALID_FIELD": "a field cannot be written in the org"
        case "MALFORMED_ID", "INVALID_ID_FIELD": "an id is not valid"
        case "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST": "the org does not offer that picklist value (for this record type)"
        default: nil
        }
    }

    /// What the form shows on a field the error names: a validation rule's own words (the org's
    /// admin wrote them for users), else the explanation.
    public var fieldMessage: String {
        code == "FIELD_CUSTOM_VALIDATION_EXCEPTION" ? message : explanation ?? message
    }

    /// "The org refused it: a required field is empty — Required fields are missing: [LastName]".
    public var sentence: String {
        let why = explanation.map { "\($0) — " } ?? ""
        let matches = duplicates.isEmpty ? "" : "; the org has " + duplicates.prefix(3).map(\.label).joined(separator: ", ")
        return why + message + matches
    }

}
