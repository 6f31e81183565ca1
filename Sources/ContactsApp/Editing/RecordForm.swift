import ForceJSON

/// One field of the edit form: its value as typed, the value it started with, and the cursor.
public struct FormField: Sendable, Equatable {
    public let name: String
    public let rule: FieldRule
    public internal(set) var input: TextInput
    public let original: String
    /// For a lookup (AccountId): the records it points at. Its value is their id, picked from a
    /// list rather than typed.
    public let lookup: RecordKind?

    init(name: String, rule: FieldRule, value: String, lookup: RecordKind? = nil) {
        self.name = name
        self.rule = rule
        self.input = TextInput(value)
        self.original = value
        self.lookup = lookup
    }

    public var value: String { input.text }
    /// The cursor, in characters from the start of `value`.
    public var cursor: Int { input.cursor }
    public var isChanged: Bool { value != original }
}

/// The edit pane: fields from usersyncs.json, the focused field and its cursor, and the problems
/// found by the last validation. Saving is the app model's job; the form only edits and checks.
public struct RecordForm: Sendable, Equatable {
    public enum Purpose: Sendable, Equatable {
        /// A new record; `preset` fields (a contact's AccountId) are saved with it but not shown.
        case create(preset: JSONObject)
        case edit(entryId: Int64)
    }

    public let kind: RecordKind
    public let purpose: Purpose
    public let title: String
    public private(set) var fields: [FormField]
    public private(set) var focusedIndex = 0
    /// Problems by field name, from the last `validate()`; cleared for a field as it is edited.
    public private(set) var problems: [String: String] = [:]

    /// A form over `fieldNames`, filled from `record` when editing (from the preset when
    /// creating). `lookups` are the reference fields picked from a list (AccountId → accounts);
    /// other `…Id` fields are left out: they are set by where the record is created, not typed.
    public init(kind: RecordKind, purpose: Purpose, title: String, fieldNames: [String], record: LocalRecord?,
                lookups: [String: RecordKind] = [:]) {
        self.kind = kind
        self.purpose = purpose
        self.title = title
        var preset: JSONObject = [:]
        if case let .create(values) = purpose { preset = values }
        fields = fieldNames.filter { !$0.hasSuffix("Id") || lookups[$0] != nil }.map { name in
            FormField(name: name, rule: FieldRule.rule(for: name, of: kind),
                      value: record?.string(name) ?? preset[name]?.stringValue ?? "", lookup: lookups[name])
        }
    }

    /// Sets a lookup field to the id picked (empty for none).
    public mutating func setLookup(_ name: String, to id: String) {
        guard let index = fields.firstIndex(where: { $0.name == name && $0.lookup != nil }) else { return }
        fields[index].input = TextInput(id)
        problems[name] = nil
    }

    public var focused: FormField? { fields.indices.contains(focusedIndex) ? fields[focusedIndex] : nil }
    public var isDirty: Bool { fields.contains(where: \.isChanged) }

    public mutating func focusNext() { if !fields.isEmpty { focusedIndex = (focusedIndex + 1) % fields.count } }
    public mutating func focusPrevious() { if !fields.isEmpty { focusedIndex = (focusedIndex + fields.count - 1) % fields.count } }

    /// Typing goes into text fields; a lookup is picked from its list (Enter), not typed.
    public mutating func insert(_ character: Character) { edit { if $0.lookup == nil { $0.input.insert(character) } } }
    public mutating func deleteBackward() { edit { if $0.lookup == nil { $0.input.deleteBackward() } } }
    public mutating func deleteForward() { edit { if $0.lookup == nil { $0.input.deleteForward() } } }
    public mutating func clearFocused() { edit { $0.input.clear() } }

    public mutating func moveCursor(by delta: Int) {
        guard fields.indices.contains(focusedIndex) else { return }
        fields[focusedIndex].input.moveCursor(by: delta)
    }

    public mutating func moveCursorToStart() {
        guard fields.indices.contains(focusedIndex) else { return }
        fields[focusedIndex].input.moveToStart()
    }

    public mutating func moveCursorToEnd() {
        guard fields.indices.contains(focusedIndex) else { return }
        fields[focusedIndex].input.moveToEnd()
    }

    private mutating func edit(_ change: (inout FormField) -> Void) {
        guard fields.indices.contains(focusedIndex) else { return }
        change(&fields[focusedIndex])
        problems[fields[focusedIndex].name] = nil
    }

    /// Marks the fields the org named when it refused the record, with its words, and focuses
    /// the first of them; they clear as they are edited, like the form's own problems.
    public mutating func mark(_ errors: [RecordSyncError]) {
        for error in errors {
            for name in error.fields where fields.contains(where: { $0.name == name }) {
                problems[name] = error.explanation ?? error.message
            }
        }
        if let first = fields.firstIndex(where: { problems[$0.name] != nil }) { focusedIndex = first }
    }

    /// Checks every field; on problems, focuses the first field that has one. True when all is well.
    public mutating func validate() -> Bool {
        problems = [:]
        for field in fields {
            // A lookup holds an id picked from a list (a `local_` one is longer than Salesforce's 18).
            if field.lookup != nil {
                if field.rule.required && field.value.isEmpty { problems[field.name] = "pick one (Enter)" }
                continue
            }
            if let problem = field.rule.problem(with: field.value) { problems[field.name] = problem }
        }
        if let first = fields.firstIndex(where: { problems[$0.name] != nil }) { focusedIndex = first }
        return problems.isEmpty
    }

    /// The values to save, trimmed; an emptied field is saved as null (cleared).
    public var values: JSONObject {
        var values: JSONObject = [:]
        if case let .create(preset) = purpose { for (key, value) in preset { values[key] = value } }
        for field in fields {
            let trimmed = field.value.trimmingWhitespace
            values[field.name] = trimmed.isEmpty ? .null : .string(trimmed)
        }
        return values
    }
}
