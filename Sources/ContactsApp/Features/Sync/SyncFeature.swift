import Foundation
import MobileSync
import SmartStore

/// `s` and what follows it: the sync started in the background, followed on each tick, its result
/// as a toast; other processes' writes picked up; the status line's facts.
extension AppModel {
    /// How often other processes' writes are read while they keep writing: a sync in another
    /// terminal writes a page every few milliseconds, and a 100k list is not re-read for each.
    static let otherWritersRefreshInterval: TimeInterval = 1

    mutating func startSync() {
        if readOnly {
            toast = Toast(Messages.readOnlyStore, isError: true)
            return
        }
        if offline {
            toast = Toast(messages.offlineSkipped(queued: localChangeCount), isError: true)
            return
        }
        guard let sync, sync.isRunning || sync.checkSession() != .signedOut else {
            toast = Toast(messages.notSignedIn(queued: localChangeCount), isError: true)
            return
        }
        if sync.start() {
            // "Saved locally; s syncs it" and the like are out of date once the sync runs.
            toast = nil
        } else {
            // The running sync (maybe one that started by itself) is the one asked for: its end is said in full.
            sync.claimForUser()
            toast = Toast(messages.syncAlreadyRunning)
        }
    }

    /// Called on every tick of the event loop: follows a running sync's states and picks up a
    /// finished sync. Returns whether the screen changed: another process's writes were picked up,
    /// or a sync ended.
    @discardableResult
    public mutating func tick() -> Bool {
        if sync?.isRunning == true { syncs.refresh(counting: false) }
        guard let result = sync?.takeFinished() else {
            let refreshed = noticeOtherWriters()
            return driveAutomaticSync() || refreshed
        }
        if syncsAutomatically { try? SyncRunLog.noteNextTry(of: sync?.automatic, in: store) }
        // The sync's own writes are not saves to send.
        automaticSyncStamp = store.changeStamp()
        try? refreshAll()
        readDescriptions()
        // What the sync held (a first sync's page caches, the pages it parsed) is freed by now,
        // and the TUI lives on.
        SmartStore.returnFreedMemory()
        if sync?.startedBy != nil {
            if let said = automaticSyncToast(result) { toast = said }
        } else {
            switch result {
            case let .success(summary): toast = messages.syncFinished(summary)
            case let .failure(failure) where failure.connection == .offline:
                toast = Toast(messages.syncOffline(queued: localChangeCount), isError: true)
            case let .failure(failure): toast = Toast(messages.syncFailed(failure.reason), isError: true)
            }
        }
        sayWhatSubscriptionsHold(result)
        // "A sync is running, quit anyway?" has its answer once the sync has ended: the user asked
        // to quit, so it quits, and the sync's outcome is said on the terminal after.
        let quitting = if case let .question(question) = overlay, question.subject == .quit { true } else { false }
        // A subscription asked meanwhile is stored even then; its fetch waits for the next start.
        makeQueuedSubscriptionChanges(fetching: !quitting)
        if quitting {
            overlay = nil
            shouldQuit = true
            farewell = toast?.message
        }
        return true
    }

    /// Shows what another process committed (an import, a sync in another terminal) within a
    /// tick, while browsing; not while a sync of this process writes, which refreshes at its end,
    /// nor under a form or a dialog, which would lose their place. Returns whether it refreshed.
    @discardableResult
    public mutating func noticeOtherWriters() -> Bool {
        let stamp = store.changeStamp()
        let now = clock.now()
        guard stamp != seenChanges, sync?.isRunning != true, [.browsing, .inspecting, .searching].contains(mode),
            now.timeIntervalSince(lastOtherWritersRefresh) >= Self.otherWritersRefreshInterval
        else { return false }
        seenChanges = stamp
        lastOtherWritersRefresh = now
        do {
            try refreshAll()
            readDescriptions()
            return true
        } catch {
            return false
        }
    }

    /// Online / offline as the last request found it, or why there is no sync at all.
    public var connectionText: String {
        if readOnly { return "read-only store" }
        if offline { return "offline (--offline)" }
        guard let sync else { return "not signed in — forceterm login" }
        switch sync.sessionState {
        case .signedOut: return "not signed in — forceterm login"
        case .expired: return "session expired — forceterm login"
        case .signedIn: break
        }
        // What the last run found is out of date while a new one runs.
        if sync.isRunning { return "syncing" }
        if let waiting = automaticSyncConnectionText { return waiting }
        switch sync.connection {
        case .unknown: return "signed in"
        case .online: return "online"
        case .offline: return "offline"
        }
    }

    /// The status line's facts, left to right: connection, pending changes, last sync, API usage;
    /// each with shorter wordings for a narrow terminal.
    public var statusFacts: [StatusFact] {
        var facts = [
            StatusFact(
                connectionText,
                sync.map { $0.sessionState == .signedIn ? [] : [$0.sessionState == .expired ? "session expired" : "not signed in"] }
                    ?? ["not signed in"]),
            localChangeFact,
        ]
        if let last = sync?.isRunning == true ? syncs.lastSuccessfulRunBeforeThisOne : syncs.lastSuccessfulRun {
            let time = SyncText.time(last, timeZone: timeZone)
            // "2025-03-04 10:00:00" → "03-04 10:00" → "03-04".
            let monthDay = String(time.dropFirst(5).prefix(5))
            // While a sync runs its progress shows, so the last one can give way entirely.
            let shortest = sync?.isRunning == true ? ["synced \(monthDay)", ""] : ["synced \(monthDay)"]
            facts.append(StatusFact("last sync \(time)", ["synced \(monthDay) \(time.dropFirst(11).prefix(5))"] + shortest))
        } else {
            facts.append(StatusFact("never synced"))
        }
        if let usage = sync?.apiUsage { facts.append(StatusFact("API \(usage.used)/\(usage.limit)", [""])) }
        if notUTF8 { facts.insert(StatusFact("not UTF-8: export LANG=C.UTF-8", ["LANG=C.UTF-8?"]), at: 0) }
        return facts
    }

    /// "3 local changes"; "3 waiting to send" while automatic syncs cannot send them.
    private var localChangeFact: StatusFact {
        if automaticSyncConnectionText != nil, localChangeCount > 0 {
            return StatusFact("\(localChangeCount) waiting to send", ["\(localChangeCount) pending"])
        }
        return localChangeCount == 1
            ? StatusFact("1 local change", ["1 pending"])
            : StatusFact("\(localChangeCount) local changes", ["\(localChangeCount) pending"])
    }

    /// The status line's facts in their full wording.
    public var statusParts: [String] { statusFacts.map(\.full) }
}
