import Foundation

/// When syncs run by themselves (`[sync]` in config.toml): on by default in the TUI and in
/// `forceterm sync --watch`; off, only `s` (or `forceterm sync`) syncs.
public struct AutoSyncSettings: Sendable, Equatable {
    public var enabled = true
    /// Seconds between syncs when nothing else started one: the server's changes come down at
    /// least this often where it cannot announce them ([sync] interval).
    public var interval: TimeInterval = 300
    /// What `[sync] interval` accepts: a few seconds for a demo, a day at most.
    public static let intervalRange: ClosedRange<Int> = 5...86_400
    /// Quiet seconds after a save before it is sent, so several quick saves go in one sync…
    public var settle: TimeInterval = 0.75
    /// …but never later than this after the first of them.
    public var longestWait: TimeInterval = 2
    /// After a failed sync: the first wait, doubled at each failure after it up to the longest,
    /// each one shifted by up to ±`jitter` of itself so that a room of laptops does not come back at once.
    public var firstRetry: TimeInterval = 2
    public var longestRetry: TimeInterval = 300
    public var jitter = 0.2
    /// While offline: how often the link is tried (a TCP connection, no request), so its return
    /// starts a sync at once instead of at the end of a long wait.
    public var probeInterval: TimeInterval = 3
    /// Whether the org's change events are listened to ([sync] listen): a long poll held open,
    /// a few hundred bytes every two minutes while idle.
    public var serverPush = true

    public init(enabled: Bool = true, interval: TimeInterval = 300) {
        self.enabled = enabled
        self.interval = interval
    }
}

/// What one sync brings down: every sync down, or only those filling the soups of the objects
/// whose changes the server announced (an event triggers the incremental sync down of its soup).
/// Every sync up runs either way; one with nothing to send asks the org nothing.
public enum SyncScope: Sendable, Equatable {
    case everything
    /// The objects announced, by API name (`Contact`).
    case announced(Set<String>)

    /// Both scopes' objects: everything when either is.
    func merged(with other: SyncScope) -> SyncScope {
        guard case let .announced(mine) = self, case let .announced(theirs) = other else { return .everything }
        return .announced(mine.union(theirs))
    }
}

/// The automatic syncs' clock: what is waiting (a save to send, the server's news, a retry), when
/// the next sync is due and why, and how long to wait after failures. A value with no clock of its
/// own: the caller says what time it is, so it is tested without waiting.
///
/// One sync at a time is the controller's and the store's lock's job; this only says when the
/// next one is due, and never while one runs.
public struct AutoSyncSchedule: Sendable, Equatable {
    /// Why a sync started by itself.
    public enum Reason: String, Sendable, Equatable {
        /// The TUI (or the watch) opened.
        case opened
        /// A save here or in another process waits to be sent.
        case localChanges
        /// The server announced a change.
        case serverChanges
        /// The interval passed with nothing else starting a sync.
        case timer
        /// The wait after a failure is over.
        case retry
        /// The link came back while offline.
        case linkBack
    }

    /// How a sync ended, as far as the schedule cares.
    public enum Outcome: Sendable, Equatable {
        case synced
        /// Its requests did not reach the org: probe the link, retry with backoff.
        case offline
        /// The org answered with a failure (a 503 storm, a lock held elsewhere): retry with backoff.
        case failed
        /// Only the user can fix it (nobody signed in, the session expired, the store locked):
        /// tried again only after the longest wait, or at once on `resume` (a sign-in seen).
        case needsUser
    }

    public let settings: AutoSyncSettings
    /// When the running sync started; nil when none runs.
    public private(set) var runningSince: Date?
    /// The first and the last save noted since the last sync started.
    public private(set) var firstUnsent: Date?
    public private(set) var lastUnsent: Date?
    /// What the server announced since the last sync started; nil: nothing.
    public private(set) var announced: SyncScope?
    public var serverChanged: Bool { announced != nil }
    private var opening = true
    /// When the last sync ended (or the schedule began).
    public private(set) var lastEnded: Date
    /// When the last sync of everything ended (or the schedule began): the timer counts from it,
    /// so announcements for one object never hold back the objects nobody announces.
    public private(set) var lastEndedEverything: Date
    /// What the running sync brings down.
    public private(set) var runningScope: SyncScope = .everything
    /// Failed syncs in a row, and when the next try is due.
    public private(set) var failures = 0
    public private(set) var retryAt: Date?
    /// When the link was first found down, in this stretch of failures.
    public private(set) var offlineSince: Date?
    public private(set) var waitsForUser = false
    private var lastProbe: Date?
    /// A probe found the link down since the last failure: only then is a probe that reaches it news.
    private var probeSawLinkDown = false
    private var linkCameBack = false

    public init(settings: AutoSyncSettings, now: Date) {
        self.settings = settings
        lastEnded = now
        lastEndedEverything = now
    }

    public var isRunning: Bool { runningSince != nil }

