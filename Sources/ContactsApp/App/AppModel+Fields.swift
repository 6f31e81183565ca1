import MobileSync

/// How the screens name and show a record's fields: the org's labels when its describe is kept,
/// lookups by the name of the record they point at.
extension AppModel {
    /// What the screens call `field` of `kind`: the org's label when its describe is kept, else
    /// forceterm's own.
    public func label(of field: String, in kind: RecordKind) -> String {
        if field == "RecordTypeId", described[kind.sObjectType] != nil { return "Record Type" }
        return described[kind.sObjectType]?.field(field)?.label ?? FieldRule.rule(for: field, of: kind).label
    }

    /// A stored value as the detail shows it: a record type by its label, else the value.
    public func displayValue(of field: String, in record: LocalRecord, kind: RecordKind) -> String {
        let value = record.string(field)
        if field == "RecordTypeId", let label = described[kind.sObjectType]?.recordTypeLabel(value) { return label }
        return value
    }

    mutating func readDescriptions() {
        guard let descriptions else { return }
        var found: [String: ObjectDescription] = [:]
        for kind in kinds where found[kind.sObjectType] == nil {
            found[kind.sObjectType] = descriptions.description(of: kind.sObjectType)
        }
        described = found
    }

    /// What a choice field shows: the record type's label, else the value.
    public func choiceDisplay(_ field: FormField) -> String {
        guard field.rule.format == .recordType, let form else { return field.value }
        return form.description?.recordTypeLabel(field.value) ?? field.value
    }

    /// The lookup fields of `kind`'s form (a contact's AccountId → the accounts).
    public func lookups(for kind: RecordKind) -> [String: RecordKind] { schema.lookups(for: kind) }

    /// What a lookup field shows: the name of the record its id points at, else the id and why.
    public func lookupDisplay(_ field: FormField) -> String {
        guard let kind = field.lookup, !field.value.isEmpty else { return field.value }
        guard let list = lists.first(where: { $0.kind == kind }), let record = try? list.repository.record(id: field.value) else {
            return "\(field.value) (not in this store)"
        }
        let name = kind.displayName(of: record)
        return name.isEmpty ? field.value : name
    }

    /// The fields the form edits for `kind`: usersyncs.json's, or built-in ones if it names none.
    public func fieldNames(for kind: RecordKind) -> [String] { schema.fieldNames(for: kind) }

    /// The account a contact belongs to, for the detail pane.
    public func account(of contact: LocalRecord) -> LocalRecord? {
        account(id: contact.string("AccountId"))
    }

    /// The account with this id (server or local), when the config has an accounts soup holding it.
    public func account(id: String) -> LocalRecord? {
        guard !id.isEmpty, let accounts else { return nil }
        return try? accounts.repository.record(id: id)
    }
}
