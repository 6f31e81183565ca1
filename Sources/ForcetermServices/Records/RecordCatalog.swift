import ContactsApp
import ForceJSON
import Foundation
import SmartStore

/// The record soups of an existing store as the config names them (the TUI's tabs), for the
/// commands that print records. Opening never creates or changes the store.
public struct RecordCatalog {
    public let store: SmartStore
    public let kinds: [RecordKind]
    public let schema: RecordSchema

    /// What to do when the store file does not exist yet.
    public enum MissingStore {
        /// Say so: commands that read.
        case refuse
        /// Create it with the config's soups, as the terminal UI does: commands that record changes.
        case create
        /// Work on an empty store in a temporary directory, removed afterwards: a dry run.
        case scratch
    }

    /// Keeps a scratch store's directory until the catalog is gone.
    private let scratch: ScratchDirectory?

    public init(storePath path: String, global: Bool = false, configDirectory: String?, whenMissing: MissingStore = .refuse) throws {
        let configuration = try SyncConfiguration.load(directory: configDirectory, global: global)
        if FileManager.default.fileExists(atPath: path) {
            store = try StoreKeys.open(path, mustExist: true)
            scratch = nil
        } else {
            switch whenMissing {
            case .refuse:
                throw ConfigError(Self.noStore(at: path))
            case .create:
                store = try StoreKeys.open(path)
                try store.setup(from: configuration.store)
                scratch = nil
            case .scratch:
                let directory = try ScratchDirectory()
                // Encrypted with a key that dies with this process: nothing the dry run holds is readable after it.
                store = try SmartStore(path: directory.path + "/store.sqlite", encryption: .encrypted(.random()))
                try store.setup(from: configuration.store)
                scratch = directory
            }
        }
        kinds = RecordKind.tabs(for: configuration.syncs.withSubscriptions(in: store), soups: Set(try store.soupNames()))
        let descriptions = ObjectDescriptions(store: store, soupBySObject: ObjectDescriptions.soups(in: configuration.syncs))
        schema = RecordSchema(kinds: kinds, syncedFields: try SyncedFields(usersyncsJSON: configuration.syncsJSON), descriptions: descriptions)
    }

    /// Why there is nothing to read at `path`, and what to do.
    public static func noStore(at path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if StoreLocation.isSignedOutStore(path, environment: environment) {
            return "there is no store at \(path) yet: nobody is signed in and nothing was saved while signed out (forceterm login, then forceterm sync)"
        }
        return "there is no store at \(path) yet; run forceterm sync to create it"
    }

    /// Where changes recorded in the store at `path` go from here, for the commands' last line:
    /// signed out, they wait in the signed-out store until `login` moves them.
    public static func whereChangesGo(storePath path: String, count: Int, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let them = count == 1 ? "it" : "them"
        if StoreLocation.isSignedOutStore(path, environment: environment) {
            return "nobody is signed in: forceterm login moves \(them) into your own store, then forceterm sync sends \(them)"
        }
        return "\(syncCommand(storePath: path, environment: environment)) sends \(them)"
    }

    /// The command that syncs the store at `path`: `--store` named unless it is the signed-in user's own.
    public static func syncCommand(storePath path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        command("sync", storePath: path, environment: environment)
    }

    /// `forceterm <name>` for the store at `path`, as a hint says it: `--store` named unless it is
    /// the signed-in user's own.
    public static func command(_ name: String, storePath path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        "forceterm \(name)" + StoreKeys.storeOption(for: path, environment: environment)
    }

    /// The kind a user names: its soup (`contacts`) or its plural (`accounts`), any case.
    public func kind(named name: String) throws -> RecordKind {
        let wanted = name.lowercased()
        if let kind = kinds.first(where: { $0.soupName.lowercased() == wanted || $0.plural.lowercased() == wanted }) { return kind }
        if let soup = try store.soupNames().first(where: { $0.lowercased() == wanted }) {
            throw UsageError(
                "\(soup) is a soup of this store, but no sync of the config says which Salesforce object it holds, "
                    + "so there are no records to show; read it with Smart SQL: "
                    + "\(Self.command("query", storePath: store.path)) \"SELECT {\(soup):_soup} FROM {\(soup)}\"")
        }
        let names = kinds.map(\.soupName).joined(separator: ", ")
        throw UsageError("no records called \(name) here; the config's record soups are: \(names.isEmpty ? "none" : names)")
    }

    public func fieldNames(for kind: RecordKind) -> [String] { schema.fieldNames(for: kind) }

    /// The records in the list's order, or those `search` finds (as the TUI's `/` does), a
    /// page at a time so a large soup is never held whole.
    public func forEachRecord(of kind: RecordKind, search: String?, _ body: (LocalRecord) throws -> Void) throws {
        var repository = RecordRepository(store: store, kind: kind)
        if kind.role == .contact { repository.accountsForSearch = kinds.first { $0.role == .account }?.soupName }
        let ids = if let search, !search.isEmpty { try repository.entryIds(matching: search) } else { nil as [Int64]? }
        try repository.forEachRecord(entryIds: ids, body)
    }

    /// The record with this Salesforce id, local id (`local_…`) or entry id, in any record soup.
    public func record(id: String) throws -> (RecordKind, LocalRecord)? {
        for kind in kinds {
            let repository = RecordRepository(store: store, kind: kind)
            if let record = try repository.record(id: id) { return (kind, record) }
        }
        if let entryId = Int64(id) {
            for kind in kinds {
                if let record = try RecordRepository(store: store, kind: kind).record(entryId: entryId) { return (kind, record) }
            }
        }
        return nil
    }

    /// A value as `show` prints it: an account id with the account's name, when the store has it.
    public func display(_ field: String, of record: LocalRecord) -> String {
        let value = record.string(field)
        guard field == "AccountId", !value.isEmpty, let accounts = kinds.first(where: { $0.role == .account }),
            let account = try? RecordRepository(store: store, kind: accounts).record(id: value)
        else { return value }
        return "\(account.string("Name")) (\(value))"
    }

    /// A value on one TSV line: tabs and line breaks become spaces.
    public static func cell(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }
}
