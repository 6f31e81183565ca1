import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// The options the root command shares with its subcommands (`--store`, `--config`), written before
/// or after the subcommand's name, and the root's own options given to a subcommand that does not
/// read them. Through the built binary: `sync --config DIR` was once parsed by the root command
/// and silently ignored, and only the TUI's `--config` had ever been exercised.
@Suite("Options in every position", .serialized)
struct OptionPositionTests {
    /// A scratch directory with files in it, removed by `remove()`.
    struct Scratch {
        let path: String

        init(_ files: [String: String] = [:]) throws {
            path = NSTemporaryDirectory() + "forceterm-options-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for (name, text) in files { try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8) }
        }

        var environment: [String: String?] { ["XDG_DATA_HOME": path + "/data", "XDG_CONFIG_HOME": path + "/config"] }
        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    /// One `people` soup and two syncs whose names are not the built-in ones, so a run shows
    /// whether this file or the built-in one was read.
    static let peopleStore =
        #"{"soups": [{"soupName": "people", "indexes": [{"path": "Id", "type": "string"}, {"path": "LastName", "type": "string"}, {"path": "LastModifiedDate", "type": "string"}, {"path": "__local__", "type": "string"}]}]}"#
    static let peopleSyncs = #"""
        {"syncs": [
          {"syncName": "peopleDown", "syncType": "syncDown", "soupName": "people",
           "target": {"type": "soql", "query": "SELECT Id, FirstName, LastName, LastModifiedDate FROM Contact"},
           "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "peopleUp", "syncType": "syncUp", "soupName": "people",
           "target": {"createFieldlist": ["FirstName", "LastName"], "updateFieldlist": ["FirstName", "LastName"]},
           "options": {"fieldlist": ["FirstName", "LastName"], "mergeMode": "LEAVE_IF_CHANGED"}}
        ]}
        """#

    @Test("sync --config DIR is read before and after the subcommand's name and after other options; a bad file fails naming it")
    func syncConfigInEveryPosition() throws {
        let config = try Scratch(["usersyncs.json": #"{"syncs": 5}"#])
        defer { config.remove() }
        for arguments in [
            ["sync", "--config", config.path], ["--config", config.path, "sync"], ["sync", "--up-only", "--config", config.path, "--json"],
            ["--config=\(config.path)", "sync", "--down-only"],
        ] {
            let output = try Forceterm.run(arguments, environment: config.environment)
            #expect(output.exitCode == 1, "\(arguments): \(output)")
            #expect(output.standardError.contains(config.path + "/usersyncs.json is not a valid usersyncs.json"), "\(arguments): \(output)")
        }
    }

    @Test("--config naming no directory is a usage error (exit 2) for sync, login and the TUI, not a fall-back to the built-in files")
    func configThatIsNoDirectory() throws {
        let scratch = try Scratch(["file.json": "{}"])
        defer { scratch.remove() }
        let missing = scratch.path + "/missing"
        for arguments in [["sync", "--config", missing], ["--config", missing, "sync"], ["login", "--config", missing], ["--config", missing]] {
            let output = try Forceterm.run(arguments, environment: scratch.environment)
            #expect(output.exitCode == 2, "\(arguments): \(output)")
            #expect(output.standardError.contains("--config \(missing): no such directory"), "\(arguments): \(output)")
        }
        let file = try Forceterm.run(["sync", "--config", scratch.path + "/file.json"], environment: scratch.environment)
        #expect(file.exitCode == 2 && file.standardError.contains("is a file; give the directory that holds it"), "\(file)")
    }

    @Test("The root's TUI and demo options, and options a subcommand does not read, are refused by name (exit 2)")
    func rootOptionsASubcommandDoesNotRead() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let tuiOptions = [
            ["--offline"], ["--ascii"], ["--no-color"], ["--demo"], ["--demo", "--reset"], ["--demo", "--demo-port", "9000"],
            ["--demo", "--demo-latency", "100"],
        ]
        for subcommand in [["sync"], ["status"], ["query", "SELECT 1"], ["login"], ["logout"]] {
            for option in tuiOptions {
                let output = try Forceterm.run(option + subcommand, environment: scratch.environment)
                #expect(output.exitCode == 2, "\(option + subcommand): \(output)")
                #expect(
                    output.standardError.contains("forceterm \(subcommand[0]) does not take \(option[0]): it is an option of the terminal UI"),
                    "\(option + subcommand): \(output)")
            }
        }
        for subcommand in [["status"], ["query", "SELECT 1"], ["logout"]] {
            for arguments in [["--config", scratch.path] + subcommand, subcommand + ["--config", scratch.path]] {
                let output = try Forceterm.run(arguments, environment: scratch.environment)
                #expect(output.exitCode == 2 && output.standardError.contains("does not take --config: it reads the store only"), "\(arguments): \(output)")
            }
        }
        for arguments in [["--store", scratch.path + "/s.sqlite", "login"], ["login", "--store", scratch.path + "/s.sqlite"]] {
            let output = try Forceterm.run(arguments, environment: scratch.environment)
            #expect(output.exitCode == 2, "\(arguments): \(output)")
        }
    }

    @Test("--store before the subcommand's name opens that store, as after it")
    func storeBeforeTheSubcommand() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = scratch.path + "/elsewhere.sqlite"
        for arguments in [["--store", store, "status"], ["status", "--store", store], ["--store", store, "query", "SELECT 1"]] {
            let output = try Forceterm.run(arguments, environment: scratch.environment)
            #expect(output.exitCode == 1 && output.standardError.contains("no store at \(store)"), "\(arguments): \(output)")
        }
    }

    @Test("sync --config with a valid directory runs that file's syncs into its soups, in either position, and the built-in ones never")
    func syncRunsTheConfiguredSyncs() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 2, contacts: 7)
        defer { user.remove() }
        let config = try Scratch(["userstore.json": Self.peopleStore, "usersyncs.json": Self.peopleSyncs])
        defer { config.remove() }
        let before = try Forceterm.run(["--config", config.path, "sync", "--store", user.storePath, "--json"], environment: user.environment)
        #expect(before.exitCode == 0, "\(before)")
        #expect(before.standardError.contains("peopleDown: done 100% of 7"), "\(before)")
        #expect(try user.documents("people").count == 7)
        let after = try Forceterm.run(["sync", "--store", user.storePath, "--config", config.path], environment: user.environment)
        #expect(after.exitCode == 0 && after.standardError.contains("peopleDown: done"), "\(after)")
        #expect(!after.standardError.contains("changed in usersyncs.json"), "\(after)")
        let (status, json) = try user.json(["status"])
        let names = json["syncs"]?.arrayValue?.compactMap { $0["name"]?.stringValue }.sorted()
        #expect(names == ["peopleDown", "peopleUp"], "\(status)")

        // A changed definition is applied and said, never silently.
        try Self.peopleSyncs.replacingOccurrences(of: #""mergeMode": "OVERWRITE""#, with: #""mergeMode": "LEAVE_IF_CHANGED""#)
            .write(toFile: config.path + "/usersyncs.json", atomically: true, encoding: .utf8)
        let options = try Forceterm.run(["sync", "--store", user.storePath, "--config", config.path], environment: user.environment)
        #expect(options.exitCode == 0, "\(options)")
        #expect(
            options.standardError.contains("sync peopleDown changed in usersyncs.json (mergeMode OVERWRITE → LEAVE_IF_CHANGED): it keeps its place"),
            "\(options)")
        try Self.peopleSyncs.replacingOccurrences(of: "LastModifiedDate FROM Contact", with: "LastModifiedDate, Title FROM Contact")
            .write(toFile: config.path + "/usersyncs.json", atomically: true, encoding: .utf8)
        let query = try Forceterm.run(["sync", "--store", user.storePath, "--config", config.path], environment: user.environment)
        #expect(query.exitCode == 0, "\(query)")
        #expect(
            query.standardError.contains("sync peopleDown changed in usersyncs.json (target query; mergeMode LEAVE_IF_CHANGED → OVERWRITE): it starts over and fetches every record again"),
            "\(query)")
    }

    @Test("login --config DIR reads DIR/bootconfig.json in either position: an unknown consumer key is refused naming the file")
    func loginConfigInEitherPosition() throws {
        let server = try LocalOrgProcess()
        defer { server.remove() }
        let config = try Scratch(["bootconfig.json": #"{"remoteAccessConsumerKey": "3MVG9madeUpKey", "oauthRedirectURI": "testsfdc:///mobilesdk/detect/oauth/done", "oauthScopes": ["api", "web"]}"#])
        defer { config.remove() }
        let login = ["--username", "demo@localorg.test", "--password-stdin", "--login-url", server.url, "--cacert", server.caFile]
        for arguments in [["login", "--config", config.path] + login, ["--config", config.path, "login"] + login, ["login"] + login + ["--config", config.path]] {
            let output = try ChildProcess.run(Forceterm.executable, arguments, environment: config.environment, input: "localorg-demo\n")
            #expect(output.exitCode == 1, "\(arguments): \(output)")
            #expect(
                output.standardError.contains("the org does not know the consumer key 3MVG9madeUpKey (remoteAccessConsumerKey in \(config.path)/bootconfig.json)"),
                "\(arguments): \(output)")
        }
        let plain = try ChildProcess.run(Forceterm.executable, ["login"] + login, environment: config.environment, input: "localorg-demo\n")
        #expect(plain.exitCode == 0, "\(plain)")
    }
}
