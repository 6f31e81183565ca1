import MobileSync
import SmartStore

/// The pickers the form opens with Enter: a lookup's record from its soup's list, a picklist's or
/// record type's value from the org's describe.
extension AppModel {
    /// Rows a picker lists at once.
    public static let lookupPickerHeight = 8

    /// Enter on the focused field: toggles a checkbox, or opens the picker for a choice or lookup.
    mutating func openPicker(in session: inout FormSession) throws {
        guard let field = session.form.focused else { return }
        if field.rule.format == .checkbox {
            session.form.insert(" ")
            return
        }
        if field.rule.isChoice {
            guard field.rule.editable else {
                toast = Toast(messages.readOnlyField(field.rule.label))
                return
            }
            let options = session.form.choices(for: field)
            guard !options.isEmpty else {
                toast = Toast(messages.noValues(field.rule.label))
                return
            }
            session.prompt = .choice(ChoicePicker(field: field, options: options))
            return
        }
        guard let kind = field.lookup, let target = lists.first(where: { $0.kind == kind }) else { return }
        var picker = LookupPicker(field: field.name, list: RecordListViewModel(repository: target.repository))
        try picker.list.setViewportHeight(Self.lookupPickerHeight)
        try picker.list.refresh()
        if !field.value.isEmpty, let current = try target.repository.record(id: field.value) { try picker.list.select(entryId: current.entryId) }
        session.prompt = .lookup(picker)
    }

    mutating func pickingLookup(_ picker: LookupPicker, _ command: AppCommand, in session: inout FormSession) throws {
        var picker = picker
        switch command {
        case .moveUp: try picker.list.move(by: -1)
        case .moveDown: try picker.list.move(by: 1)
        case .deleteBackward: try picker.list.setSearch(String(picker.list.search.dropLast()))
        case .keepSearch:
            if let chosen = picker.list.selected { session.form.setLookup(picker.field, to: chosen.serverId ?? "") }
            session.prompt = nil
            return
        case .clearLine:
            session.form.setLookup(picker.field, to: "")
            session.prompt = nil
            return
        case .clearSearch:
            session.prompt = nil
            return
        default:
            break
        }
        session.prompt = .lookup(picker)
    }

    mutating func pickingChoice(_ picker: ChoicePicker, _ command: AppCommand, in session: inout FormSession) {
        var picker = picker
        switch command {
        case .moveUp: picker.move(by: -1)
        case .moveDown: picker.move(by: 1)
        case .deleteBackward: picker.deleteBackward()
        case .keepSearch:
            if let value = picker.picked { session.form.setChoice(picker.field, to: value) }
            session.prompt = nil
            return
        case .clearLine:
            if picker.format != .recordType { session.form.setChoice(picker.field, to: "") }
            session.prompt = nil
            return
        case .clearSearch:
            session.prompt = nil
            return
        default:
            break
        }
        session.prompt = .choice(picker)
    }
}

/// The list a lookup field's record is picked from: the target soup's records, searched as one
/// types, locally created ones included (their `local_` id is what the field keeps until sync).
public struct LookupPicker: Sendable {
    public let field: String
    public var list: RecordListViewModel
}

/// The values a picklist, multi-select picklist or record type field is picked from: filtered as
/// one types; in a multi-select one Space marks values and Enter keeps the marked ones.
public struct ChoicePicker: Sendable, Equatable {
    public struct Option: Sendable, Equatable {
        public let value: String
        public let label: String
    }

    public let field: String
    public let label: String
    public let format: FieldRule.Format
    public let options: [Option]
    public private(set) var filter = ""
    public private(set) var selectedIndex = 0
    /// The values marked in a multi-select picklist.
    public private(set) var marked: Set<String>

    init(field: FormField, options: [(value: String, label: String)]) {
        self.field = field.name
        label = field.rule.label
        format = field.rule.format
        self.options = options.map { Option(value: $0.value, label: $0.label) }
        let current = field.value.split(separator: ";").map { String($0).trimmingWhitespace }
        marked = Set(current)
        selectedIndex = self.options.firstIndex { current.contains($0.value) } ?? 0
    }

    public var isMultiple: Bool { if case .multiPicklist = format { true } else { false } }

    /// The options that match what was typed (folded, anywhere in the label).
    public var visible: [Option] {
        guard !filter.isEmpty else { return options }
        let folded = TextCollation.fold(filter)
        return options.filter { TextCollation.fold($0.label).contains(folded) }
    }

    mutating func move(by delta: Int) {
        let count = visible.count
        guard count > 0 else { return }
        selectedIndex = min(max(selectedIndex + delta, 0), count - 1)
    }

    mutating func type(_ character: Character) {
        if isMultiple && character == " " {
            guard visible.indices.contains(selectedIndex) else { return }
            let value = visible[selectedIndex].value
            if marked.contains(value) { marked.remove(value) } else { marked.insert(value) }
            return
        }
        filter.append(character)
        selectedIndex = 0
    }

    mutating func deleteBackward() {
        guard !filter.isEmpty else { return }
        filter.removeLast()
        selectedIndex = 0
    }

    /// What Enter sets: the highlighted option, or the marked values in the org's order.
    var picked: String? {
        if isMultiple { return options.filter { marked.contains($0.value) }.map(\.value).joined(separator: ";") }
        return visible.indices.contains(selectedIndex) ? visible[selectedIndex].value : nil
    }
}
