import ForceJSON
import MobileSync

/// A conflicted record's versions, field by field, for the detail pane: what this laptop holds,
/// what the server held when the conflict was found, and for the fields both sides changed, the
/// value they had before (the base). Built from the record alone, so it works offline.
public struct ConflictComparison: Sendable, Equatable {
    /// One field's value on each side.
    public struct Row: Sendable, Equatable {
        public let field: String
        public let local: String
        public let server: String
        /// The value before either change, for a conflicting field whose base is known.
        public let base: String?
        /// Both sides changed this field to different values: what `c` settles.
        public let conflicting: Bool
        public var differs: Bool { local != server }
    }

    public let rows: [Row]
    /// The server had deleted the record: there is no server version to show.
    public let deletedOnServer: Bool
    /// The record was deleted here and changed on the server.
    public let deletedHere: Bool
    /// A deletion on one side, in words; nil when both sides changed fields.
    public var deletion: String? {
        deletedOnServer ? "changed here, deleted on the server" : deletedHere ? "deleted here, changed on the server" : nil
    }

    /// `nil` when `record` has no conflict. `fields` come first, in order; any other field either
    /// side has follows, so nothing the server sent is hidden.
    public init?(record: LocalRecord, fields: [String]) {
        guard let conflict = SyncConflict(record: record.document, soupName: "") else { return nil }
        let server = conflict.server
        deletedOnServer = conflict.kind == .deletedOnServer
        deletedHere = conflict.kind == .deletedHere
        let conflicting = Dictionary(conflict.fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var names = fields
        var seen = Set(fields)
        for key in record.document.keys where !seen.contains(key) && !Self.isBookkeeping(key) {
            names.append(key)
            seen.insert(key)
        }
        for key in (server ?? [:]).keys where !seen.contains(key) && !Self.isBookkeeping(key) {
            names.append(key)
            seen.insert(key)
        }
        let wholeRecord = conflicting.isEmpty
        rows = names.compactMap { name in
            let local = record.string(name)
            let theirs = server.map { LocalRecord.text($0[name]) } ?? ""
            guard !local.isEmpty || !theirs.isEmpty else { return nil }
            let field = conflicting[name]
            return Row(
                field: name, local: local, server: theirs, base: field?.base.map { LocalRecord.text($0) },
                conflicting: field != nil || (wholeRecord && local != theirs && !Self.isSystemField(name)))
        }
    }

    /// The fields both sides changed (for a whole-record conflict, every field that differs).
    public var conflictingFields: [String] { rows.filter(\.conflicting).map(\.field) }

    /// How many fields differ between the two versions; the org's own dates and ids are not
    /// counted (they always differ once the server changed anything).
    public var differingCount: Int { rows.filter { $0.differs && !Self.isSystemField($0.field) }.count }

    /// Fields the org sets on every write, never the user.
    public static func isSystemField(_ name: String) -> Bool {
        ["Id", "LastModifiedDate", "SystemModstamp", "CreatedDate", "LastModifiedById", "CreatedById"].contains(name)
    }

    /// Keys the store and the sync engine keep in a document, not fields of the record.
    public static func isBookkeeping(_ key: String) -> Bool {
        key == "attributes" || key.hasPrefix("_soup") || key.hasPrefix("__")
    }
}
