import ForceJSON

/// One field of the edit form: its value as typed, the value it started with, and the cursor.
public struct FormField: Sendable, Equatable {
    public let name: String
    public let rule: FieldRule
    public internal(set) var input: TextInput
    /// The value it had when the form opened, or when `RecordForm.rebase` last read the record.
    public private(set) var original: String
    /// For a lookup (AccountId): the records it points at. Its value is their id, picked from a
    /// list rather than typed.
    public let lookup: RecordKind?
    /// The stored value, saved back as it was when the field is left unchanged (a number or a
    /// date keeps its exact form).
    private(set) var originalJSON: JSONValue?

    init(name: String, rule: FieldRule, value: String, lookup: RecordKind? = nil, originalJSON: JSONValue? = nil) {
        self.name = name
        self.rule = rule
        self.input = TextInput(value)
        self.original = value
        self.lookup = lookup
        self.originalJSON = originalJSON
    }

    public var value: String { input.text }
    /// Typed into: not a lookup, not picked from a list, not read-only.
    public var isTyped: Bool { lookup == nil && !rule.isChoice && rule.format != .checkbox && rule.editable }
    /// The cursor, in characters from the start of `value`.
    public var cursor: Int { input.cursor }
    public var isChanged: Bool { value != original }

    /// Starts from `json`, the value stored now; what was typed stays when `keepingInput`.
    mutating func rebase(onto json: JSONValue?, keepingInput: Bool) {
        original = Self.text(json, rule: rule)
        originalJSON = json
        if !keepingInput { input = TextInput(original) }
    }

    /// A stored value as the form shows it.
    static func text(_ json: JSONValue?, rule: FieldRule) -> String {
        let text = LocalRecord.text(json)
        return rule.format == .checkbox && text.isEmpty ? "false" : text
    }
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
    /// The org's describe the rules come from; nil: forceterm's built-in rules.
    public let description: ObjectDescription?
    /// Why the form uses built-in rules, when it does (shown under the title).
    public let rulesNote: String?

    /// A form over `fieldNames`, filled from `record` when editing (from the preset when
    /// creating). `lookups` are the reference fields picked from a list (AccountId → accounts);
    /// RecordTypeId is picked from the org's record types; other `…Id` fields are left out: they
    /// are set by where the record is created, not typed. With a `description`, labels, types and
    /// rules are the org's.
    public init(
        kind: RecordKind, purpose: Purpose, title: String, fieldNames: [String], record: LocalRecord?,
        lookups: [String: RecordKind] = [:], description: ObjectDescription? = nil, rulesNote: String? = nil
    ) {
        self.kind = kind
        self.purpose = purpose
        self.title = title
        self.description = description
        self.rulesNote = description == nil ? rulesNote : nil
        var preset: JSONObject = [:]
        var creating = false
        if case let .create(values) = purpose {
            preset = values
            creating = true
            if let description, fieldNames.contains("RecordTypeId"), preset["RecordTypeId"] == nil,
                let id = description.defaultRecordTypeId ?? description.recordTypes.first?.id
            {
                preset["RecordTypeId"] = .string(id)
            }
        }
        let choosesRecordType = description?.offersRecordTypeChoice == true
        fields = fieldNames.filter { !$0.hasSuffix("Id") || lookups[$0] != nil || ($0 == "RecordTypeId" && choosesRecordType) }.map { name in
            let rule: FieldRule
            if name == "RecordTypeId" {
                let updateable = description?.field(name)?.updateable ?? true
                rule = FieldRule(label: "Record Type", required: true, maxLength: 0, format: .recordType, editable: creating || updateable)
            } else if let field = description?.field(name), name.hasSuffix("Country"), description?.addressChoices(for: name) != nil {
                // State and Country/Territory Picklists: the country is one of the org's, picked.
                let base = FieldRule(field, creating: creating)
                rule = FieldRule(
                    label: base.label, required: base.required, maxLength: base.maxLength, format: .picklist(restricted: true),
                    editable: base.editable)
            } else if let field = description?.field(name) {
                rule = FieldRule(field, creating: creating)
            } else {
                rule = FieldRule.rule(for: name, of: kind)
            }
            let json = record?.document[name] ?? preset[name]
            return FormField(name: name, rule: rule, value: FormField.text(json, rule: rule), lookup: lookups[name], originalJSON: json)
        }
    }

