import ForceJSON

/// A conflicted record's two versions, field by field, for the detail pane: what this laptop holds
/// and what the server held when sync up was refused. Built from the record alone, so it works
/// offline.
public struct ConflictComparison: Sendable, Equatable {
    /// One field's value on each side.
    public struct Row: Sendable, Equatable {
        public let field: String
        public let local: String
        public let server: String
        public var differs: Bool { local != server }
    }

    public let rows: [Row]
    /// The server had deleted the record: there is no server version to show.
    public let deletedOnServer: Bool

    /// `nil` when `record` has no conflict. `fields` come first, in order; any other field either
    /// side has follows, so nothing the server sent is hidden.
    public init?(record: LocalRecord, fields: [String]) {
        guard record.hasConflict else { return nil }
        let server = record.document[LocalFlag.conflict]?["server"]?.objectValue
        deletedOnServer = server == nil
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
        rows = names.compactMap { name in
            let local = record.string(name)
            let theirs = server.map { LocalRecord.text($0[name]) } ?? ""
            return local.isEmpty && theirs.isEmpty ? nil : Row(field: name, local: local, server: theirs)
        }
    }

    /// How many fields differ between the two versions.
    public var differingCount: Int { rows.filter(\.differs).count }

    /// Keys the store and the sync engine keep in a document, not fields of the record.
    public static func isBookkeeping(_ key: String) -> Bool {
        key == "attributes" || key.hasPrefix("_soup") || key.hasPrefix("__")
    }
}

/// How the user settles a conflict.
public enum ConflictChoice: Sendable, Hashable {
    /// Keep mine: the local values are written on the next sync, whatever the server holds then.
    case keepMine
    /// Take the server's: the local changes are dropped and the server's values kept.
    case takeServer
}
