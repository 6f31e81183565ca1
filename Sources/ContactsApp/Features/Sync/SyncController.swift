import MobileSync
import Synchronization

/// How far a running sync is.
public struct SyncProgress: Sendable, Equatable {
    /// "Sync up" or "Sync down" ("Sync" before the first sync reports).
    public let phase: String
    /// 0...1.
    public let fraction: Double

    public init(phase: String, fraction: Double) {
        self.phase = phase
        self.fraction = min(max(fraction, 0), 1)
    }
}

/// One progress bar for a whole run of syncs, from their reports: each sync its share of the bar,
/// at the percent it last reported. Reports come interleaved when syncs run side by side, so the
/// bar is their sum (it never falls back between syncs or reports), the label names the soups of
/// the syncs running now, and the count is of the syncs that have ended.
public struct SyncRunProgress: Sendable {
    /// The run's syncs, in the order they are listed.
    public let order: [String]
    private var percents: [String: Int] = [:]
    /// The soup of each sync running now.
    private var running: [String: String] = [:]
    private var ended: Set<String> = []
    /// Soup names longer together than this are said as the first and how many more.
    static let longestNames = 24

    public init(order: [String]) { self.order = order }

    /// Notes that sync `name`, of `soup` (empty: not named, as an object's description), is
    /// `percent` through, or has `ended`; `phase` is what it does ("Sync down").
    public mutating func update(name: String, phase: String, soup: String, percent: Int, ended hasEnded: Bool = false) -> SyncProgress {
        let count = max(order.count, 1)
        if order.contains(name) {
            percents[name] = max(percents[name] ?? 0, min(max(percent, 0), 100))
            if hasEnded {
                ended.insert(name)
                running[name] = nil
            } else {
                // Running again (a sync up rerun after a lost answer) is running, not ended.
                ended.remove(name)
                running[name] = soup
            }
        }
        let done = order.reduce(0) { $0 + (percents[$1] ?? 0) }
        var soups: [String] = []
        for name in order { if let soup = running[name], !soup.isEmpty, !soups.contains(soup) { soups.append(soup) } }
        var what = soups.joined(separator: ", ")
        if soups.count > 1, what.count > Self.longestNames { what = "\(soups[0]) +\(soups.count - 1)" }
        let label = [phase, what, "\(ended.count)/\(count)"].filter { !$0.isEmpty }.joined(separator: " ")
        return SyncProgress(phase: label, fraction: Double(done) / 100 / Double(count))
    }
}

/// The org's API request usage from its last answer (`Sforce-Limit-Info`).
public struct APIUsageLevel: Sendable, Equatable {
    public let used: Int
    public let limit: Int
    public init(used: Int, limit: Int) {
        self.used = used
        self.limit = limit
    }
}

/// What a finished sync reports: how many records were left with a per-record error or a conflict,
/// and the API usage the org reported, when it did.
public struct SyncSummary: Sendable, Equatable {
    public let recordsWithErrors: Int
    public let conflicts: Int
    public let apiUsage: APIUsageLevel?
    /// Named syncs that failed on their own while the others ran; the Syncs tab shows why.
    public let failedSyncs: [String]
    /// Local changes the org accepted (not those it refused or that met a conflict).
    public let sent: Int
    /// Records the sync downs stored because they were new or changed on the server: an
    /// incremental sync also receives again the records of its last second, unchanged, and the
    /// sync's own changes with only a new date; counting those would say something came when
    /// nothing did.
    public let receivedChanges: Int
    /// Records removed here because the server no longer has them (deleted there, or gone with a
    /// deleted parent): news too, though nothing was received.
    public let removedOnServer: Int
    /// Fields the org newly hides from this user (said when it changes): the syncs brought the rest.
    public let hiddenFields: [String]

    public init(
        recordsWithErrors: Int, conflicts: Int, apiUsage: APIUsageLevel? = nil, failedSyncs: [String] = [], sent: Int = 0,
        receivedChanges: Int = 0, removedOnServer: Int = 0, hiddenFields: [String] = []
    ) {
        self.hiddenFields = hiddenFields
        self.recordsWithErrors = recordsWithErrors
        self.conflicts = conflicts
        self.apiUsage = apiUsage
        self.failedSyncs = failedSyncs
        self.sent = sent
        self.receivedChanges = receivedChanges
        self.removedOnServer = removedOnServer
    }

    /// "sent 2 changes; 30 records new or changed on the server" — what the toast says happened.
    public var exchanged: String {
        // Three counts do not fit a toast's line in full words: said briefly, removals named.
        if removedOnServer > 0 { return exchangedBriefly + " (deleted on the server)" }
        let received =
            receivedChanges == 0
            ? "\(nothingNew) on the server"
            : "\(receivedChanges) record\(receivedChanges == 1 ? "" : "s") new or changed on the server"
        return "sent \(sent) change\(sent == 1 ? "" : "s"); " + received
    }

