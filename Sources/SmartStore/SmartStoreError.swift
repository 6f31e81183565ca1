/// Everything SmartStore refuses, each with a message that names the problem and what to do.
public enum SmartStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case storeNotFound(path: String)
    case notASmartStore(path: String, reason: String)
    case unknownSoup(String)
    case invalidSoupName(String)
    case noIndexSpecs(soup: String)
    case duplicateIndexPath(soup: String, path: String)
    case notIndexed(soup: String, path: String)
    case emptyExternalIdValue(path: String)
    case nonUniqueExternalId(soup: String, path: String, value: String)
    case entryNotFound(soup: String, id: Int64)
    case invalidDocument(String)
    case invalidConfig(String)
    case smartSql(SmartSqlError)
    case whereArgsNotAllowed
    case database(message: String)
    case lockFile(path: String, reason: String)
    /// A write to a store opened read-only (its file or directory is not writable).
    case readOnly(path: String)
    /// An encrypted store opened without its key.
    case encrypted(path: String)
    /// An encrypted store that the key given does not open.
    case wrongKey(path: String)
    /// A binary linked with an SQLite that cannot encrypt (the system's).
    case noEncryption
    /// An unencrypted store another process holds, so it cannot be encrypted now.
    case storeInUse(path: String)
    /// A store key file that cannot be read or written.
    case keyFile(path: String, reason: String)

    public var description: String {
        switch self {
        case let .storeNotFound(path):
            "no store at \(path): sign in and sync first, or pass the right file with --store"
        case let .notASmartStore(path, reason):
            "\(path) is not a forceterm store (\(reason))"
        case let .unknownSoup(name):
            "unknown soup \"\(name)\"; list the soups with: SELECT soupName FROM soup_attrs"
        case let .invalidSoupName(name):
            "invalid soup name \"\(name)\": use letters, digits and underscores"
        case let .noIndexSpecs(soup):
            "No indexSpecs specified for soup \"\(soup)\": a soup needs at least one index"
        case let .duplicateIndexPath(soup, path):
            "soup \"\(soup)\" lists the index path \"\(path)\" twice"
        case let .notIndexed(soup, path):
            "\(soup) does not have an index on \(path); add it to the soup's indexes to use it as an external id"
        case let .emptyExternalIdValue(path):
            "For upsert with external ID path '\(path)', value cannot be empty for any entries."
        case let .nonUniqueExternalId(soup, path, value):
            "There are more than one soup elements where \(path) is \(value) (soup \(soup))"
        case let .entryNotFound(soup, id):
            "soup \"\(soup)\" has no entry with _soupEntryId \(id)"
        case let .invalidDocument(message):
            "invalid document: \(message)"
        case let .invalidConfig(message):
            "invalid store config: \(message)"
        case let .smartSql(error):
            error.description
        case .whereArgsNotAllowed:
            "whereArgs can only be provided for smart queries"
        case let .database(message):
            "database error: \(message)"
        case let .lockFile(path, reason):
            "cannot use the lock file \(path): \(reason); check that its directory is writable"
        case let .readOnly(path):
            "the store \(path) is read-only for you (the file or its directory is not writable): it can be read, not changed; make both writable (chmod u+w) to save changes"
        case let .encrypted(path):
            "the store \(path) is encrypted and no key was given for it: for your own store, forceterm unlock first (or FORCETERM_PASSCODE in scripts); a demo's store needs its key file, \(path).key"
        case let .wrongKey(path):
            "the store \(path) does not open with the key given: it was encrypted with another key (another sign-in, or another demo's key file)"
        case .noEncryption:
            "this program is linked with an SQLite that cannot encrypt (the system's libsqlite3): build it with make, which builds forceterm's own SQLite into .build-sqlite3mc"
        case let .keyFile(path, reason):
            "cannot use the key file \(path): \(reason)"
        case let .storeInUse(path):
            "the store \(path) is open in another program (an older forceterm?) and cannot be encrypted meanwhile: close it and try again; nothing was changed"
        }
    }
}

/// A Smart SQL statement that cannot run. `position` is the 1-based character in the statement as written.
public struct SmartSqlError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case notSelect
        case unknownSoup(String)
        case invalidReference(String)
        case multipleStatements
        /// A `{` whose reference runs into the next `{` (or never ends).
        case unclosedBrace
        case sqlite(String)
    }

    public let kind: Kind
    public let position: Int?

    public init(_ kind: Kind, position: Int? = nil) {
        self.kind = kind
        self.position = position
    }

    public var description: String {
        let at = position.map { " at character \($0)" } ?? ""
        switch kind {
        case .notSelect:
            return "Only SELECT are supported: Smart SQL is read-only; change data through the app or a sync"
        case let .unknownSoup(name):
            return "Unknown soup \(name)\(at)"
        case let .invalidReference(reference):
            return "Invalid soup/path reference {\(reference)}\(at): write {soup}, {soup:path} or {soup:_soup}"
        case .multipleStatements:
            return "Smart SQL takes a single SELECT statement; remove the text after the first ';'\(at)"
        case .unclosedBrace:
            return "The {\(at) is not closed: write {soup}, {soup:path} or {soup:_soup}"
        case let .sqlite(message):
            return "\(message)\(at)"
        }
    }
}