    /// The record type the record has in the form (its own, else the org's default).
    public var recordTypeId: String? {
        if let field = fields.first(where: { $0.name == "RecordTypeId" }), !field.value.isEmpty { return field.value }
        return description?.defaultRecordTypeId
    }

    /// What a choice field may be set to, as (value, label): a picklist's values for the
    /// record's record type, or the org's record types.
    public func choices(for field: FormField) -> [(value: String, label: String)] {
        guard let description else { return [] }
        if field.rule.format == .recordType { return description.recordTypes.map { ($0.id, $0.label) } }
        if let address = description.addressChoices(for: field.name), field.name.hasSuffix("Country") {
            return address.countries.map { ($0.label, $0.label) }
        }
        guard let described = description.field(field.name) else { return [] }
        return description.choices(for: described, recordTypeId: recordTypeId).map { ($0, $0) }
    }

    /// The org's states for the country an address's state field goes with, when it has any
    /// (nil: the org has no state picklists, or the country none, so any text is taken).
    public func stateChoices(for field: FormField) -> [AddressChoices.Entry]? {
        guard field.name.hasSuffix("State"), let address = description?.addressChoices(for: field.name) else { return nil }
        let countryField = String(field.name.dropLast("State".count)) + "Country"
        guard let country = fields.first(where: { $0.name == countryField })?.value,
            case let .country(entry) = address.country(country), let states = address.states[entry.code], !states.isEmpty
        else { return nil }
        return states
    }

    /// Sets a choice field to what was picked (several values of a multi-select picklist joined with `;`).
    public mutating func setChoice(_ name: String, to value: String) {
        guard let index = fields.firstIndex(where: { $0.name == name && $0.rule.isChoice && $0.rule.editable }) else { return }
        fields[index].input = TextInput(value)
        problems[name] = nil
    }

    /// Sets a lookup field to the id picked (empty for none).
    public mutating func setLookup(_ name: String, to id: String) {
        guard let index = fields.firstIndex(where: { $0.name == name && $0.lookup != nil }) else { return }
        fields[index].input = TextInput(id)
        problems[name] = nil
    }

    /// Sets a field from text, as a script or an imported file gives it: typed, picked or ticked
    /// alike (a checkbox takes true/false, yes/no, 1/0). False when the form has no such field or
    /// the user may not set it.
    public mutating func set(_ name: String, text: String) -> Bool {
        guard let index = fields.firstIndex(where: { $0.name == name }), fields[index].rule.editable else { return false }
        var value = text
        if fields[index].rule.format == .checkbox, let flag = FormValue.checkbox(text) { value = flag ? "true" : "false" }
        fields[index].input = TextInput(value)
        problems[name] = nil
        return true
    }

    public var focused: FormField? { fields.indices.contains(focusedIndex) ? fields[focusedIndex] : nil }
    public var isDirty: Bool { fields.contains(where: \.isChanged) }

    public mutating func focusNext() { if !fields.isEmpty { focusedIndex = (focusedIndex + 1) % fields.count } }
    public mutating func focusPrevious() { if !fields.isEmpty { focusedIndex = (focusedIndex + fields.count - 1) % fields.count } }

