import ContactsApp
import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// Records created while nobody was signed in, moved into the store of the user who signs in.
/// Signed out, the TUI, `create` and `import` write to `$XDG_DATA_HOME/forceterm/store.sqlite`;
/// once someone signs in, every command uses that user's own store, so those records would wait
/// where no sync ever looks. `login` moves them, ids and all (a contact created under an account
/// created here stays linked to it), so the next sync sends them.
public struct SignedOutChanges {
    /// Moved, per soup; and the local changes left behind because they change records of an org
    /// (edits or deletes made in a store that was synced as nobody), which belong to no one user.
    public struct Outcome: Equatable {
        public var moved: [(soup: String, count: Int)] = []
        public var left = 0

        public var movedCount: Int { moved.reduce(0) { $0 + $1.count } }

        public static func == (left: Outcome, right: Outcome) -> Bool {
            left.moved.map(\.soup) == right.moved.map(\.soup) && left.moved.map(\.count) == right.moved.map(\.count) && left.left == right.left
        }
    }

    /// Moves the records created locally in the store at `source` into the one at `target`
    /// (created with `storeConfig`'s soups if need be), then removes them from `source`. A record
    /// whose local id `target` already holds is not copied again, so a move cut short by a crash
    /// is finished by the next sign-in without duplicates.
    public static func move(from source: String, to target: String, storeConfig: StoreConfig) throws -> Outcome {
        var outcome = Outcome()
        guard source != target, FileManager.default.fileExists(atPath: source) else { return outcome }
        let from = try StoreKeys.open(source, mustExist: true)
        func scan() throws -> (created: [(soup: String, records: [JSONObject])], left: Int) {
            var created: [(soup: String, records: [JSONObject])] = []
            var left = 0
            for soup in try from.soupNames().sorted() where !LocalChanges.bookkeepingSoups.contains(soup) {
                let changed = try from.query(LocalChanges.flagged(LocalField.local, soup: soup, in: from, pageSize: Self.all))
                    .compactMap { $0.objectValue ?? $0.arrayValue?.first?.objectValue }
                let new = changed.filter { $0[LocalField.locallyCreated]?.boolValue == true }
                left += changed.count - new.count
                if !new.isEmpty { created.append((soup, new)) }
            }
            return (created, left)
        }
        let before = try scan()
        guard !before.created.isEmpty else { return Outcome(left: before.left) }
        if from.isReadOnly { throw ConfigError("\(source) holds records created while nobody was signed in, but it is read-only, so they cannot be moved into your store") }
        // A TUI still open on the signed-out store syncs it with whoever signs in: while it does,
        // moving its records could send them twice (once from each store), so they wait for the
        // next sign-in; while this holds the lock, that sync waits. Read again under the lock.
        guard let lock = try SyncLock.tryAcquire(storePath: source) else {
            throw ConfigError("a sync of \(source) is running (a forceterm open since before you signed in); sign in again once it ends")
        }
        defer { withExtendedLifetime(lock) {} }
        let (created, left) = try scan()
        outcome.left = left
        let to = try StoreKeys.open(target)
        try to.setup(from: storeConfig)
        try to.write { transaction in
            for (soup, records) in created {
                if try !transaction.hasSoup(soup) {
                    try transaction.registerSoup(soup, indexSpecs: try from.read { try $0.indexSpecs(soup: soup) })
                }
                let held =
                    try transaction.hasIndex(soup: soup, path: "Id")
                    ? Set(
                        try transaction.entries(whereIndexed: "Id", isOneOf: records.compactMap { $0["Id"]?.stringValue }, in: soup)
                            .compactMap { $0["Id"]?.stringValue })
                    : []
                let copies: [JSONObject] = records.compactMap { record in
                    if let id = record["Id"]?.stringValue, held.contains(id) { return nil }
                    var copy = record
                    for key in [SmartStore.soupEntryId, SmartStore.soupLastModifiedDate, SmartStore.soupCreatedDate] { copy.removeValue(forKey: key) }
                    return copy
                }
                _ = try transaction.create(copies, in: soup)
                outcome.moved.append((soup, records.count))
            }
        }
        try from.write { transaction in
            for (soup, records) in created {
                try transaction.delete(records.compactMap { $0[SmartStore.soupEntryId]?.int64Value }, from: soup)
            }
        }
        return outcome
    }

    /// A page size no signed-out store's changes reach: they are read in one page.
    private static let all = 10_000_000
}