    /// The same in a few words, after what needs the user: "sent 2, got 30", "sent 0, got 0, 30 gone".
    public var exchangedBriefly: String {
        if removedOnServer > 0 { return "sent \(sent), got \(receivedChanges), \(removedOnServer) gone" }
        return "sent \(sent), \(receivedChanges == 0 ? nothingNew : "got \(receivedChanges)")"
    }

    /// A conflict is the server's change to a record, kept beside the user's rather than stored:
    /// "nothing new" beside it would contradict it.
    private var nothingNew: String { conflicts > 0 ? "nothing else new" : "nothing new" }
}

/// Whether the org answered the last request: unknown until a sync has talked to it.
public enum Connection: Sendable, Equatable {
    case unknown, online, offline
}

/// Whether the sync has a session to use: signed in, nobody signed in, or a session the org no
/// longer accepts.
public enum SessionState: Sendable, Equatable {
    case signedIn, signedOut, expired
}

/// Runs one sync at a time in the background and lets the event loop read its state on each tick,
/// so the keyboard stays live while it runs. With automatic sync, it also keeps the schedule
/// (`AutoSyncSchedule`): the caller notes saves and the server's news and asks, on each tick,
/// for the sync that is due.
public final class SyncController: Sendable {
    public enum Status: Sendable, Equatable {
        case idle
        case running(SyncProgress)
        case finished(Result<SyncSummary, SyncFailure>)
    }

    private let service: any SyncService
    private let status = Mutex<Status>(.idle)
    private let reachability = Mutex<(connection: Connection, usage: APIUsageLevel?)>((.unknown, nil))
    private let session: Mutex<SessionState>
    /// The running sync's task, so a caller can wait for it instead of polling.
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// When syncs start by themselves; nil: only `start()` starts one.
    private let schedule: Mutex<AutoSyncSchedule?>
    /// Why the running (or last) sync started: nil when the user asked for it.
    private let reason = Mutex<AutoSyncSchedule.Reason?>(nil)
    private let probing = Mutex(false)
    private let push = Mutex(ServerPush())
    private let clock: AppClock
    private let random: @Sendable () -> Double

    public init(
        service: any SyncService, automatic: AutoSyncSettings? = nil, clock: AppClock = .system,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.service = service
        let signIn = service.sessionState
        session = Mutex(signIn)
        self.clock = clock
        self.random = random
        schedule = Mutex(automatic.flatMap { $0.enabled ? AutoSyncSchedule(settings: $0, now: clock.now()) : nil })
    }

    /// The automatic syncs' schedule as it stands; nil when syncs start only on request.
    public var automatic: AutoSyncSchedule? { schedule.withLock { $0 } }

    /// Why the running or last sync started by itself; nil when the user started it.
    public var startedBy: AutoSyncSchedule.Reason? { reason.withLock { $0 } }

    /// The user asked for the running sync (`s` while it runs): its end is reported as theirs.
    public func claimForUser() { reason.withLock { $0 = nil } }

    /// A local change was saved (here or in another process): it goes up within seconds.
    public func noteLocalChange() {
        let now = clock.now()
        schedule.withLock { $0?.noteLocalChange(at: now) }
    }

    /// The server announced a change to `objects` (nil: to anything).
    public func noteServerChange(objects: Set<String>? = nil) { schedule.withLock { $0?.noteServerChange(objects: objects) } }

    /// Which objects' changes the server announces, as the listener last found.
    public var serverPush: ServerPush { push.withLock { $0 } }

    public func noteServerPush(_ change: (inout ServerPush) -> Void) { push.withLock { change(&$0) } }

    /// Starts the sync that is due, if any; returns why it started.
    @discardableResult
    public func startIfDue() -> AutoSyncSchedule.Reason? {
        guard let due = schedule.withLock({ $0?.due(at: clock.now()) }) else { return nil }
        return start(reason: due) ? due : nil
    }

    /// While offline between tries: tries the link in the background (one try at a time); a
    /// link that comes back makes the next `startIfDue` start a sync.
    public func probeIfDue() {
        let now = clock.now()
        guard schedule.withLock({ $0?.probeDue(at: now) ?? false }) else { return }
        guard
            probing.withLock({ busy in
                if busy { return false }
                busy = true
                return true
            })
        else { return }
        let service = self.service
        Task.detached { [self] in
            let up = await service.linkIsUp()
            let now = self.clock.now()
            self.schedule.withLock { $0?.probed(linkUp: up, at: now) }
            self.probing.withLock { $0 = false }
        }
    }

    /// Reads the session again while nobody is signed in; a sign-in made since resumes the
    /// automatic syncs at once. An
    /// expired session or a locked store waits for the longest retry, or `s`: saved credentials
    /// say nothing about whether the org still takes them.
    /// Returns whether someone is signed in now.
    @discardableResult
    public func resumeIfSignedIn() -> Bool {
        guard sessionState == .signedOut, checkSession() == .signedIn else { return sessionState == .signedIn }
        schedule.withLock { $0?.resume() }
        return true
    }

    /// The session as the last sync, the start or `checkSession` found it.
    public var sessionState: SessionState { session.withLock { $0 } }