    /// Typing goes into text fields; a lookup or a picklist is picked from its list (Enter), a
    /// checkbox toggles with Space, and a read-only field takes nothing.
    public mutating func insert(_ character: Character) {
        edit { field in
            if field.rule.format == .checkbox && field.rule.editable && character == " " {
                field.input = TextInput(field.value == "true" ? "false" : "true")
            } else if field.isTyped {
                field.input.insert(character)
            }
        }
    }
    public mutating func deleteBackward() { edit { if $0.isTyped { $0.input.deleteBackward() } } }
    public mutating func deleteForward() { edit { if $0.isTyped { $0.input.deleteForward() } } }
    public mutating func clearFocused() {
        edit { field in
            guard field.rule.editable, field.rule.format != .checkbox, field.rule.format != .recordType else { return }
            field.input.clear()
        }
    }

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
                problems[name] = error.fieldMessage
            }
        }
        if let first = fields.firstIndex(where: { problems[$0.name] != nil }) { focusedIndex = first }
    }

    /// Checks every field; on problems, focuses the first field that has one. True when all is well.
    public mutating func validate() -> Bool {
        problems = [:]
        let recordTypeChanged = fields.contains { $0.rule.format == .recordType && $0.isChanged }
        for field in fields where field.rule.editable {
            // A lookup holds an id picked from a list (a `local_` one is longer than Salesforce's 18).
            if field.lookup != nil || field.rule.format == .recordType {
                if field.rule.required && field.value.isEmpty { problems[field.name] = "pick one (Enter)" }
                continue
            }
            // A value the org no longer offers is only refused once the user changes it.
            let choices = field.isChanged || recordTypeChanged ? choices(for: field).map(\.value) : LocalRecord.text(field.originalJSON).split(separator: ";").map(String.init)
            if let problem = field.rule.problem(with: field.value, choices: choices) { problems[field.name] = problem }
            // A state of a country with states must be one of them, checked when it or its country changed.
            let countryField = fields.first { $0.name == String(field.name.dropLast("State".count)) + "Country" }
            let countryChanged = countryField?.isChanged ?? false
            if problems[field.name] == nil, field.isChanged || countryChanged, field.name.hasSuffix("State"),
                description?.addressChoices(for: field.name) != nil, !field.value.trimmingWhitespace.isEmpty,
                let countryField, countryField.value.trimmingWhitespace.isEmpty
            {
                // The org takes a state only with its country (FIELD_INTEGRITY_EXCEPTION otherwise).
                problems[field.name] = "\(field.rule.label) needs its country: give the \(countryField.rule.label) too, or clear it"
            }
            if problems[field.name] == nil, field.isChanged || countryChanged, !field.value.trimmingWhitespace.isEmpty,
                let states = stateChoices(for: field)
            {
                if let state = states.first(where: {
                    CountryNames.fold($0.label) == CountryNames.fold(field.value)
                        || $0.code.caseInsensitiveCompare(field.value.trimmingWhitespace) == .orderedSame
                }) {
                    // The org keeps the state's name in the text field: a code typed becomes it.
                    if state.label != field.value, let index = fields.firstIndex(where: { $0.name == field.name }) {
                        fields[index].input = TextInput(state.label)
                    }
                } else {
                    problems[field.name] =
                        "\(field.rule.label) must be one of the org's states of that country: "
                        + states.prefix(8).map(\.label).joined(separator: ", ") + (states.count > 8 ? ", …" : "")
                }
            }
        }
        if let first = fields.firstIndex(where: { problems[$0.name] != nil }) { focusedIndex = first }
        return problems.isEmpty
    }

    /// Takes the record as stored now, which a sync may have changed while the form was open:
    /// fields left alone show the stored values; a field changed here that the sync changed too
    /// keeps what was typed, now measured against the stored value. Returns those fields, so the
    /// user can be told before their value replaces one they have not seen.
    public mutating func rebase(onto record: LocalRecord) -> [FormField] {
        var clashes: [FormField] = []
        for index in fields.indices {
            let stored = record.document[fields[index].name]
            guard FormField.text(stored, rule: fields[index].rule) != fields[index].original else { continue }
            let typed = fields[index].isChanged
            fields[index].rebase(onto: stored, keepingInput: typed)
            if typed && fields[index].isChanged { clashes.append(fields[index]) }
        }
        return clashes
    }

    /// The values to save, trimmed and typed for their fields (numbers, checkboxes); an emptied
    /// field is saved as null (cleared), and a field the user may not set is left out. Editing,
    /// only the fields changed here: the others may have changed in a sync since the form opened.
    /// Creating, every field, an unchanged one as it was given.
    public var values: JSONObject {
        var values: JSONObject = [:]
        if case let .create(preset) = purpose { for (key, value) in preset { values[key] = value } }
        let editing: Bool = if case .edit = purpose { true } else { false }
        for field in fields {
            if !field.isChanged {
                if editing { continue }
                if let original = field.originalJSON {
                    values[field.name] = original
                } else if field.rule.editable {
                    values[field.name] = .null
                }
            } else if field.rule.editable {
                values[field.name] = FormValue.json(field.value, format: field.rule.format)
            }
        }
        return values
    }
}
