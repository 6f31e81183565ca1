import ForceJSON
import SmartStore

/// The sync states of one store, kept in `syncs_soup` with the SDK's json1 indexes on name, type
/// and status. Every call is one store transaction; the `in:` forms join a caller's transaction.
public struct SyncsSoup: Sendable {
    public static let indexSpecs: [IndexSpec] = [
        IndexSpec(path: "name", type: .json1),
        IndexSpec(path: "type", type: .json1),
        IndexSpec(path: "status", type: .json1),
    ]

    public let store: SmartStore

    /// Opens the soup, creating it with its indexes the first time.
    public init(store: SmartStore) throws {
        self.store = store
        try store.registerSoup(SyncState.soupName, indexSpecs: Self.indexSpecs)
    }

    /// Saves a new sync; refuses a name that is already taken.
    public func create(_ state: SyncState) throws -> SyncState {
        try store.write { try create(state, in: $0) }
    }

    public func create(_ state: SyncState, in transaction: StoreTransaction) throws -> SyncState {
        if let name = state.name, try lookupId(name: name, in: transaction) != nil {
            throw MobileSyncError.duplicateSyncName(type: state.type, name: name)
        }
        var fresh = state
        fresh.id = 0
        let stored = try transaction.create([fresh.json], in: SyncState.soupName)[0]
        return try SyncState(json: stored)
    }

    /// Rewrites the whole document, as the SDK's `save`.
    public func save(_ state: SyncState) throws {
        try store.write { try save(state, in: $0) }
    }

    public func save(_ state: SyncState, in transaction: StoreTransaction) throws {
        guard try transaction.update(state.json, id: state.id, in: SyncState.soupName) != nil else {
            throw MobileSyncError.store("Failed to save sync state: sync \(state.id) no longer exists")
        }
    }

    /// The sync with this id; `nil` for an unknown id.
    public func state(id: Int64) throws -> SyncState? {
        try store.read { try state(id: id, in: $0) }
    }

    public func state(id: Int64, in transaction: StoreTransaction) throws -> SyncState? {
        guard let document = try transaction.retrieve([id], from: SyncState.soupName).first else { return nil }
        return try SyncState(json: document)
    }

    public func state(name: String) throws -> SyncState? {
        try store.read { transaction in
            guard let id = try lookupId(name: name, in: transaction) else { return nil }
            return try state(id: id, in: transaction)
        }
    }

    public func hasSync(name: String) throws -> Bool { try state(name: name) != nil }

    public func lookupId(name: String, in transaction: StoreTransaction) throws -> Int64? {
        try transaction.lookupSoupEntryId(soup: SyncState.soupName, path: "name", value: .string(name))
    }

    /// Every sync, oldest first.
    public func all() throws -> [SyncState] {
        try store.read { try all(in: $0) }
    }

    /// Every sync as it stands: one left RUNNING by a process that is gone (quit or killed
    /// mid-sync) shows STOPPED, as the next sync (and the SDK's SyncManager) will mark it; one
    /// running elsewhere stays RUNNING. Nothing is written: whether a sync runs is asked of the
    /// sync lock, taken and let go at once (a sync that starts meanwhile waits for it).
    public func allAsTheyStand() throws -> [SyncState] {
        var syncs = try all()
        guard syncs.contains(where: { $0.status == .running }) else { return syncs }
        let nobodySyncs = withExtendedLifetime(try? SyncLock.tryAcquire(storePath: store.path)) { $0 != nil }
        guard nobodySyncs else { return syncs }
        for index in syncs.indices where syncs[index].status == .running {
            syncs[index].transition(to: .stopped, now: syncs[index].endTime)
        }
        return syncs
    }

    public func all(in transaction: StoreTransaction) throws -> [SyncState] {
        let spec = QuerySpec.all(SyncState.soupName, orderPath: SmartStore.soupEntryId, pageSize: 500)
        return try transaction.everyPage(of: spec).compactMap(\.objectValue).map { try SyncState(json: $0) }
    }

    public func delete(id: Int64) throws {
        try store.delete([id], from: SyncState.soupName)
    }

    public func delete(name: String) throws {
        if let state = try state(name: name) { try delete(id: state.id) }
    }

    /// Marks every RUNNING sync STOPPED: a process that died mid-sync left it so. Returns their ids.
    @discardableResult
    public func stopSyncsLeftRunning(now: Int64) throws -> [Int64] {
        try store.write { transaction in
            var stopped: [Int64] = []
            for var state in try all(in: transaction) where state.status == .running {
                state.transition(to: .stopped, now: now)
                try save(state, in: transaction)
                stopped.append(state.id)
            }
            return stopped
        }
    }
}
