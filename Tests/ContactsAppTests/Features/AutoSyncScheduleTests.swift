import ContactsApp
import Foundation
import Testing

/// The automatic syncs' clock, stepped by the test's own times: when a sync is due and why.
@Suite("Automatic sync: when the next sync is due")
struct AutoSyncScheduleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    func at(_ seconds: TimeInterval) -> Date { start + seconds }

    @Test("The first sync is due at once; then nothing until a save, the server's news or the interval")
    func openingThenQuiet() {
        var schedule = AutoSyncSchedule(settings: AutoSyncSettings(interval: 60), now: start)
        #expect(schedule.due(at: start) == .opened)
        schedule.started(at: start)
        #expect(schedule.due(at: at(1)) == nil, "never while one runs")
        schedule.finished(.synced, at: at(2), random: 0.5)
        #expect(schedule.due(at: at(30)) == nil)
        #expect(schedule.nextTry == at(62))
        #expect(schedule.due(at: at(62)) == .timer)
        schedule.noteServerChange()
        #expect(schedule.due(at: at(3)) == .serverChanges)
    }

    @Test("Quick saves go in one sync: due after a quiet moment, and never later than two seconds after the first")
    func savesSettle() {
        var schedule = AutoSyncSchedule(settings: AutoSyncSettings(), now: start)
        schedule.started(at: start)
        schedule.finished(.synced, at: start, random: 0.5)
        schedule.noteLocalChange(at: at(10))
        #expect(schedule.due(at: at(10.5)) == nil, "another save may follow")
        #expect(schedule.due(at: at(10.75)) == .localChanges)
        // Saves every half second: the quiet moment never comes, the longest wait does.
        for step in 1...3 { schedule.noteLocalChange(at: at(10 + 0.5 * Double(step))) }
        #expect(schedule.due(at: at(11.9)) == nil)
        #expect(schedule.due(at: at(12)) == .localChanges)
        schedule.started(at: at(12))
        schedule.noteLocalChange(at: at(12.5))
        schedule.finished(.synced, at: at(13), random: 0.5)
        #expect(schedule.due(at: at(13)) == nil)
        #expect(schedule.due(at: at(13.25)) == .localChanges, "a save made while the sync ran goes in the next one")
    }

    @Test("After failures the waits double from two seconds up to five minutes, each within ±20%, and saves wait with them")
    func backoff() {
        var schedule = AutoSyncSchedule(settings: AutoSyncSettings(), now: start)
        var now = start
        var waits: [TimeInterval] = []
        for _ in 0..<10 {
            schedule.started(at: now)
            schedule.finished(.failed, at: now, random: 0.5)
            guard let retry = schedule.retryAt else {
                Issue.record("no retry after a failure")
                return
            }
            waits.append(retry.timeIntervalSince(now))
            now = retry
        }
        #expect(waits == [2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
        // `now` is the last failure's retry: a save made a hundred seconds before it waits for it.
        schedule.noteLocalChange(at: now - 100)
        #expect(schedule.due(at: now - 99) == nil, "a save does not cut the wait short: no storm against a failing org")
        #expect(schedule.due(at: now) == .retry)
        var low = AutoSyncSchedule(settings: AutoSyncSettings(), now: start)
        var high = low
        low.started(at: start)
        low.finished(.failed, at: start, random: 0)
        high.started(at: start)
        high.finished(.failed, at: start, random: 0.999_999)
        #expect(low.retryAt == at(1.6))
        #expect(abs((high.retryAt ?? start).timeIntervalSince(at(2.4))) < 0.001)
        low.started(at: at(2))
        low.finished(.synced, at: at(3), random: 0.5)
        #expect(low.failures == 0 && low.retryAt == nil && low.offlineSince == nil, "a success ends the backoff")
    }

    @Test("Offline: the link is tried every few seconds; it answering after being found down starts a sync at once")
    func linkComesBack() {
        var schedule = AutoSyncSchedule(settings: AutoSyncSettings(), now: start)
        schedule.started(at: start)
        schedule.finished(.offline, at: at(1), random: 0.5)
        schedule.started(at: at(3))
        schedule.finished(.offline, at: at(4), random: 0.5)
        #expect(schedule.offlineSince == start, "offline since the first sync that found it so")
        #expect(schedule.probeDue(at: at(4)))
        schedule.probed(linkUp: true, at: at(4))
        #expect(schedule.due(at: at(5)) == nil, "a link that was never found down says nothing new")
        #expect(!schedule.probeDue(at: at(6)))
        #expect(schedule.probeDue(at: at(7)))
        schedule.probed(linkUp: false, at: at(7))
        schedule.probed(linkUp: true, at: at(10))
        #expect(schedule.due(at: at(10)) == .linkBack)
        #expect(!schedule.probeDue(at: at(20)), "no more probes once the link is back")
        schedule.started(at: at(10))
        #expect(!schedule.probeDue(at: at(20)), "nor while a sync runs")
        schedule.finished(.synced, at: at(11), random: 0.5)
        #expect(schedule.offlineSince == nil && !schedule.probeDue(at: at(30)))
    }

    @Test("What only the user can fix waits: retried after the longest wait, or at once when the user fixed it")
    func waitsForUser() {
        var schedule = AutoSyncSchedule(settings: AutoSyncSettings(), now: start)
        schedule.started(at: start)
        schedule.finished(.needsUser, at: at(1), random: 0.5)
        schedule.noteLocalChange(at: at(2))
        #expect(schedule.due(at: at(10)) == nil)
        #expect(schedule.nextTry == at(301))
        #expect(schedule.due(at: at(301)) == .retry)
        schedule.resume()
        #expect(schedule.due(at: at(11)) == .opened)
    }

    @Test("Off: nothing is ever due")
    func off() {
        let schedule = AutoSyncSchedule(settings: AutoSyncSettings(enabled: false), now: start)
        #expect(schedule.due(at: start) == nil)
        #expect(schedule.due(at: at(1_000_000)) == nil)
        #expect(schedule.nextTry == nil)
    }

    @Test("An announcement syncs down only the objects announced; news of others waits, and the timer counts from the last sync of everything")
    func announcedObjectsOnly() {
        var schedule = AutoSyncSchedule(settings: AutoSyncSettings(interval: 60), now: start)
        schedule.started(at: start)
        schedule.finished(.synced, at: at(1), random: 0.5)
        schedule.noteServerChange(objects: ["Contact"])
        schedule.noteServerChange(objects: ["Account"])
        #expect(schedule.due(at: at(2)) == .serverChanges)
        #expect(schedule.scope(for: .serverChanges) == .announced(["Contact", "Account"]))
        #expect(schedule.scope(for: .timer) == .everything && schedule.scope(for: nil) == .everything, "the timer and s bring everything")

        // Started for Contact alone (news of Account came in between): Account's news waits for the next.
        schedule.started(at: at(2), scope: .announced(["Contact"]))
        #expect(schedule.announced == .announced(["Account"]))
        schedule.finished(.synced, at: at(3), random: 0.5)
        #expect(schedule.due(at: at(3)) == .serverChanges)
        schedule.started(at: at(3), scope: schedule.scope(for: .serverChanges))
        #expect(!schedule.serverChanged)
        // News every few seconds for 80 s: the objects nobody announces still come down at 61.
        var now = 4.0
        var timerAt: Double?
        while now < 80 {
            schedule.finished(.synced, at: at(now), random: 0.5)
            if schedule.due(at: at(now)) == .timer {
                timerAt = now
                break
            }
            schedule.noteServerChange(objects: ["Contact"])
            schedule.started(at: at(now), scope: schedule.scope(for: .serverChanges))
            now += 5
        }
        #expect(timerAt == 64, "the first tick after 1 + 60 s")

        // An announcement that cannot say what (the replay window gone) brings everything.
        schedule.noteServerChange(objects: ["Contact"])
        schedule.noteServerChange()
        #expect(schedule.scope(for: .serverChanges) == .everything)
    }
}