    /// A local change was saved (here or by another process) at `now`.
    public mutating func noteLocalChange(at now: Date) {
        if firstUnsent == nil { firstUnsent = now }
        lastUnsent = now
    }

    /// The server announced a change to `objects` (nil: to anything, or it cannot say, as when
    /// its replay window is gone).
    public mutating func noteServerChange(objects: Set<String>? = nil) {
        let news: SyncScope = objects.map { .announced($0) } ?? .everything
        announced = announced.map { $0.merged(with: news) } ?? news
    }

    /// What a sync started now for `reason` brings down: the announced objects' soups when the
    /// announcement is why it starts; else everything.
    public func scope(for reason: Reason?) -> SyncScope {
        guard reason == .serverChanges, let announced else { return .everything }
        return announced
    }

    /// The user fixed what stopped the syncs (signed in again, unlocked the store): sync now.
    public mutating func resume() {
        guard waitsForUser else { return }
        waitsForUser = false
        retryAt = nil
        opening = true
    }

    /// The sync due at `now`, and why; nil while one runs, while off, or when nothing is due.
    public func due(at now: Date) -> Reason? {
        guard settings.enabled, runningSince == nil else { return nil }
        if waitsForUser {
            if let retryAt, now >= retryAt { return .retry }
            return nil
        }
        if failures > 0 {
            // Backing off: saves and news wait with the rest; only the link's return is sooner.
            if linkCameBack { return .linkBack }
            if let retryAt, now >= retryAt { return .retry }
            return nil
        }
        if opening { return .opened }
        if serverChanged { return .serverChanges }
        if let firstUnsent, let lastUnsent, now >= min(lastUnsent + settings.settle, firstUnsent + settings.longestWait) {
            return .localChanges
        }
        if now >= lastEndedEverything + settings.interval { return .timer }
        return nil
    }

    /// A sync started (by itself or by `s`): what was waiting goes with it, except the server's
    /// news about objects a narrower `scope` leaves out.
    public mutating func started(at now: Date, scope: SyncScope = .everything) {
        runningSince = now
        runningScope = scope
        opening = false
        firstUnsent = nil
        lastUnsent = nil
        switch (scope, announced) {
        case let (.announced(objects), .announced(waiting)?):
            let left = waiting.subtracting(objects)
            announced = left.isEmpty ? nil : .announced(left)
        case (.announced, .everything?):
            break
        default:
            announced = nil
        }
        linkCameBack = false
    }

    /// The running sync ended. `random` in 0..<1 places the retry within its jitter.
    public mutating func finished(_ outcome: Outcome, at now: Date, random: Double) {
        let began = runningSince ?? now
        runningSince = nil
        lastEnded = now
        switch outcome {
        case .synced:
            if runningScope == .everything { lastEndedEverything = now }
            waitsForUser = false
            failures = 0
            retryAt = nil
            offlineSince = nil
        case .offline, .failed:
            failures += 1
            retryAt = now + backoff(random: random)
            if outcome == .offline {
                if offlineSince == nil { offlineSince = began }
            } else {
                offlineSince = nil
            }
            probeSawLinkDown = false
            lastProbe = nil
        case .needsUser:
            waitsForUser = true
            failures = 0
            offlineSince = nil
            retryAt = now + settings.longestRetry
        }
    }

    /// The wait before the next try after `failures` failures in a row.
    public func backoff(random: Double) -> TimeInterval {
        let doublings = Double(min(max(failures - 1, 0), 30))
        let base = min(settings.longestRetry, settings.firstRetry * pow(2, doublings))
        let spread = settings.jitter * (2 * min(max(random, 0), 1) - 1)
        return max(0.5, base * (1 + spread))
    }

    /// Whether the link should be tried now: offline, between tries, not tried for a while.
    public func probeDue(at now: Date) -> Bool {
        guard settings.enabled, offlineSince != nil, failures > 0, runningSince == nil, !linkCameBack else { return false }
        guard let lastProbe else { return true }
        return now >= lastProbe + settings.probeInterval
    }

    /// What a probe found. A link that answers after one found down came back: sync at once.
    /// A link that answers without having been found down says nothing (the org itself failed,
    /// or a request timed out on a link that is up): the backoff decides.
    public mutating func probed(linkUp: Bool, at now: Date) {
        lastProbe = now
        if !linkUp {
            probeSawLinkDown = true
        } else if probeSawLinkDown {
            linkCameBack = true
        }
    }

    /// When the next sync is due on its own (the status line's "next try"): the retry while
    /// backing off or waiting for the user, else the timer; nil while off or running.
    public var nextTry: Date? {
        guard settings.enabled, runningSince == nil else { return nil }
        if failures > 0 || waitsForUser { return retryAt }
        return lastEndedEverything + settings.interval
    }

    /// The next try while backing off after failures; nil when nothing failed.
    public var retryAfterFailures: Date? { failures > 0 ? nextTry : nil }
}
