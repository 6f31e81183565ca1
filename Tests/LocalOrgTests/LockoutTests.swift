import Foundation
import Testing

@testable import LocalOrg

@Suite("Failed sign-ins lock a user out as Salesforce's default policy does")
struct LockoutTests {
    @Test("Ten invalid attempts lock for 15 minutes; then one more try is allowed; a success clears the count")
    func lockoutExpires() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        try org.store.addUser(username: "t@class.test", password: "right", firstName: nil, lastName: "T", email: nil, isAdmin: false)
        let start: Int64 = 2_000_000_000
        for attempt in 1...9 {
            #expect(try await org.store.checkSignIn(username: "t@class.test", password: "wrong", now: start + Int64(attempt)) == .refused)
        }
        let locked = try await org.store.checkSignIn(username: "t@class.test", password: "wrong", now: start + 10)
        #expect(locked == .lockedOut(until: start + 10 + LockoutPolicy.lockoutSeconds))
        #expect(try await org.store.checkSignIn(username: "t@class.test", password: "right", now: start + 11) == .lockedOut(until: start + 10 + 900))
        // After the period a wrong password counts as the first of a new series, not a new lock.
        #expect(try await org.store.checkSignIn(username: "t@class.test", password: "wrong", now: start + 911) == .refused)
        #expect(try org.store.userSummaries().first { $0.username == "t@class.test" }?.failedLogins == 1)
        guard case .accepted = try await org.store.checkSignIn(username: "t@class.test", password: "right", now: start + 912) else {
            Issue.record("the right password after the lockout should be accepted")
            return
        }
        let summary = try #require(try org.store.userSummaries().first { $0.username == "t@class.test" })
        #expect(summary.failedLogins == 0 && summary.lockedUntil == nil && summary.lastLoginAt == start + 912)
    }

    @Test("An unknown user is refused like a wrong password; a deactivated one is told so only with the right password")
    func unknownAndInactive() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        #expect(try await org.store.checkSignIn(username: "nobody@class.test", password: "x") == .refused)
        try org.store.addUser(username: "gone@class.test", password: "right", firstName: nil, lastName: "G", email: nil, isAdmin: false)
        try org.store.setActive(username: "gone@class.test", false)
        #expect(try await org.store.checkSignIn(username: "gone@class.test", password: "wrong") == .refused)
        #expect(try await org.store.checkSignIn(username: "gone@class.test", password: "right") == .inactive)
    }

    @Test("Adding a class is all or nothing")
    func addUsersAllOrNothing() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let before = try org.store.userSummaries().count
        #expect(throws: APIError.self) {
            try org.store.addUsers([NewOrgUser(username: "a@class.test", password: "p"), NewOrgUser(username: "demo@localorg.test", password: "p")])
        }
        #expect(throws: APIError.self) {
            try org.store.addUsers([NewOrgUser(username: "b@class.test", password: "p"), NewOrgUser(username: "B@class.test", password: "p")])
        }
        #expect(try org.store.userSummaries().count == before)
        let made = Set((0..<50).map { _ in OrgStore.generatedPassword() })
        #expect(made.count == 50 && made.allSatisfy { $0.count == 14 && !$0.contains("0") && !$0.contains("l") })
    }
}