    /// Reads the session again (a sign-in made elsewhere since), keeps and returns it.
    @discardableResult
    public func checkSession() -> SessionState {
        let signIn = service.sessionState
        session.withLock { $0 = signIn }
        return signIn
    }

    public var current: Status { status.withLock { $0 } }

    /// Online or offline as the last sync's requests found it; unknown before the first.
    public var connection: Connection { reachability.withLock { $0.connection } }

    /// The API usage from the last answer that reported it.
    public var apiUsage: APIUsageLevel? { reachability.withLock { $0.usage } }

    public var isRunning: Bool {
        if case .running = current { return true }
        return false
    }

    /// Starts a sync unless one is running; returns whether it started. `reason`: why it starts
    /// by itself; nil when the user asked.
    @discardableResult
    public func start(reason why: AutoSyncSchedule.Reason? = nil) -> Bool {
        let started = status.withLock { state -> Bool in
            if case .running = state { return false }
            state = .running(SyncProgress(phase: "Sync", fraction: 0))
            return true
        }
        guard started else { return false }
        reason.withLock { $0 = why }
        let now = clock.now()
        let scope = schedule.withLock { schedule -> SyncScope in
            let scope = schedule?.scope(for: why) ?? .everything
            schedule?.started(at: now, scope: scope)
            return scope
        }
        let service = self.service
        let work = Task.detached { [self] in
            do {
                let summary = try await service.syncUpThenDown(scope) { progress in
                    self.status.withLock { state in if case .running = state { state = .running(progress) } }
                }
                self.reachability.withLock { $0 = (.online, summary.apiUsage ?? $0.usage) }
                self.session.withLock { $0 = .signedIn }
                self.ended(.synced)
                self.status.withLock { $0 = .finished(.success(summary)) }
            } catch {
                let failure = error as? SyncFailure ?? SyncFailure(reason: "\(error)")
                self.reachability.withLock {
                    $0 = (failure.connection == .unknown ? $0.connection : failure.connection, failure.apiUsage ?? $0.usage)
                }
                if let state = failure.session { self.session.withLock { $0 = state } }
                self.ended(failure.outcome)
                self.status.withLock { $0 = .finished(.failure(failure)) }
            }
        }
        task.withLock { $0 = work }
        return true
    }

    private func ended(_ outcome: AutoSyncSchedule.Outcome) {
        let now = clock.now()
        let random = self.random()
        schedule.withLock { $0?.finished(outcome, at: now, random: random) }
    }

    /// Returns once the sync started last has finished (at once when none was started): tests and
    /// scripts step a sync this way rather than polling `isRunning`.
    public func waitUntilFinished() async {
        let running = task.withLock { $0 }
        await running?.value
    }

    /// Lets the service's kept connection go (before the process exits). A sync still running
    /// keeps it: quitting does not wait for its requests.
    public func close() {
        guard !isRunning else { return }
        service.close()
    }

    /// Stores a subscription through the service; refused while a sync of this process runs,
    /// whose end the caller waits for (it holds the sync lock).
    public func subscribe(_ request: SubscriptionRequest) throws -> [String] {
        guard !isRunning else { throw SyncFailure(reason: "a sync is running") }
        return try service.subscribe(request)
    }

    /// Checks a subscription without storing it: allowed while a sync runs.
    public func checkSubscription(_ request: SubscriptionRequest) throws { try service.checkSubscription(request) }

    /// Removes a subscription through the service, under the same rule.
    public func unsubscribe(name: String) throws -> SubscriptionRelease.Outcome {
        guard !isRunning else { throw SyncFailure(reason: "a sync is running") }
        return try service.unsubscribe(name: name)
    }

    /// The finished result, once: the state goes back to idle.
    public func takeFinished() -> Result<SyncSummary, SyncFailure>? {
        status.withLock { state in
            guard case let .finished(result) = state else { return nil }
            state = .idle
            return result
        }
    }
}

/// Why a sync failed, in words for the toast; `connection` says whether its requests reached the
/// org (offline), got an answer (online), or it stopped before asking (unknown).
public struct SyncFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public let connection: Connection
    public let apiUsage: APIUsageLevel?
    /// What the failure says about the session, when it says something (nobody signed in, expired).
    public let session: SessionState?
    /// Only the user can fix it (a locked store): automatic syncs wait instead of retrying.
    public let needsUser: Bool
    public init(
        reason: String, connection: Connection = .unknown, apiUsage: APIUsageLevel? = nil, session: SessionState? = nil,
        needsUser: Bool = false
    ) {
        self.needsUser = needsUser
        self.reason = reason
        self.connection = connection
        self.apiUsage = apiUsage
        self.session = session
    }
    public var description: String { reason }

    /// What the failure means for the automatic syncs: offline and the org's failures are
    /// retried; only the user can fix a missing or expired session or a locked store.
    public var outcome: AutoSyncSchedule.Outcome {
        if needsUser || session == .signedOut || session == .expired { return .needsUser }
        return connection == .offline ? .offline : .failed
    }
}
