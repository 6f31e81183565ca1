import ContactsApp
import Dispatch
import ForceJSON
import Foundation
import SmartStore
import Synchronization

/// `forceterm sync --watch`: the TUI's automatic sync without the TUI (a systemd user service, a
/// tmux pane). It stays running and syncs when a local change is saved by another process, when
/// the link comes back and on the timer, through the same controller and schedule as the TUI, so
/// one sync runs at a time and failures back off. SIGTERM, SIGHUP or Ctrl-C end it after the
/// running sync has ended (a second one ends it at once: every change is committed as it is made).
public struct SyncWatch {
    /// One run as the watch reports it.
    public struct Run: Sendable {
        public let ended: Date
        /// Why it started (every run of the watch starts by itself).
        public let reason: AutoSyncSchedule.Reason
        public let result: Result<SyncSummary, SyncFailure>
        /// When the next try is due, after a failure.
        public let nextTry: Date?
    }

    public let store: SmartStore
    public let controller: SyncController
    public var clock: AppClock = .system
    /// How often the loop looks at the store and the schedule.
    public var tick: Duration = .milliseconds(200)

    public init(store: SmartStore, controller: SyncController) {
        self.store = store
        self.controller = controller
    }

    /// Runs until a stop signal; `report` is called after each run. Returns the signal's number.
    public func run(report: (Run) -> Void) -> Int32 {
        let stop = SignalCatcher(signals: [SIGTERM, SIGHUP, SIGINT])
        defer { stop.release() }
        var seen = store.changeStamp()
        var lastSessionCheck = Date.distantPast
        while true {
            if let result = controller.takeFinished() {
                try? SyncRunLog.noteNextTry(of: controller.automatic, in: store)
                seen = store.changeStamp()
                report(
                    Run(
                        ended: clock.now(), reason: controller.startedBy ?? .opened, result: result,
                        nextTry: controller.automatic?.nextTry))
            }
            if let signal = stop.caught {
                // The running sync ends first (its own timeouts bound it), unless a second signal says now.
                if !controller.isRunning || stop.count > 1 { return signal }
            } else if !controller.isRunning {
                let stamp = store.changeStamp()
                if stamp != seen {
                    seen = stamp
                    if ((try? LocalChanges.count(in: store).total) ?? 0) > 0 { controller.noteLocalChange() }
                }
                controller.probeIfDue()
                let now = clock.now()
                if controller.sessionState == .signedOut, now.timeIntervalSince(lastSessionCheck) >= AppModel.sessionRecheckInterval {
                    lastSessionCheck = now
                    controller.resumeIfSignedIn()
                }
                if controller.sessionState != .signedOut { controller.startIfDue() }
            }
            let (seconds, attoseconds) = tick.components
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
    }

    /// Text for one run: "10:42:05 local changes: sent 2, got 3" or its failure and next try.
    public static func text(_ run: Run, timeZone: TimeZone = .current) -> String {
        let time = clockTime(run.ended, timeZone: timeZone, seconds: true)
        let why = reasonText(run.reason)
        switch run.result {
        case let .success(summary):
            var line = "\(time) \(why): \(summary.exchangedBriefly)"
            if summary.recordsWithErrors > 0 { line += "; \(summary.recordsWithErrors) refused (forceterm status)" }
            if summary.conflicts > 0 { line += "; \(summary.conflicts) in conflict (forceterm status)" }
            if !summary.failedSyncs.isEmpty { line += "; failed: " + summary.failedSyncs.joined(separator: ", ") }
            return line + "\n"
        case let .failure(failure):
            let next = run.nextTry.map { "; next try " + clockTime($0, timeZone: timeZone, seconds: true) } ?? ""
            return "\(time) \(why): \(failure.outcome == .offline ? "offline" : "failed"): \(failure.reason)\(next)\n"
        }
    }

    /// One JSON object per run (one line), for a log or a script.
    public static func json(_ run: Run) -> String {
        let stamp = ISO8601DateFormatter()
        var fields: JSONObject = ["ended": .string(stamp.string(from: run.ended)), "reason": .string(run.reason.rawValue)]
        switch run.result {
        case let .success(summary):
            fields["ok"] = true
            for (name, count) in [
                ("sent", summary.sent), ("received", summary.receivedChanges), ("removed", summary.removedOnServer),
                ("refused", summary.recordsWithErrors), ("conflicts", summary.conflicts),
            ] {
                fields[name] = .int(Int64(count))
            }
            fields["failedSyncs"] = .array(summary.failedSyncs.map { .string($0) })
        case let .failure(failure):
            fields["ok"] = false
            fields["offline"] = .bool(failure.outcome == .offline)
            fields["error"] = .string(failure.reason)
            if let next = run.nextTry { fields["nextTry"] = .string(stamp.string(from: next)) }
        }
        return JSONWriter.string(.object(fields))
    }

    static func reasonText(_ reason: AutoSyncSchedule.Reason) -> String {
        switch reason {
        case .opened: "started"
        case .localChanges: "local changes"
        case .serverChanges: "server changes"
        case .timer: "timer"
        case .retry: "retry"
        case .linkBack: "link back"
        }
    }

    static func clockTime(_ date: Date, timeZone: TimeZone, seconds: Bool) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}

/// Stop signals caught instead of ending the process, counted.
final class SignalCatcher {
    /// The first signal caught and how many came, shared with the handlers.
    private final class Caught: Sendable {
        let state = Mutex<(first: Int32?, count: Int)>((nil, 0))
    }

    private let sources: [any DispatchSourceSignal]
    private let caughtSignals = Caught()
    private let signals: [Int32]

    init(signals: [Int32]) {
        self.signals = signals
        let caught = caughtSignals
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { caught.state.withLock { $0 = ($0.first ?? number, $0.count + 1) } }
            source.resume()
            return source
        }
    }

    var caught: Int32? { caughtSignals.state.withLock { $0.first } }
    var count: Int { caughtSignals.state.withLock { $0.count } }

    func release() {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}
