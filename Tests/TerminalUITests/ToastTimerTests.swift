import ContactsApp
import TerminalUI
import Testing

@Suite("Toasts time out instead of vanishing on the next key")
struct ToastTimerTests {
    let start = ContinuousClock.now
    let saved = Toast("Saved locally; s syncs it")

    /// Feeds `timer` toasts seen at seconds after `start`; the answers in order.
    func expiries(_ timer: inout ToastTimer, _ sightings: [(Toast?, UInt64, Double)]) -> [Bool] {
        sightings.map { toast, generation, seconds in
            timer.hasExpired(toast, generation: generation, now: start + .milliseconds(Int(seconds * 1000)))
        }
    }

    @Test func aConfirmationStaysFourSecondsAndAnErrorEight() {
        var timer = ToastTimer()
        let failed = Toast("Sync failed: offline", isError: true)
        let answers = expiries(&timer, [(saved, 1, 0), (saved, 1, 3.9), (saved, 1, 4), (failed, 2, 5), (failed, 2, 12.9), (failed, 2, 13)])
        #expect(answers == [false, false, true, false, false, true])
    }

    @Test func theSameMessageShownAgainGetsItsFullTime() {
        var timer = ToastTimer()
        #expect(expiries(&timer, [(saved, 1, 0), (saved, 3, 3), (saved, 3, 6), (saved, 3, 7)]) == [false, false, false, true])
    }

    @Test func noToastResetsTheTimer() {
        var timer = ToastTimer()
        #expect(expiries(&timer, [(saved, 1, 0), (nil, 2, 1), (saved, 3, 10), (saved, 3, 13.5)]) == [false, false, false, false])
    }

    @Test func movingOnWithTheKeyboardKeepsTheToast() throws {
        let fixture = try ScreenFixture(size: Size(width: 120, height: 40))
        let deleted = try fixture.press([.character("d"), .character("y")])
        #expect(deleted.text.contains("Deleted locally"))
        let moved = try fixture.press([.down, .down])
        #expect(moved.text.contains("Deleted locally"), "the toast outlives the next keys")
    }
}
