import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// The Mobile SDK's own config files, unchanged (`../shared/real-salesforce/mobilesync-configs/`),
/// through the built binaries against a seeded localorg: `forceterm sync --config DIR`, `status`,
/// and the TUI opening on the store they fill.
@Suite("The Mobile SDK's config files", .serialized)
struct SDKConfigTests {
    struct Expected: Sendable, CustomStringConvertible {
        let directory: String
        /// Named syncs, sorted, and how many records each soup holds after the first sync.
        let syncs: [String]
        let soups: [String: Int]
        /// The tab bar's titles.
        let tabs: String
        var description: String { directory }
    }

    /// A usersyncs.json of SOQL sync downs: (name, soup, query) each.
    static func syncDowns(_ syncs: [(name: String, soup: String, query: String)]) -> String {
        let entries = syncs.map { sync -> JSONValue in
            [
                "syncName": .string(sync.name), "syncType": "syncDown", "soupName": .string(sync.soup),
                "target": ["type": "soql", "query": .string(sync.query)],
            ]
        }
        return JSONWriter.string(.object(["syncs": .array(entries)]))
    }

    static let seededAccounts = 4
    static let seededContacts = 9

    @Test(
        "sync --config DIR runs the SDK's syncs DONE into its soups, and the TUI opens on them", .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"),
        arguments: [
            Expected(
                directory: "templates-MobileSyncExplorerSwift", syncs: ["syncDownContacts", "syncUpContacts"], soups: ["contacts": seededContacts],
                tabs: "1 Contacts   2 Syncs   3 Inspector"),
            Expected(
                directory: "templates-MobileSyncExplorerKotlinTemplate", syncs: ["syncDownContacts", "syncUpContacts"],
                soups: ["contacts": seededContacts], tabs: "1 Contacts   2 Syncs   3 Inspector"),
            Expected(
                directory: "shared-samples-mobilesyncexplorer-hybrid", syncs: ["syncDownContacts", "syncUpContacts"],
                soups: ["contacts": seededContacts], tabs: "1 Contacts   2 Syncs   3 Inspector"),
            Expected(
                directory: "templates-iOSNativeSwiftTemplate", syncs: ["syncDownAccounts"], soups: ["Account": seededAccounts],
                tabs: "1 Accounts   2 Syncs   3 Inspector"),
        ])
    func sdkConfig(expected: Expected) throws {
        let user = try SyncCommandTests.SignedIn(accounts: Self.seededAccounts, contacts: Self.seededContacts)
        defer { user.remove() }
        let config = RealSalesforce.mobileSyncConfig(expected.directory).path
        let sync = try user.forceterm(["sync", "--config", config])
        #expect(sync.exitCode == 0, "\(sync)")
        let (status, json) = try user.json(["status"])
        let syncs = json["syncs"]?.arrayValue ?? []
        #expect(syncs.compactMap { $0["name"]?.stringValue }.sorted() == expected.syncs, "\(status)")
        #expect(syncs.allSatisfy { $0["status"] == "DONE" }, "\(status)")
        for (soup, count) in expected.soups {
            #expect(try user.documents(soup).count == count, "\(soup)")
        }
        let again = try user.forceterm(["sync", "--config", config])
        #expect(again.exitCode == 0 && !again.standardError.contains("changed in usersyncs.json"), "\(again)")

        let tui = try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath, "--config", config], width: 110, height: 24,
            environment: user.environment.compactMapValues { $0 })
        defer { tui.kill() }
        let screen = try tui.waitFor(expected.tabs)
        let first = try #require(expected.soups.first)
        #expect(screen.contains("(\(first.value))"), "\(screen)")
        try tui.send("q")
    }

    @Test(
        "The SDK's Swift template with a subscription added: its syncs run as before into a soup without a __sync_id__ index, the subscription runs beside them, and unsubscribing keeps what the template's sync holds",
        .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"))
    func sdkConfigWithASubscription() throws {
        let user = try SyncCommandTests.SignedIn(accounts: Self.seededAccounts, contacts: Self.seededContacts)
        defer { user.remove() }
        let config = RealSalesforce.mobileSyncConfig("templates-MobileSyncExplorerSwift").path
        #expect(try user.forceterm(["sync", "--config", config]).exitCode == 0)
        // The template keeps no describe (it has no metadata sync): offline, nothing checks the fields.
        let queued = try user.forceterm(["subscribe", "slice", "--soup", "contacts", "--where", "LastName != null", "--no-wait", "--config", config])
        #expect(queued.exitCode == 1 && queued.standardError.contains("subscribe while online"), "\(queued)")
        let made = try user.forceterm(["subscribe", "slice", "--soup", "contacts", "--where", "LastName != null", "--config", config])
        #expect(made.exitCode == 0 && made.standardOutput.hasPrefix("slice: \(Self.seededContacts) records of contacts held"), "\(made)")
        for _ in 0..<2 {
            let sync = try user.forceterm(["sync", "--config", config])
            #expect(sync.exitCode == 0 && sync.standardOutput.contains("removed 0 deleted on the server"), "\(sync)")
            let (status, json) = try user.json(["status"])
            let syncs = json["syncs"]?.arrayValue ?? []
            #expect(syncs.compactMap { $0["name"]?.stringValue }.sorted() == ["slice", "syncDownContacts", "syncUpContacts"], "\(status)")
            #expect(syncs.allSatisfy { $0["status"] == "DONE" }, "\(status)")
            #expect(try user.documents("contacts").count == Self.seededContacts)
        }
        let removed = try user.forceterm(["unsubscribe", "slice"])
        #expect(removed.standardOutput == "slice: 0 records removed from contacts, \(Self.seededContacts) kept (other syncs hold them)\n", "\(removed)")
        #expect(try user.forceterm(["sync", "--config", config]).exitCode == 0)
        #expect(try user.documents("contacts").count == Self.seededContacts)
    }

    @Test(
        "The SDK test apps' files: every sync of a supported target with the org's fields is DONE; the IdX tree sync down fails alone, named",
        .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"),
        arguments: [
            "ios-MobileSyncTestApp", "android-MobileSyncTest",
        ])
    func sdkTestApps(directory: String) throws {
        let user = try SyncCommandTests.SignedIn(accounts: Self.seededAccounts, contacts: Self.seededContacts)
        defer { user.remove() }
        let config = RealSalesforce.mobileSyncConfig(directory).path
        let sync = try user.forceterm(["sync", "--config", config])
        #expect(sync.exitCode == 3, "\(sync)")
        let failed = sync.standardOutput.split(separator: "\n").filter { $0.contains(" failed (the other syncs ran): ") }
        #expect(failed.count == 1, "\(sync)")
        #expect(failed.first?.hasPrefix("parentChildrenSyncDown failed") == true, "\(sync)")
        #expect(failed.first?.contains("No such column 'IdX' on entity 'Account'") == true, "\(sync)")
        let (status, json) = try user.json(["status"])
        let states = Dictionary(
            uniqueKeysWithValues: (json["syncs"]?.arrayValue ?? []).compactMap { sync in
                sync["name"]?.stringValue.map { ($0, sync["status"]?.stringValue ?? "") }
            })
        #expect(states["parentChildrenSyncDown"] == "FAILED", "\(status)")
        let done =
            [
                "soqlSyncDown", "soqlSyncDownWithBatchSize", "soslSyncDown", "mruSyncDown", "refreshSyncDown", "layoutSyncDown",
                "metadataSyncDown", "briefcaseSyncDown", "batchSyncUp", "parentChildrenSyncUp",
            ]
            + (directory == "ios-MobileSyncTestApp" ? ["noBatchSyncUp"] : ["singleRecordSyncUp", "collectionSyncUp"])
        for name in done { #expect(states[name] == "DONE", "\(name): \(status)") }
        #expect(states.count == done.count + 1, "\(status)")
        let accounts = try user.documents("accounts")
        #expect(accounts.contains { $0["Id"] == "Account" && $0["fields"] != nil }, "the metadata sync's describe")
        #expect(accounts.contains { $0["Id"] == "Account-Medium-Compact-Edit-null" && $0["sections"] != nil }, "the layout sync's layout")
        #expect(accounts.filter { $0["attributes"]?["type"] == "Account" }.count == Self.seededAccounts, "the soql sync's records")

        let tui = try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath, "--config", config], width: 110, height: 24,
            environment: user.environment.compactMapValues { $0 })
        defer { tui.kill() }
        _ = try tui.waitFor("1 Contacts   2 Accounts   3 Syncs   4 Inspector")
        try tui.send("2")
        let accountsTab = try tui.waitFor("Accounts (\(Self.seededAccounts + 2))")
        #expect(accountsTab.contains("Account-Medium-Compact-Edit-null") && !accountsTab.contains("(no name)"), "\(accountsTab)")
        try tui.send("q")
    }

    @Test(
        "Soups without syncs (the SmartStore test app, the SDK's empty defaults): registered, and the TUI opens on Syncs and the Inspector",
        .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"),
        arguments: [("ios-SmartStoreTestApp", ["userSoup1", "userSoup2"]), ("android-lib-defaults", [])])
    func soupsWithoutSyncs(directory: String, soups: [String]) throws {
        let user = try SyncCommandTests.SignedIn()
        defer { user.remove() }
        let config = RealSalesforce.mobileSyncConfig(directory).path
        let sync = try user.forceterm(["sync", "--config", config])
        #expect(sync.exitCode == 0, "\(sync)")
        let (status, json) = try user.json(["status"])
        #expect(json["soups"]?.arrayValue?.compactMap { $0["soup"]?.stringValue }.sorted() == soups, "\(status)")
        #expect(json["syncs"]?.arrayValue?.isEmpty == true, "\(status)")
        let tui = try TmuxSession(
            command: [Forceterm.executable.path, "--store", user.storePath, "--config", config], width: 100, height: 20,
            environment: user.environment.compactMapValues { $0 })
        defer { tui.kill() }
        _ = try tui.waitFor("1 Syncs   2 Inspector")
        try tui.send("2", "o")
        let inspector = try tui.waitFor("syncs_soup")
        for soup in soups { #expect(inspector.contains(soup), "\(inspector)") }
        try tui.send("q")
    }

    @Test(
        "The global store: sync --global runs the SDK's globalsyncs.json into it, status and query --global read it, in either position; the user's store is left alone",
        .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"))
    func globalStore() throws {
        let user = try SyncCommandTests.SignedIn(accounts: Self.seededAccounts, contacts: 2)
        defer { user.remove() }
        let config = RealSalesforce.mobileSyncConfig("ios-MobileSyncTestApp").path
        let env = user.environment
        let sync = try Forceterm.run(["--global", "sync", "--config", config], environment: env)
        #expect(sync.exitCode == 0, "\(sync)")
        #expect(sync.standardError.contains("globalSync1: done 100% of \(Self.seededAccounts)"), "\(sync)")
        let global = user.root + "/data/forceterm/global.sqlite"
        #expect(FileManager.default.fileExists(atPath: global))
        #expect(try !PasscodeTests.isPlain(global) && FileManager.default.fileExists(atPath: global + ".key"), "encrypted, with a key of its own")
        for arguments in [["status", "--global", "--json"], ["--global", "status", "--json"]] {
            let status = try Forceterm.run(arguments, environment: env)
            let json = try JSONParser.parse(status.standardOutput)
            #expect(json["syncs"]?.arrayValue?.compactMap { $0["name"]?.stringValue }.sorted() == ["globalSync1", "globalSync2"], "\(status)")
        }
        let query = try Forceterm.run(["query", "SELECT count(*) FROM {accounts}", "--global", "--json"], environment: env)
        #expect(try JSONParser.parse(query.standardOutput)["rows"]?.arrayValue?.first?.arrayValue?.first == .int(Int64(Self.seededAccounts)), "\(query)")
        let own = try Forceterm.run(["status", "--json"], environment: env)
        #expect(own.exitCode == 1 && own.standardError.contains("nothing is synced yet"), "the user's own store was never made: \(own)")

        let noFile = try Forceterm.run(
            ["sync", "--global", "--config", RealSalesforce.mobileSyncConfig("templates-MobileSyncExplorerSwift").path],
            environment: env)
        #expect(noFile.exitCode == 1 && noFile.standardError.contains("has neither globalstore.json nor globalsyncs.json"), "\(noFile)")
        // The SmartStore test app's globalstore.json alone: its soups, no syncs (as a userstore.json alone).
        let soupsOnly = try Forceterm.run(
            ["sync", "--global", "--config", RealSalesforce.mobileSyncConfig("ios-SmartStoreTestApp").path],
            environment: env)
        #expect(soupsOnly.exitCode == 0, "\(soupsOnly)")
        let soups = try Forceterm.run(["status", "--global", "--json"], environment: env)
        #expect(try JSONParser.parse(soups.standardOutput)["soups"]?.arrayValue?.contains { $0["soup"] == "globalSoup1" } == true, "\(soups)")
        let builtIn = try Forceterm.run(["sync", "--global"], environment: env)
        #expect(builtIn.exitCode == 1 && builtIn.standardError.contains("no global syncs are built in"), "\(builtIn)")
        for arguments in [
            ["--global"], ["--global", "--offline"], ["logout", "--global"], ["--global", "logout"], ["login", "--global"],
            ["status", "--global", "--store", user.storePath],
        ] {
            let output = try Forceterm.run(arguments, environment: env)
            #expect(output.exitCode == 2, "\(arguments): \(output)")
        }
    }

    @Test(
        "A global store with soups and no syncs: status names the global files; list of a soup with no object points to query",
        .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"))
    func globalSoupsWithoutSyncs() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 1)
        defer { user.remove() }
        let config = RealSalesforce.mobileSyncConfig("ios-SmartStoreTestApp").path
        let env = user.environment
        #expect(try Forceterm.run(["sync", "--global", "--config", config], environment: env).exitCode == 0)
        let status = try Forceterm.run(["status", "--global"], environment: env)
        #expect(status.standardOutput.contains("No named syncs in this store: forceterm sync --global adds those of globalsyncs.json"), "\(status)")
        let list = try Forceterm.run(["list", "globalSoup1", "--global", "--config", config], environment: env)
        #expect(list.exitCode == 1, "\(list)")
        #expect(
            list.standardError.contains("globalSoup1 is a soup of this store, but no sync of the config says which Salesforce object it holds")
                && list.standardError.contains("forceterm query --store"), "\(list)")
    }

    @Test("A sync naming a field the org lacks or hides from the user syncs the other fields and says which, once")
    func aFieldTheOrgLacksIsLeftOut() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 2, contacts: 5)
        defer { user.remove() }
        let scratch = try OptionPositionTests.Scratch([
            "userstore.json": OptionPositionTests.peopleStore,
            "usersyncs.json": Self.syncDowns([
                ("broken", "people", "SELECT Id, LastName, NoSuchField__c, LastModifiedDate FROM Contact"),
                ("peopleDown", "people", "SELECT Id, FirstName, LastName, LastModifiedDate FROM Contact"),
            ]),
        ])
        defer { scratch.remove() }
        let output = try user.forceterm(["sync", "--config", scratch.path])
        #expect(output.exitCode == 0, "\(output)")
        // A real org answers a field hidden by field-level security as one it does not have.
        #expect(output.standardOutput.contains("The org hides NoSuchField__c from you: broken synced the other fields"), "\(output)")
        #expect(try user.documents("people").count == 5)
        let (status, json) = try user.json(["status"])
        let states = Dictionary(
            uniqueKeysWithValues: (json["syncs"]?.arrayValue ?? []).compactMap { sync in
                sync["name"]?.stringValue.map { ($0, sync["status"]?.stringValue ?? "") }
            })
        #expect(states == ["broken": "DONE", "peopleDown": "DONE"], "\(status)")
        let (jsonRun, summary) = try user.json(["sync", "--config", scratch.path])
        #expect(jsonRun.exitCode == 0)
        #expect(summary["syncDowns"]?["broken"]?["leftOutFields"] == ["NoSuchField__c"], "\(jsonRun)")
        #expect(summary["hiddenFields"] == [:], "said once, not on every run: \(jsonRun)")
    }

    @Test("A sync on a soup userstore.json lacks is refused at load, before any request, naming sync and soup")
    func soupMissingAtLoad() throws {
        let scratch = try OptionPositionTests.Scratch([
            "userstore.json": OptionPositionTests.peopleStore,
            "usersyncs.json": Self.syncDowns([
                ("peopleDown", "people", "SELECT Id, LastName, LastModifiedDate FROM Contact"),
                ("accountsDown", "Account", "SELECT Id, Name, LastModifiedDate FROM Account"),
            ]),
        ])
        defer { scratch.remove() }
        // Not signed in: the config is checked first, so no org is needed to hear about it.
        let output = try Forceterm.run(["sync", "--config", scratch.path], environment: scratch.environment)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.contains("\(scratch.path)/usersyncs.json does not match \(scratch.path)/userstore.json"), "\(output)")
        #expect(output.standardError.contains(#"sync "accountsDown" uses the soup "Account", which userstore.json does not define"#), "\(output)")
    }

    @Test("Several mistakes in usersyncs.json: one 'invalid syncs config', then a line per problem")
    func severalMistakesOneLineEach() throws {
        let syncs = """
            {"syncs": [
              {"syncName": "a", "syncType": "syncDown", "soupName": "people", "target": {"type": "soqlx", "query": "SELECT Id FROM Contact"}},
              {"syncName": "b", "syncType": "syncDown", "soupName": "people",
               "target": {"type": "soql", "query": "SELECT Id, LastName, LastModifiedDate FROM Contact"}, "options": {"mergeMode": "OVERWRIT"}}
            ]}
            """
        let scratch = try OptionPositionTests.Scratch(["userstore.json": OptionPositionTests.peopleStore, "usersyncs.json": syncs])
        defer { scratch.remove() }
        let output = try Forceterm.run(["sync", "--config", scratch.path], environment: scratch.environment)
        #expect(output.exitCode == 1, "\(output)")
        let lines = output.standardError.split(separator: "\n")
        #expect(output.standardError.components(separatedBy: "invalid syncs config").count == 2, "said once: \(output)")
        #expect(lines.count == 3 && lines[1].hasPrefix("  - sync \"a\"") && lines[2].hasPrefix("  - sync \"b\""), "\(output)")
        #expect(lines[2].contains("OVERWRITE or LEAVE_IF_CHANGED"), "\(output)")
    }
}
