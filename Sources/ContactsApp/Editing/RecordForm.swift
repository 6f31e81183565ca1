import ForceJSON

/// One field of the edit form: its value as typed, the value it started with, and the cursor.
public struct FormField: Sendable, Equatable {
    public let name: String
    public let rule: FieldRule
    public internal(set) var input: TextInput
    public let original: String

    init(name: String, rule: FieldRule, value: String) {
        self.name = name
        self.rule = rule
        self.input = TextInput(value)
        self.original = value
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

    /// A form over `fieldNames`, filled from `record` when editing.
    public init(kind: RecordKind, purpose: Purpose, title: String, fieldNames: [String], record: LocalRecord?) {
        self.kind = kind
        self.purpose = purpose
        self.title = title
        // Reference fields (AccountId) are set by where the record is created, not typed.
        fields = fieldNames.filter { !$0.hasSuffix("Id") }.map { name in
            FormField(name: name, rule: FieldRule.rule(for: name, of: kind), value: record?.string(name) ?? "")
        }
    }

    public var focused: FormField? { fields.indices.contains(focusedIndex) ? fields[focusedIndex] : nil }
    public var isDirty: Bool { fields.contains(where: \.isChanged) }

    public mutating func focusNext() { if !fields.isEmpty { focusedIndex = (focusedIndex + 1) % fields.count } }
    public mutating func focusPrevious() { if !fields.isEmpty { focusedIndex = (focusedIndex + fields.count - 1) % fields.count } }

    public mutating func insert(_ character: Character) { edit { $0.input.insert(character) } }
    public mutating func deleteBackward() { edit { $0.input.deleteBackward() } }
    public mutating func deleteForward() { edit { $0.input.deleteForward() } }
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
