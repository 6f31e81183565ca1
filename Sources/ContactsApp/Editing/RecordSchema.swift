import ForceJSON
import SmartStore

/// What a record of each kind is edited through: the fields its sync up sends, the lookups among
/// the record tabs, and the org's rules when their describe is kept. The TUI's forms and the
/// command line's create, update and import all start here, so a change is checked and recorded
/// the same way wherever it is made.
public struct RecordSchema: Sendable {
    public let kinds: [RecordKind]
    public let syncedFields: SyncedFields
    /// The org's describes, kept by the config's metadata syncs; nil: built-in rules, no note.
    public let descriptions: ObjectDescriptions?
    /// The describes read once, by sObject type (`readingDescriptionsOnce`); nil: read per form.
    private var readDescriptions: [String: ObjectDescription]?

    public init(kinds: [RecordKind], syncedFields: SyncedFields, descriptions: ObjectDescriptions?) {
        self.kinds = kinds
        self.syncedFields = syncedFields
        self.descriptions = descriptions
    }

    /// This schema with each kind's describe read now, for work that makes many forms in a row
    /// (an import): a describe is hundreds of kilobytes of JSON. The TUI reads it per form instead,
    /// so a form opened after another process's sync follows the org's latest rules.
    public func readingDescriptionsOnce() -> RecordSchema {
        var copy = self
        var read: [String: ObjectDescription] = [:]
        for kind in kinds where read[kind.sObjectType] == nil {
            if let description = descriptions?.description(of: kind.sObjectType) { read[kind.sObjectType] = description }
        }
        copy.readDescriptions = read
        return copy
    }

    /// The fields a form edits for `kind`: usersyncs.json's, or built-in ones if it names none.
    public func fieldNames(for kind: RecordKind) -> [String] {
        let configured = syncedFields.fields(forSoup: kind.soupName)
        return configured.isEmpty ? kind.fallbackFields : configured
    }

    /// The lookup fields of `kind`: `<Object>Id` fields whose sObject has a tab here (a contact's
    /// AccountId → the accounts).
    public func lookups(for kind: RecordKind) -> [String: RecordKind] {
        var lookups: [String: RecordKind] = [:]
        for field in fieldNames(for: kind) where field.hasSuffix("Id") && field.count > 2 {
            let object = String(field.dropLast(2))
            if let target = kinds.first(where: { $0.sObjectType.caseInsensitiveCompare(object) == .orderedSame }) { lookups[field] = target }
        }
        return lookups
    }

    /// The describe a form of `kind` follows, or why it follows the built-in rules.
    public func formRules(for kind: RecordKind) -> (description: ObjectDescription?, note: String?) {
        guard let descriptions else { return (nil, nil) }
        if let readDescriptions {
            if let description = readDescriptions[kind.sObjectType] { return (description, nil) }
        } else if let description = descriptions.description(of: kind.sObjectType) {
            return (description, nil)
        }
        return (
            nil,
            descriptions.isSynced(kind.sObjectType)
                ? "Built-in rules: the org's rules for \(kind.plural) arrive with the next sync (s)"
                : "Built-in rules: usersyncs.json has no metadata sync for \(kind.sObjectType)"
        )
    }

    /// A form of `kind` for a new record (`record` nil) or an edit of `record`.
    public func form(kind: RecordKind, purpose: RecordForm.Purpose, title: String, record: LocalRecord?) -> RecordForm {
        let rules = formRules(for: kind)
        return RecordForm(
            kind: kind, purpose: purpose, title: title, fieldNames: fieldNames(for: kind), record: record,
            lookups: lookups(for: kind), description: rules.description, rulesNote: rules.note)
    }
}
