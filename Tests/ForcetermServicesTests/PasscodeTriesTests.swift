import ContactsApp
import Foundation
import SmartStore
import Testing

@testable import ForcetermServices

@Suite("Wrong passcodes in a row make the next try wait")
struct PasscodeTriesTests {
    @Test func theWaitStartsAtTheThirdWrongOneAndDoublesUpToAQuarterOfAnHour() {
        #expect((0...9).map(PasscodeTries.wait(afterFailures:)) == [0, 0, 0, 5, 10, 20, 40, 80, 160, 320])
        #expect(PasscodeTries.wait(afterFailures: 11) == 900 && PasscodeTries.wait(afterFailures: 1_000) == 900)
    }

    @Test func triesDuringTheWaitAreRefusedUncheckedAndTheRightOneAfterItStartsAgain() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-tries-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite"
        let key = StoreKey.random()
        try WrappedStoreKey.seal(key, passcode: "right-one", iterations: 1_000).write(forStore: store)
        let keyring = SessionKeyring(timeout: 60)
        defer { keyring.forget(store: store) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func attempt(_ passcode: String, at seconds: Double) -> Result<StoreKey, PasscodeRefused> {
            do {
                let wrapped = try #require(try WrappedStoreKey.read(forStore: store))
                return .success(try StoreKeys.unwrap(wrapped, passcode: passcode, store: store, keyring: keyring, now: start + seconds))
            } catch let refused as PasscodeRefused {
                return .failure(refused)
            } catch {
                Issue.record("\(error)")
                return .failure(PasscodeRefused(store: store, failures: -1, wait: -1, tooSoon: false, storeOption: ""))
            }
        }
        func refusal(_ result: Result<StoreKey, PasscodeRefused>) -> PasscodeRefused? {
            if case let .failure(refused) = result { return refused }
            return nil
        }

        let first = refusal(attempt("wrong", at: 0))
        #expect(first?.failures == 1 && first?.wait == 0 && first?.tooSoon == false)
        #expect(first?.description.contains("after 2 more wrong, each try waits first") == true, "\(String(describing: first))")
        _ = attempt("wrong", at: 1)
        let third = refusal(attempt("wrong", at: 2))
        #expect(third?.failures == 3 && third?.wait == 5 && third?.short == "Wrong passcode (3 in a row). Wait 5 s.")
        // The right passcode, too soon: refused unchecked, not counted.
        let early = refusal(attempt("right-one", at: 3))
        #expect(early?.tooSoon == true && early?.wait == 4 && early?.failures == 3, "\(String(describing: early))")
        #expect(try WrappedStoreKey.read(forStore: store)?.failedAttempts == 3)
        let fourth = refusal(attempt("wrong", at: 7))
        #expect(fourth?.failures == 4 && fourth?.wait == 10)
        #expect(refusal(attempt("right-one", at: 12))?.tooSoon == true)
        #expect(try attempt("right-one", at: 17).get() == key)
        let file = try #require(try WrappedStoreKey.read(forStore: store))
        #expect(file.failedAttempts == 0 && file.lastFailure == nil, "a right passcode starts the count again")
        #expect(refusal(attempt("wrong", at: 18))?.wait == 0, "and the wait")
        _ = attempt("wrong", at: 19)
        #expect(refusal(attempt("wrong", at: 20))?.wait == 5)
        // The clock set back an hour: the wait is still at most 5 s, not an hour more.
        #expect(refusal(attempt("right-one", at: 20 - 3_600))?.wait == 5)
        #expect(try attempt("right-one", at: 20 - 3_600 + 6).get() == key, "and once waited, the right one opens")
    }
}
