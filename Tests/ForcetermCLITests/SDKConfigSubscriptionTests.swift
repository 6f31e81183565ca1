import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// The Mobile SDK's own config files with a subscription added (issue 47): the syncs the files
/// define end as they did without it, the soup holds the same records, and unsubscribing lets go
/// of nothing the file's syncs hold.
@Suite("The SDK's config files with a subscription", .serialized)
struct SDKConfigSubscriptionTests {
    /// Each sync's status, by name, as `forceterm status --json` lists them.
    static func states(_ user: SyncCommandTests.SignedIn) throws -> [String: String] {
        let (_, json) = try user.json(["status"])
        return Dictionary(
            uniqueKeysWithValues: (json["syncs"]?.arrayValue ?? []).compactMap { sync in
                sync["name"]?.stringValue.map { ($0, sync["status"]?.stringValue ?? "") }
            })
    }

    @Test(
        "Synced again with a subscription beside them, the file's syncs end as before and the soup holds the same records; unsubscribing removes none of them",
        .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"),
        arguments: [
            ("ios-MobileSyncTestApp", "accounts", "Name != null"), ("android-MobileSyncTest", "accounts", "Name != null"),
            ("templates-MobileSyncExplorerKotlinTemplate", "contacts", "LastName != null"),
            ("shared-samples-mobilesyncexplorer-hybrid", "contacts", "LastName != null"),
        ])
    func withASubscription(directory: String, soup: String, condition: String) throws {
        let user = try SyncCommandTests.SignedIn(accounts: SDKConfigTests.seededAccounts, contacts: SDKConfigTests.seededContacts)
        defer { user.remove() }
        let config = RealSalesforce.mobileSyncConfig(directory).path
        let first = try user.forceterm(["sync", "--config", config])
        let before = try Self.states(user)
        let held = try user.documents(soup).count
        let made = try user.forceterm(["subscribe", "slice", "--soup", soup, "--where", condition, "--config", config])
        #expect(made.exitCode == 0 && made.standardOutput.hasPrefix("slice: "), "\(made)")
        for _ in 0..<2 {
            let again = try user.forceterm(["sync", "--config", config])
            #expect(again.exitCode == first.exitCode, "\(again)")
            var expected = before
            expected["slice"] = "DONE"
            #expect(try Self.states(user) == expected)
            #expect(try user.documents(soup).count == held, "the subscription's records are the file's syncs' own")
        }
        let removed = try user.forceterm(["unsubscribe", "slice"])
        #expect(removed.exitCode == 0 && removed.standardOutput.hasPrefix("slice: 0 records removed from \(soup)"), "\(removed)")
        #expect(try user.forceterm(["sync", "--config", config]).exitCode == first.exitCode)
        #expect(try Self.states(user) == before)
        #expect(try user.documents(soup).count == held)
    }
}
