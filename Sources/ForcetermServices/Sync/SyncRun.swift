import ContactsApp
import ForceAPI
import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// One `forceterm sync`: which named syncs run, in which order, and what to tell the user. The
/// sync ups run side by side where their order cannot matter (`SyncUpWaves`: a later one may refer
/// to records an earlier one creates), then the sync downs side by side. A failure of the whole exchange (offline, session, limits) ends
/// the run once the syncs running have ended, except that a sync up whose link lost an answer is
/// run once more first. A failure of
/// one sync's own definition (a field or object the org lacks, a soup the store lacks) fails that
/// sync alone and the others run. A tripped mass-deletion guard only skips that sync's ghost
/// cleaning and is reported as a failure.
public struct SyncRun: Sendable {
    public let entries: [SyncsConfig.Entry]
    public let up: Bool
    public let down: Bool
    public let forceDelete: Bool
    /// Named syncs of the file whose targets forceterm does not implement: each reported failed.
    public var unsupported: [SyncsConfig.Unsupported] = []
    /// Hears why a sync up runs a second time (`forceterm sync` says it on stderr).
    public var onRerun: @Sendable (String) -> Void = { _ in }

    public init(entries: [SyncsConfig.Entry], up: Bool, down: Bool, forceDelete: Bool, unsupported: [SyncsConfig.Unsupported] = []) {
        self.entries = entries
        self.up = up
        self.down = down
        self.forceDelete = forceDelete
        self.unsupported = unsupported
    }

    /// The named syncs in the order they are listed: the describes, every sync up, then the
    /// other sync downs (`run` takes the describes first only when there is anything to send).
    public var order: [String] {
        let describing = up && down ? entries.filter { $0.type == .syncDown && $0.describesAnObject } : []
        let first = Set(describing.map(\.name))
        return describing.map(\.name) + (up ? entries.filter { $0.type == .syncUp } : []).map(\.name)
            + (down ? entries.filter { $0.type == .syncDown && !first.contains($0.name) } : []).map(\.name)
    }

    /// `progress` hears every sync state change; by default it prints a line to stderr.
    public func run(
        manager: SyncManager, store: SmartStore,
        progress: @escaping SyncManager.ProgressCallback = SyncRun.printProgress
    ) async throws -> SyncRunReport {
        var report = SyncRunReport()
        for sync in unsupported where (sync.type == .syncUp && up) || (sync.type == .syncDown && down) {
            report.failedSyncs.append((sync.name, sync.reason))
        }
        // A try at sending, noted when there was something to send: the outbox counts a change's tries from them.
        let sending = up ? try Self.unsentCount(entries, in: store) > 0 : false
        // The describes first when there is anything to send: the sync ups then leave out the
        // fields the org does not let this user write (a conditional request each, one round trip
        // side by side: a 304 when nothing changed). With nothing to send they go beside the
        // other sync downs, a round trip fewer; a field newly hidden meanwhile is left out of the
        // query when the org refuses it (QueryFetches.askLeavingOutHidden).
        let describing = sending && down ? entries.filter { $0.type == .syncDown && $0.describesAnObject } : []
        var describedFirst: [DownOutcome] = []
        if !describing.isEmpty {
            describedFirst = await Self.sideBySide(describing) { entry in
                await Self.runDown(entry, manager: manager, forceDelete: forceDelete, progress: progress)
            }
        }
        if up {
            let started = Int64(Date().timeIntervalSince1970 * 1000)
            // Side by side where the order cannot matter (SyncUpWaves), else one after another.
            for wave in try SyncUpWaves.plan(entries.filter { $0.type == .syncUp }, store: store) {
                let outcomes = await Self.sideBySide(wave) { entry in await runUp(entry, manager: manager, progress: progress) }
                var stop: Stop?
                for outcome in outcomes {
                    report.add(outcome.summary)
                    Self.sort(outcome.failure, of: outcome.entry.name, into: &report, stop: &stop)
                }
                if let stop {
                    if sending { try SyncRunLog.recordSendAttempt(SendAttempt(startedAt: started, error: "\(stop.error)".oneLine), in: store) }
                    try report.stop(stop.message, after: stop.error, entries: entries, store: store)
                    return report
                }
            }
            if sending { try SyncRunLog.recordSendAttempt(SendAttempt(startedAt: started, error: nil), in: store) }
        }
        if down {
            // The sync downs write their own records and need nothing of one another: run side by
            // side, their round trips overlap (a quiet sync on a 3 s satellite link waited out
            // four in a row). What each did is then taken in the file's order.
            let described = Set(describing.map(\.name))
            let downs = entries.filter { $0.type == .syncDown && !described.contains($0.name) }
            let later = await Self.sideBySide(downs) { entry in
                await Self.runDown(entry, manager: manager, forceDelete: forceDelete, progress: progress)
            }
            let byName = Dictionary((describedFirst + later).map { ($0.entry.name, $0) }, uniquingKeysWith: { first, _ in first })
            let outcomes = entries.filter { $0.type == .syncDown }.compactMap { byName[$0.name] }
            var stop: Stop?
            for outcome in outcomes {
                let entry = outcome.entry
                if let summary = outcome.summary { report.add(summary, of: entry.name, countsRecords: !entry.describesAnObject) }
                report.ghostsRemoved += outcome.ghostsRemoved
                report.arrived += outcome.arrived
                Self.sort(outcome.failure, of: entry.name, into: &report, stop: &stop)
                if let guarded = outcome.massDeletion {
                    // The sync itself is done; its state carries the guard's message for `status`.
                    let syncs = try SyncsSoup(store: store)
                    if var state = try syncs.state(name: entry.name) {
                        state.error = "\(guarded)"
                        try syncs.save(state)
                    }
                    report.failure = report.failure ?? "\(entry.name): \(guarded)"
                }
            }
            // Records no sync holds any more whose change this run sent leave now.
            report.leftAfterSending = try await manager.sweepLeavingRecords()
            report.hiddenFields = try SyncRunLog.noteHiddenFields(
                report.syncDowns.filter { !$0.summary.leftOutFields.isEmpty }
                    .map { ($0.name, $0.summary.leftOutFields) }, syncedDowns: report.syncDowns.map(\.name), in: store)
            if let stop {
                try report.stop(stop.message, after: stop.error, entries: entries, store: store)
                return report
            }
        }
        try report.countOpenIssues(entries: entries, store: store)
        if report.failure == nil {
            try SyncRunLog.recordCompleted(at: Int64(Date().timeIntervalSince1970 * 1000), in: store)
        }
        return report
    }

