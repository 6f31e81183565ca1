import ForceJSON
import Foundation
import SmartStore

/// The syncs of one store: create, run, re-run, stop and restart them, clean ghosts. Different
/// syncs of one manager may run side by side (`forceterm sync` runs its sync downs so), each sync
/// once at a time; across processes and managers one holds the store's syncs at a time (`SyncLock`).
public actor SyncManager {
    public enum State: String, Sendable {
        case acceptingSyncs = "ACCEPTING_SYNCS", stopRequested = "STOP_REQUESTED", stopped = "STOPPED"
    }

    public typealias ProgressCallback = @Sendable (SyncState) -> Void

    public let store: SmartStore
    public let syncs: SyncsSoup
    let remote: any SyncRemote
    /// How long to wait for another process's sync before saying one is running.
    let lockTimeout: Duration
    public var massDeletionGuard: MassDeletionGuard
    /// The pauses before a sync up sends again the records the org refused for a moment
    /// (UNABLE_TO_LOCK_ROW, SERVER_UNAVAILABLE), one retry each.
    public var syncUpRetryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4)]
    /// How long a ghost check that found equal counts may skip comparing every id.
    public var idComparisonInterval: Duration = .seconds(24 * 3600)
    /// Records the last ghost check of each sync found in the server's set but not in the store
    /// (shared with the user since), and stored.
    public private(set) var lastArrivals: [Int64: Int] = [:]
    /// How many requests of one action (composite or collection) a sync up may have in flight at
    /// once: LEAVE_IF_CHANGED sends its updates and deletes 25 to a composite request, so 20 at
    /// once make 500 records a round trip; creates go 200 to a collection request, 20 at once.
    /// Over HTTP/2 they are streams of one connection. These are short requests: an org's limit on
    /// concurrent requests counts only those running 20 s or more. 1 sends them one at a time.
    public var requestConcurrency: Int
    /// The default of `requestConcurrency` (it was 8: a sync up of 500 edits took three round
    /// trips instead of one, 1.0 s instead of 0.4 s at 300 ms).
    public static let defaultRequestConcurrency = 20
    /// A sync down into empty soups that expects at least this many records builds their indexes
    /// once at the end (`SoupBulkLoad`) rather than record by record: about 4 s of 10 for 100k contacts.
    public var bulkLoadMinimum: Int
    public static let defaultBulkLoadMinimum = 10_000
    /// How many pages of a sync down's query are asked for at once, each on a connection of its
    /// own, in pages of 2,000 shared among them (`PageLookahead`). 1, the SDK's way, asks for each
    /// page once the one before it has come (measured the better choice on every emulated link).
    public let pagesInFlight: Int
    public private(set) var state: State = .acceptingSyncs
    private var active: Set<Int64> = []
    /// Tallies of the last sync up run by this manager, by sync id: the answers recorded, also
    /// when it failed or was stopped midway.
    public private(set) var lastSyncUpSummary: [Int64: SyncUpSummary] = [:]
    /// Tallies of the last sync down run by this manager, by sync id: what its committed pages
    /// stored, skipped as unchanged and left for local changes, also when it failed or was stopped.
    public private(set) var lastSyncDownSummary: [Int64: SyncDownSummary] = [:]
    /// The server's `COUNT()` for a sync down's ghost check, asked while the sync down runs (one
    /// round trip fewer on a slow link), by sync id; taken by `cleanResyncGhosts(justSynced:)`.
    private var countsAsked: [Int64: Task<Int?, Never>] = [:]
    /// The store's `SyncLock` while any sync or ghost check of this manager runs, shared by them.
    private var heldLock: SyncLock?
    private var lockHolders = 0

    /// Sets up `syncs_soup` and, when no other process is syncing this store, marks syncs left
    /// RUNNING by a crash as STOPPED (the next reSync resumes them incrementally).
    public init(
        store: SmartStore, remote: any SyncRemote, lockTimeout: Duration = .zero,
        massDeletionGuard: MassDeletionGuard = MassDeletionGuard(),
        requestConcurrency: Int = SyncManager.defaultRequestConcurrency,
        bulkLoadMinimum: Int = SyncManager.defaultBulkLoadMinimum, pagesInFlight: Int = 1
    ) throws {
        self.store = store
        self.remote = remote
        self.lockTimeout = lockTimeout
        self.massDeletionGuard = massDeletionGuard
        self.requestConcurrency = max(1, requestConcurrency)
        self.bulkLoadMinimum = bulkLoadMinimum
        self.pagesInFlight = max(1, pagesInFlight)
        syncs = try Self.recoverAfterCrash(store: store)
    }

    /// How long forceterm's commands wait for the sync lock: long enough for a process that only
    /// looks (`forceterm status`) to let it go, short enough that a real sync elsewhere is said at once.
    public static let briefLockWait: Duration = .milliseconds(500)

    /// Opens `syncs_soup` and, when no other process holds the sync lock, marks syncs left RUNNING
    /// as STOPPED. Returns the ids it stopped (none while another process is syncing).
    @discardableResult
    public static func recoverAfterCrash(store: SmartStore) throws -> SyncsSoup {
        let syncs = try SyncsSoup(store: store)
        if let lock = try SyncLock.tryAcquire(storePath: store.path) {
            try syncs.stopSyncsLeftRunning(now: now())
            withExtendedLifetime(lock) {}
        }
        return syncs
    }

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    // MARK: Creating and running

    public func createSyncDown(_ target: SyncDownTarget, options: SyncOptions, soupName: String, name: String? = nil) throws -> SyncState {
        try syncs.create(SyncState(name: name, target: .down(target), options: options, soupName: soupName))
    }

    public func createSyncUp(_ target: SyncUpTarget, options: SyncOptions, soupName: String, name: String? = nil) throws -> SyncState {
        try syncs.create(SyncState(name: name, target: .up(target), options: options, soupName: soupName))
    }

    public func syncDown(
        _ target: SyncDownTarget, options: SyncOptions, soupName: String, name: String? = nil,
        progress: ProgressCallback? = nil
    ) async throws -> SyncState {
        try checkAcceptingSyncs()
        return try await run(createSyncDown(target, options: options, soupName: soupName, name: name).id, progress: progress)
    }

    public func syncUp(
        _ target: SyncUpTarget, options: SyncOptions, soupName: String, name: String? = nil,
        progress: ProgressCallback? = nil
    ) async throws -> SyncState {
        try checkAcceptingSyncs()
        return try await run(createSyncUp(target, options: options, soupName: soupName, name: name).id, progress: progress)
    }

    /// Runs a stored sync again; incremental for sync downs (from the high-water mark).
    public func reSync(id: Int64, progress: ProgressCallback? = nil) async throws -> SyncState {
        try checkAcceptingSyncs()
        if !active.contains(id) { countsAsked.removeValue(forKey: id)?.cancel() }
        return try await run(id, progress: progress)
    }

    public func reSync(name: String, progress: ProgressCallback? = nil) async throws -> SyncState {
        guard let sync = try syncs.state(name: name) else { throw MobileSyncError.unknownSync(name) }
        return try await reSync(id: sync.id, progress: progress)
    }

    /// Runs a sync down again, as `reSync`, when `cleanResyncGhosts(justSynced: true)` follows: the
    /// server's count that check compares is asked alongside the sync's first page rather than
    /// after its last. (A record deleted on the server while the sync runs is caught by the next
    /// sync's check, as one deleted just after a count asked at the end would be.)
    public func reSyncBeforeGhostCheck(name: String, progress: ProgressCallback? = nil) async throws -> SyncState {
        guard let sync = try syncs.state(name: name) else { throw MobileSyncError.unknownSync(name) }
        try checkAcceptingSyncs()
        guard !active.contains(sync.id) else { throw MobileSyncError.syncRunning("runSync \(sync.id)") }
        countsAsked.removeValue(forKey: sync.id)?.cancel()
        if case let .down(target) = sync.target, let countSoql = target.remoteCountSoql {
            let remote = self.remote
            countsAsked[sync.id] = Task { try? await remote.query(countSoql, batchSize: nil).totalSize }
        }
        do {
            let state = try await run(sync.id, progress: progress)
            // Stopped midway: the check that follows must not trust a count for a store not filled.
            if state.status != .done { countsAsked.removeValue(forKey: sync.id)?.cancel() }
            return state
        } catch {
            countsAsked.removeValue(forKey: sync.id)?.cancel()
            throw error
        }
    }

    public func getSyncStatus(id: Int64) throws -> SyncState? { try syncs.state(id: id) }
    public func getSyncStatus(name: String) throws -> SyncState? { try syncs.state(name: name) }

    // MARK: Stop and restart

    /// Asks running syncs to stop at their next batch or record; they end STOPPED.
    public func stop() {
        state = active.isEmpty ? .stopped : .stopRequested
    }

    /// Accepts syncs again; with `restartStoppedSyncs`, re-runs every STOPPED sync.
    @discardableResult
    public func restart(restartStoppedSyncs: Bool, progress: ProgressCallback? = nil) async throws -> [SyncState] {
        state = .acceptingSyncs
        guard restartStoppedSyncs else { return [] }
        var results: [SyncState] = []
        for sync in try syncs.all() where sync.status == .stopped {
            results.append(try await run(sync.id, progress: progress))
        }
        return results
    }

    func checkAcceptingSyncs() throws {
        guard state == .acceptingSyncs else { throw MobileSyncError.managerStopped(state: state.rawValue) }
    }

    /// Between batches: throws to stop a sync when a stop was requested.
    func checkStillAccepting() throws {
        guard state == .acceptingSyncs else { throw MobileSyncError.stoppedByRequest }
    }

    // MARK: Running one sync

    private func run(_ id: Int64, progress: ProgressCallback?) async throws -> SyncState {
        guard var sync = try syncs.state(id: id) else { throw MobileSyncError.unknownSync(String(id)) }
        guard !active.contains(id) else { throw MobileSyncError.syncRunning("runSync \(id)") }
        active.insert(id)
        defer { finish(id) }
        // A run that fails before it starts has no tallies.
        lastSyncDownSummary[id] = nil
        lastSyncUpSummary[id] = nil
        try await holdStoreLock()
        defer { releaseStoreLock() }
        // Read again under the lock: another process may have run it meanwhile.
        sync = try syncs.state(id: id) ?? sync
        sync.prepareForResync()
        sync.progress = 0
        sync.error = ""
        sync.transition(to: .running, now: Self.now())
        try syncs.save(sync)
        let report: ProgressCallback = { progress?($0) }
        report(sync)
        let check: @Sendable () async throws -> Void = { [weak self] in try await self?.checkStillAccepting() }
        do {
            switch sync.type {
            case .syncDown:
                var summary = SyncDownSummary()
                defer { lastSyncDownSummary[id] = summary }
                sync = try await SyncDownTask(
                    store: store, syncs: syncs, remote: remote, checkAccepting: check, report: report,
                    bulkLoadMinimum: bulkLoadMinimum, pagesInFlight: pagesInFlight
                ).run(sync, summary: &summary)
            case .syncUp:
                var task = SyncUpTask(
                    store: store, syncs: syncs, remote: remote, checkAccepting: check, report: report,
                    requestConcurrency: requestConcurrency)
                task.retryDelays = syncUpRetryDelays
                var summary = SyncUpSummary()
                defer { lastSyncUpSummary[id] = summary }
                sync = try await task.run(sync, summary: &summary)
            }
            sync.progress = 100
            sync.transition(to: .done, now: Self.now())
        } catch MobileSyncError.stoppedByRequest {
            sync = try syncs.state(id: id) ?? sync
            sync.transition(to: .stopped, now: Self.now())
        } catch {
            sync = try syncs.state(id: id) ?? sync
            sync.error = "\(error)"
            sync.subscription?.state = .error
            sync.transition(to: .failed, now: Self.now())
            try syncs.save(sync)
            report(sync)
            throw error
        }
        try syncs.save(sync)
        report(sync)
        return sync
    }

    /// Takes the store's sync lock, or joins this manager's hold on it, polling until `lockTimeout`
    /// while another process or manager has it.
    func holdStoreLock() async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: lockTimeout)
        // Checked again after each wait: a sync of this manager may have taken it meanwhile.
        while heldLock == nil {
            if let lock = try SyncLock.tryAcquire(storePath: store.path) {
                heldLock = lock
                break
            }
            guard clock.now < deadline else { throw MobileSyncError.syncLocked(storePath: store.path) }
            try await Task.sleep(for: .milliseconds(100))
        }
        lockHolders += 1
    }

    func releaseStoreLock() {
        lockHolders -= 1
        if lockHolders == 0 { heldLock = nil }
    }

    private func finish(_ id: Int64) {
        active.remove(id)
        if active.isEmpty, state == .stopRequested { state = .stopped }
    }

    // MARK: Ghosts

    /// Removes the records of a sync down that the server no longer returns; never dirty ones.
    /// Refuses (and removes nothing) when the mass-deletion guard trips, unless `force`.
    /// Returns the number removed. The sync's status is not changed.
    ///
    /// `justSynced`: the sync down completed just before (as `forceterm sync` runs them), so the
    /// store holds every record the server returns; then equal counts on both sides mean no
    /// ghost, and one `COUNT()` replaces fetching every id. (With `reSyncBeforeGhostCheck` the
    /// count is from the sync's start: a record deleted on the server while it ran is caught by
    /// the next check.)
    public func cleanResyncGhosts(id: Int64, force: Bool = false, justSynced: Bool = false) async throws -> Int {
        // Taken by this check whatever happens, so no later one uses it.
        let asked = countsAsked.removeValue(forKey: id)
        defer { asked?.cancel() }
        try checkAcceptingSyncs()
        guard let sync = try syncs.state(id: id) else { throw MobileSyncError.unknownSync(String(id)) }
        guard case let .down(target) = sync.target else {
            throw MobileSyncError.invalidTarget("Cannot run cleanResyncGhosts:\(id): wrong type:\(sync.type.rawValue)")
        }
        guard !active.contains(id) else { throw MobileSyncError.syncRunning("cleanResyncGhosts \(id)") }
        active.insert(id)
        defer { finish(id) }
        try await holdStoreLock()
        defer { releaseStoreLock() }
        let check: @Sendable () async throws -> Void = { [weak self] in try await self?.checkStillAccepting() }
        let task = SyncDownTask(store: store, syncs: syncs, remote: remote, checkAccepting: check, report: { _ in })
        if sync.subscription != nil {
            let (removed, arrived) = try await cleanSubscriptionGhosts(sync, target: target, task: task, force: force, justSynced: justSynced)
            lastArrivals[id] = arrived
            return removed
        }
        if case let .parentChildren(spec) = target.kind {
            return try await cleanTreeGhosts(spec, of: target, syncId: id, task: task, force: force)
        }
        // A metadata or layout target stores one description per run: no ghosts (as in the SDK).
        if target.kind.describesAnObject { return 0 }
        let soups: [(soup: String, idField: String)] =
            switch target.kind {
            case let .briefcase(infos, _): infos.map { ($0.soupName, $0.idFieldName) }
            default: [(sync.soupName, target.idFieldName)]
            }
        var removed = 0
        var arrived = 0
        for (soup, idField) in soups {
            let cleaner = GhostCleaner(soupName: soup, idFieldName: idField, syncId: id)
            // After a complete sync down the store holds all the server returns; when it holds no
            // more than that, there is no ghost, and the ids of the whole set (a page per 2,000
            // records, on every sync) need not cross the link. Only for a query without WHERE:
            // with one, a record can leave the set and another join it unedited (a parent's field
            // changed), the counts stay equal and the ghost would stay. A failed count: compare ids.
            var serverCount: Int?
            if justSynced, let asked {
                serverCount = await asked.value
            } else if justSynced, let countSoql = target.remoteCountSoql {
                serverCount = try? await remote.query(countSoql, batchSize: nil).totalSize
            }
            // Equal counts can hide one record leaving and another joining (a sharing change
            // touches neither), so every id is compared again once `idComparisonInterval` passed.
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let idsDue = sync.idsComparedAt + Int64(idComparisonInterval.components.seconds) * 1000 <= now
            if justSynced, let serverCount, !idsDue, try store.read({ try cleaner.syncedCount(in: $0) }) == serverCount {
                continue
            }
            let localIds = try store.read { try cleaner.cleanLocalIds(in: $0) }
            let remote = try await task.remoteIds(target, state: sync, localIds: localIds)
            if sync.subscription == nil, try store.read({ try SyncMembers.existing(in: $0) }) != nil {
                try store.write { transaction in
                    try cleaner.claim(remote, configHolders: syncs.configHolders(of: soup, in: transaction), in: transaction)
                }
            }
            if case .soql = target.kind {
                let held = try store.read { try Set(cleaner.allIds(in: $0)) }
                arrived += try await task.fetchArrivals(remote.subtracting(held).sorted(), of: target, state: sync)
            }
            let ghosts = GhostCleaner.ghosts(localIds: localIds, remoteIds: remote)
            let total = try store.count(.all(soup))
            try massDeletionGuard.check(deleting: ghosts.count, of: total, soup: soup, force: force)
            removed += try store.write { try cleaner.remove(ghosts, in: $0) }
            if var compared = try syncs.state(id: id) {
                compared.idsComparedAt = now
                try syncs.save(compared)
            }
        }
        lastArrivals[id] = arrived
        return removed
    }

    /// Ghosts of a parent_children sync, as the SDK: parents the server no longer returns, then
    /// children no longer returned under this sync's parents (their parent gone, or moved away).
    /// The guard looks at each soup before anything is removed.
    private func cleanTreeGhosts(_ spec: ParentChildrenSpec, of target: SyncDownTarget, syncId: Int64, task: SyncDownTask, force: Bool) async throws -> Int {
        let parents = GhostCleaner(soupName: spec.parent.soupName, idFieldName: spec.parent.idFieldName, syncId: syncId)
        let children = GhostCleaner(soupName: spec.children.soupName, idFieldName: spec.children.idFieldName, syncId: syncId)
        let parentIdField = spec.children.parentIdFieldName ?? "ParentId"
        let localParents = try store.read { try parents.cleanLocalIds(in: $0) }
        let remote = try await task.remoteTreeIds(target, spec: spec)
        let localChildren = try store.read {
            try children.cleanLocalChildIds(parentIdFieldName: parentIdField, parentIds: Set(localParents).union(remote.parents), in: $0)
        }
        let parentGhosts = GhostCleaner.ghosts(localIds: localParents, remoteIds: remote.parents)
        let childGhosts = GhostCleaner.ghosts(localIds: localChildren, remoteIds: remote.children)
        try massDeletionGuard.check(deleting: parentGhosts.count, of: try store.count(.all(spec.parent.soupName)), soup: spec.parent.soupName, force: force)
        try massDeletionGuard.check(deleting: childGhosts.count, of: try store.count(.all(spec.children.soupName)), soup: spec.children.soupName, force: force)
        return try store.write { transaction in
            try parents.remove(parentGhosts, in: transaction) + children.remove(childGhosts, in: transaction)
        }
    }

    public func cleanResyncGhosts(name: String, force: Bool = false, justSynced: Bool = false) async throws -> Int {
        guard let sync = try syncs.state(name: name) else { throw MobileSyncError.unknownSync(name) }
        return try await cleanResyncGhosts(id: sync.id, force: force, justSynced: justSynced)
    }
}
