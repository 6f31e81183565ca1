import Foundation
import SmartStore

/// Automatic sync in the TUI: saves here and in other processes go up within seconds, the timer
/// and the link's return start syncs, each on the loop's tick; what it does is on the status line.
/// The syncs are the same as `s` runs (`SyncController`), so one runs at a time and a form's record
/// is rebased on save, never changed under the user.
extension AppModel {
    /// How often a session that was missing is looked for again (a `forceterm login` elsewhere).
    public static let sessionRecheckInterval: TimeInterval = 5

    /// Whether syncs start by themselves here.
    public var syncsAutomatically: Bool { sync?.automatic != nil && !readOnly && !offline }

    /// Notes a save made by `perform` (whose store stamp moved): it goes up within seconds.
    mutating func noteOwnWrite(since before: SmartStore.ChangeStamp) {
        guard store.changeStamp() != before else { return }
        if localChangeCount > 0 { sync?.noteLocalChange() }
    }

    /// Called on each tick: notices other processes' saves, tries the link while offline, and
    /// starts the sync that is due. Returns whether one started.
    mutating func driveAutomaticSync() -> Bool {
        guard syncsAutomatically, let sync, !sync.isRunning else { return false }
        let stamp = store.changeStamp()
        if stamp != automaticSyncStamp {
            automaticSyncStamp = stamp
            // Another process's write: a save to send when it left local changes.
            if let waiting = try? lists.reduce(0, { $0 + (try $1.repository.localChangeCount()) }), waiting > 0 { sync.noteLocalChange() }
        }
        sync.probeIfDue()
        // Nobody signed in: nothing to try until someone does (looked for every few seconds).
        if sync.sessionState == .signedOut {
            let now = clock.now()
            guard now.timeIntervalSince(lastSessionCheck) >= Self.sessionRecheckInterval else { return false }
            lastSessionCheck = now
            guard sync.resumeIfSignedIn() else { return false }
        }
        return sync.startIfDue() != nil
    }

    /// The toast for a sync that started by itself: what needs the user, or news; nothing when
    /// nothing happened (the status line says when it synced) or when it failed as the last one did.
    func automaticSyncToast(_ result: Result<SyncSummary, SyncFailure>) -> Toast? {
        switch result {
        case let .success(summary):
            if summary.conflicts > 0 || summary.recordsWithErrors > 0 || !summary.failedSyncs.isEmpty || !summary.hiddenFields.isEmpty {
                return messages.syncFinished(summary)
            }
            guard summary.sent + summary.receivedChanges + summary.removedOnServer > 0 else { return nil }
            return Toast("Synced: " + summary.exchangedBriefly)
        case let .failure(failure):
            // Offline is the status line's to say; a failure is said once, not at each retry.
            guard failure.outcome != .offline, (sync?.automatic?.failures ?? 0) <= 1 else { return nil }
            return Toast(messages.syncFailed(failure.reason), isError: true)
        }
    }

    /// The status line's words for the automatic syncs while they wait: "offline since 10:42,
    /// next try 10:44"; nil when nothing waits.
    var automaticSyncConnectionText: String? {
        guard syncsAutomatically, let sync, !sync.isRunning, let schedule = sync.automatic, schedule.failures > 0 else { return nil }
        let next = schedule.nextTry.map { ", next try " + Self.clockTime($0, timeZone: timeZone, now: clock.now()) } ?? ""
        if let since = schedule.offlineSince {
            return "offline since " + Self.clockTime(since, timeZone: timeZone, now: nil) + next
        }
        return "sync failed" + next
    }

    /// When the outbox's `entry` is tried next: "needs you", a retry's time, "now" while a sync
    /// runs, "within seconds" with automatic sync on, else the sync key.
    public func nextTry(of entry: OutboxEntry) -> String {
        if entry.needsYou != nil { return "needs you" }
        if sync?.isRunning == true { return "now" }
        guard syncsAutomatically, let schedule = sync?.automatic else { return "on \(messages.key(.sync))" }
        if schedule.waitsForUser { return "after sign-in" }
        if let next = schedule.retryAfterFailures { return Self.clockTime(next, timeZone: timeZone, now: clock.now()) }
        return "within seconds"
    }

    /// "10:42" for a time, "10:42:05" when it is under a minute from `now`.
    static func clockTime(_ date: Date, timeZone: TimeZone, now: Date?) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        let hourMinute = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        guard let now, abs(date.timeIntervalSince(now)) < 60 else { return hourMinute }
        return hourMinute + String(format: ":%02d", parts.second ?? 0)
    }
}