    /// Records with local changes in the soups the sync ups send.
    static func unsentCount(_ entries: [SyncsConfig.Entry], in store: SmartStore) throws -> Int {
        var count = 0
        for soup in Set(entries.filter { $0.type == .syncUp }.map(\.soupName)) where try store.hasSoup(soup) {
            count += try store.count(LocalChanges.flagged(LocalField.local, soup: soup, in: store))
        }
        return count
    }

    /// The first failure that stops the run: what to say, and why.
    typealias Stop = (message: String, error: any Error)

    /// Runs `body` for every entry at once; the outcomes in the entries' order.
    private static func sideBySide<Outcome: Sendable>(
        _ entries: [SyncsConfig.Entry],
        _ body: @escaping @Sendable (SyncsConfig.Entry) async -> Outcome
    ) async -> [Outcome] {
        await withTaskGroup(of: (Int, Outcome).self) { group in
            for (position, entry) in entries.enumerated() { group.addTask { (position, await body(entry)) } }
            var outcomes: [(Int, Outcome)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// A sync's failure, if any: its own (listed; the others run on) or the run's. The first of
    /// the run's is said; what every one says of the connection counts (one offline, another's
    /// session expired: the TUI shows both).
    private static func sort(_ failure: (any Error)?, of name: String, into report: inout SyncRunReport, stop: inout Stop?) {
        guard let failure else { return }
        if failsAlone(failure) {
            report.failedSyncs.append((name, "\(failure)"))
        } else {
            report.noteConnection(after: failure)
            if stop == nil { stop = (failureMessage(name, failure), failure) }
        }
    }

    /// What one sync up did over its runs.
    struct UpOutcome: Sendable {
        let entry: SyncsConfig.Entry
        var summary = SyncUpSummary()
        var failure: (any Error)?
    }

    /// One sync up, run once more when the link lost an answer after carrying others, or after
    /// its first request had left. The engine journals what it sends, so the rerun checks the
    /// server's copies of those records before anything is sent again. A link that refused the
    /// first connection is plainly down: said at once.
    private func runUp(
        _ entry: SyncsConfig.Entry, manager: SyncManager,
        progress: @escaping SyncManager.ProgressCallback
    ) async -> UpOutcome {
        var failure: (any Error)?
        var summaries: [SyncUpSummary] = []
        var lastStart: Int64?
        repeat {
            failure = nil
            do {
                _ = try await manager.reSync(name: entry.name, progress: progress)
            } catch {
                failure = error
            }
            // What the recorded answers say, also when the sync stopped midway; a rerun
            // refused before it started (a stop) left the first run's tallies there.
            do {
                if let state = try await manager.getSyncStatus(name: entry.name), state.startTime != lastStart,
                    let summary = await manager.lastSyncUpSummary[state.id]
                {
                    summaries.append(summary)
                    lastStart = state.startTime
                }
            } catch {
                failure = failure ?? error
            }
            guard let failure, summaries.count == 1, Self.isLinkFailure(failure),
                summaries[0].sent > 0 || Self.requestMayHaveArrived(failure)
            else { break }
            onRerun("\(entry.name): the link lost an answer; running it once more, first checking what reached the server")
        } while true
        return UpOutcome(entry: entry, summary: Self.combined(summaries), failure: failure)
    }

    /// What one sync down and its ghost check did.
    struct DownOutcome: Sendable {
        let entry: SyncsConfig.Entry
        /// What its committed pages hold, also when it stopped midway.
        var summary: SyncDownSummary?
        var failure: (any Error)?
        var ghostsRemoved = 0
        /// Records the ghost check found on the server and not here (shared with the user since).
        var arrived = 0
        /// The mass-deletion guard kept its ghosts: the sync itself is done.
        var massDeletion: MobileSyncError?
    }

    private static func runDown(
        _ entry: SyncsConfig.Entry, manager: SyncManager, forceDelete: Bool,
        progress: @escaping SyncManager.ProgressCallback
    ) async -> DownOutcome {
        var outcome = DownOutcome(entry: entry)
        do {
            _ = try await manager.reSyncBeforeGhostCheck(name: entry.name, progress: progress)
        } catch {
            outcome.failure = error
        }
        if let id = try? await manager.getSyncStatus(name: entry.name)?.id {
            outcome.summary = await manager.lastSyncDownSummary[id]
        }
        guard outcome.failure == nil else { return outcome }
        do {
            outcome.ghostsRemoved = try await manager.cleanResyncGhosts(name: entry.name, force: forceDelete, justSynced: true)
            if let id = try? await manager.getSyncStatus(name: entry.name)?.id { outcome.arrived = await manager.lastArrivals[id] ?? 0 }
        } catch let error as MobileSyncError {
            if case .massDeletion = error { outcome.massDeletion = error } else { outcome.failure = error }
        } catch {
            outcome.failure = error
        }
        return outcome
    }

    /// `forceterm sync`'s progress lines on stderr.
    public static let printProgress: SyncManager.ProgressCallback = { state in
        let total = state.totalSize >= 0 ? " of \(state.totalSize)" : ""
        StandardStreams.writeError("\(state.name ?? String(state.id)): \(state.status.rawValue.lowercased()) \(state.progress)%\(total)\n")
    }

    /// Whether `error` concerns one sync's own definition, so the other syncs can still run: the org
    /// refused its query or request as such (a 4xx other than the session and the API limit), or
    /// its target or soup cannot work here. Anything about the connection, the session, the limits
    /// or the store as a whole stops the run.
    public static func failsAlone(_ error: any Error) -> Bool {
        if let remote = error as? SyncRemoteError { return failsAlone(MobileSyncError.remote(remote)) }
        guard let error = error as? MobileSyncError else { return false }
        switch error {
        case let .remote(.server(status, _, _)): return (400..<500).contains(status) && status != 401
        case .invalidTarget, .soupMissingIndex, .noFieldsSpecified, .unknownSync: return true
        case let .store(message): return message.contains("unknown soup")
        default: return false
        }
    }

    /// One sync up's tallies over its runs: a record the org refused in the first run is sent
    /// again by the rerun and counted there, so the first run's refusals are left out.
    public static func combined(_ runs: [SyncUpSummary]) -> SyncUpSummary {
        guard var total = runs.first else { return SyncUpSummary() }
        for later in runs.dropFirst() {
            total.sent += later.sent - total.errors
            total.errors = later.errors
            total.created += later.created
            total.updated += later.updated
            total.deleted += later.deleted
            total.removedLocally += later.removedLocally
            total.conflicts += later.conflicts
            total.recreated += later.recreated
            total.mergedFromServer += later.mergedFromServer
            total.confirmedAfterLostAnswer += later.confirmedAfterLostAnswer
        }
        return total
    }

    /// Whether a link failure came after a request left, so the server may have applied it.
    static func requestMayHaveArrived(_ error: any Error) -> Bool {
        switch error {
        case let SyncRemoteError.offline(_, arrived), let MobileSyncError.remote(.offline(_, arrived)): arrived
        default: false
        }
    }

    /// Whether `error` is the network's (no answer, a stall, a broken connection), not the org's.
    public static func isLinkFailure(_ error: any Error) -> Bool {
        switch error {
        case SyncRemoteError.offline, MobileSyncError.remote(.offline): true
        default: false
        }
    }

    /// One line: which sync stopped, why, and that nothing local was lost.
    public static func failureMessage(_ name: String, _ error: any Error) -> String {
        if case MobileSyncError.syncLocked = error {
            // Not this sync's failure, nor one its name or the store's path helps with.
            return "another sync of this store is running (forceterm sync, or forceterm in another terminal); "
                + "sync again once it ends. Local changes are kept in the store."
        }
        let reason = "\(error)"
        // Said once: an offline error already ends in "check the network and sync again".
        return "\(name) stopped: \(reason). Local changes are kept in the store"
            + (reason.contains("sync again") ? "." : "; run forceterm sync again.")
    }
}
