import ForceJSON
import Foundation
import LocalOrgProcess
import MobileSync
import SmartStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `forceterm sync` and `status` as built binaries, signed in to a real localorg over HTTPS.
@Suite("forceterm sync and status", .serialized)
struct SyncCommandTests {
    /// A signed-in user with a private XDG home and an explicit store file.
    final class SignedIn {
        let server: LocalOrgProcess
        let root: String
        var storePath: String { root + "/store.sqlite" }
        var environment: [String: String?] { ["XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config"] }

        init(serverArguments: [String] = [], accounts: Int = 0, contacts: Int = 0) throws {
            server = try LocalOrgProcess(arguments: serverArguments)
            root = NSTemporaryDirectory() + "forceterm-sync-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            if accounts + contacts > 0 {
                try server.command(["seed", "--accounts", String(accounts), "--contacts", String(contacts)])
            }
            let login = try ChildProcess.run(
                Forceterm.executable,
                [
                    "login", "--username", "demo@localorg.test", "--password-stdin",
                    "--login-url", server.url, "--cacert", server.caFile,
                ],
                environment: environment, input: "localorg-demo\n")
            guard login.exitCode == 0 else { throw LocalOrgProcessError("login failed: \(login)") }
            // The TUI tests of `s` drive each sync by hand; the automatic syncs' own tests say otherwise.
            try writeSettings("[sync]\nauto = false\n")
        }

        /// This user's config.toml.
        func writeSettings(_ text: String) throws {
            let directory = root + "/config/forceterm"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try text.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        }

        func remove() {
            server.remove()
            try? FileManager.default.removeItem(atPath: root)
        }

        func forceterm(_ arguments: [String]) throws -> CommandOutput {
            try Forceterm.run(arguments + ["--store", storePath], environment: environment)
        }

        func json(_ arguments: [String]) throws -> (CommandOutput, JSONValue) {
            let output = try forceterm(arguments + ["--json"])
            return (output, (try? JSONParser.parse(output.standardOutput)) ?? .null)
        }

        /// Marks a stored record as edited locally, as the app does (`LocalEdit`: the flags and the
        /// base of each changed field).
        func editLocally(_ soup: String, where field: String, is value: String, _ changes: JSONObject, delete: Bool = false) throws {
            let store = try SmartStore.asForcetermOpensIt(storePath)
            let rows = try store.query(.exact(soup, path: field, matchKey: .string(value)))
            let current = try #require(rows.first?.objectValue)
            var record = LocalEdit.updated(current, fields: changes) ?? current
            if delete { record = LocalEdit.deleted(record) }
            _ = try store.update(record, id: try #require(record["_soupEntryId"]?.int64Value), in: soup)
        }

        func createLocally(_ soup: String, type: String, _ fields: JSONObject) throws {
            let store = try SmartStore.asForcetermOpensIt(storePath)
            var record: JSONObject = ["attributes": ["type": .string(type)]]
            for (key, value) in fields { record[key] = value }
            for (flag, value) in [("__local__", true), ("__locally_created__", true), ("__locally_updated__", false), ("__locally_deleted__", false)] {
                record[flag] = .bool(value)
            }
            _ = try store.create(record, in: soup)
        }

        /// The TUI on this user's store, in a tmux session of its own.
        func tui(width: Int = 120, height: Int = 40) throws -> TmuxSession {
            try TmuxSession(
                command: [Forceterm.executable.path, "--store", storePath], width: width, height: height,
                environment: environment.compactMapValues { $0 })
        }

        func documents(_ soup: String) throws -> [JSONObject] {
            let store = try SmartStore.asForcetermOpensIt(storePath)
            return try store.query(.all(soup, orderPath: SmartStore.soupEntryId, pageSize: 100_000)).compactMap(\.objectValue)
        }
    }

    @Test("sync fetches the org, sends local changes and status reports them; exit 0")
    func syncAndStatus() throws {
        let user = try SignedIn(accounts: 3, contacts: 12)
        defer { user.remove() }
        let (first, summary) = try user.json(["sync"])
        #expect(first.exitCode == 0, "\(first)")
        #expect(summary["received"] == 15, "\(first)")
        #expect(first.standardError.contains("syncDownContacts: done 100%"), "\(first)")
        #expect(try user.documents("contacts").count == 12)

        let someone = try #require(try user.documents("contacts").first?["Id"]?.stringValue)
        try user.editLocally("contacts", where: "Id", is: someone, ["Title": "Edited offline"])
        try user.createLocally("contacts", type: "Contact", ["LastName": "Newcomer"])
        let (pending, status) = try user.json(["status"])
        #expect(pending.exitCode == 0, "\(pending)")
        let contacts = try #require(status["soups"]?.arrayValue?.first { $0["soup"] == "contacts" })
        #expect(contacts["pending"] == 2 && contacts["created"] == 1 && contacts["updated"] == 1, "\(pending)")

        let second = try user.forceterm(["sync"])
        #expect(second.exitCode == 0, "\(second)")
        #expect(second.standardOutput.contains("Sent 2 changes (1 created, 1 updated, 0 deleted)"), "\(second)")
        let (_, after) = try user.json(["status"])
        #expect(after["soups"]?.arrayValue?.allSatisfy { $0["pending"] == 0 } == true)
        let syncs = try #require(after["syncs"]?.arrayValue)
        #expect(syncs.count == 6 && syncs.allSatisfy { $0["status"] == "DONE" && $0["lastRun"] != .null })
        #expect(try user.documents("contacts").count == 13)
    }

    @Test("status of a store without soups or syncs says so and what fills it, never an empty line")
    func statusOfAnEmptyStore() throws {
        let scratch = try OptionPositionTests.Scratch()
        defer { scratch.remove() }
        let path = scratch.path + "/empty.sqlite"
        _ = try SmartStore(path: path)
        let output = try Forceterm.run(["status", "--store", path], environment: scratch.environment)
        #expect(output.exitCode == 0, "\(output)")
        #expect(
            output.standardOutput == """
                No soups in this store yet: forceterm sync registers those of userstore.json.
                No named syncs in this store: forceterm sync adds those of usersyncs.json, if it has any.

                """, "\(output)")
    }

    @Test("sync --verbose prints a line per request on stderr and never a token; --cacert replaces the CA saved at sign-in")
    func verboseAndCACert() throws {
        let user = try SignedIn(accounts: 1, contacts: 2)
        defer { user.remove() }
        let verbose = try user.forceterm(["sync", "--verbose"])
        #expect(verbose.exitCode == 0, "\(verbose)")
        let requests = verbose.standardError.split(separator: "\n").filter { $0.hasPrefix("forceterm: GET ") || $0.hasPrefix("forceterm: POST ") }
        #expect(requests.contains { $0.contains("/query") }, "\(verbose)")
        let saved = try String(contentsOfFile: user.root + "/data/forceterm/credentials.json", encoding: .utf8)
        let token = try #require(saved.components(separatedBy: "\"accessToken\"").last?.split(separator: "\"").dropFirst().first)
        #expect(token.count > 20 && !verbose.standardError.contains(token) && !verbose.standardOutput.contains(token))

        let wrongCA = user.root + "/other-ca.pem"
        let other = try LocalOrgProcess()
        defer { other.remove() }
        try FileManager.default.copyItem(atPath: other.caFile, toPath: wrongCA)
        let refused = try user.forceterm(["sync", "--cacert", wrongCA])
        #expect(refused.exitCode == 1 && refused.standardError.contains("--cacert"), "\(refused)")
        let trusted = try user.forceterm(["sync", "--cacert", user.server.caFile])
        #expect(trusted.exitCode == 0, "\(trusted)")
        let missing = try user.forceterm(["sync", "--cacert", user.root + "/nope.pem"])
        #expect(missing.exitCode != 0 && missing.standardError.contains("nope.pem"), "\(missing)")
    }

    @Test("A conflict finishes the sync with exit 3 and shows in status")
    func conflictExitsWith3() throws {
        let user = try SignedIn(contacts: 2)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let id = try #require(try user.documents("contacts").first?["Id"]?.stringValue)
        usleep(1_100_000)  // whole-second modification times: the server edit must be newer
        try user.server.command(["edit", "Contact", id, "Title=From the server"])
        try user.editLocally("contacts", where: "Id", is: id, ["Title": "From me"])
        let sync = try user.forceterm(["sync"])
        #expect(sync.exitCode == 3, "\(sync)")
        #expect(sync.standardOutput.contains("1 conflict"), "\(sync)")
        #expect(sync.standardOutput.contains("Sent 1 change (0 created, 0 updated, 0 deleted, 1 in conflict)"), "\(sync)")
        let status = try user.forceterm(["status"])
        #expect(status.standardOutput.contains("conflict on entry"), "\(status)")
        #expect(try user.documents("contacts").first { $0["Id"]?.stringValue == id }?["Title"] == "From me")
    }

    @Test("Offline: exit 1 with a one-line reason; the local change stays pending")
    func offline() throws {
        let user = try SignedIn(contacts: 1)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let id = try #require(try user.documents("contacts").first?["Id"]?.stringValue)
        try user.editLocally("contacts", where: "Id", is: id, ["Title": "Offline edit"])
        user.server.stop()
        let sync = try user.forceterm(["sync"])
        #expect(sync.exitCode == 1, "\(sync)")
        #expect(sync.standardError.contains("cannot connect to Salesforce") && sync.standardError.contains("is the server running"), "\(sync)")
        #expect(sync.standardError.contains("Local changes are kept"), "\(sync)")
        let (_, status) = try user.json(["status"])
        #expect(status["soups"]?.arrayValue?.first { $0["soup"] == "contacts" }?["pending"] == 1)
    }

    @Test("An untrusted certificate is not reported as offline: exit 1 naming TLS and --cacert")
    func untrustedCertificate() throws {
        let user = try SignedIn(contacts: 1)
        let stranger = try LocalOrgProcess()
        defer {
            user.remove()
            stranger.remove()
        }
        let sync = try user.forceterm(["sync", "--cacert", stranger.caFile])
        #expect(sync.exitCode == 1, "\(sync)")
        #expect(sync.standardError.contains("no trusted connection") && sync.standardError.contains("--cacert"), "\(sync)")
        #expect(!sync.standardError.contains("cannot reach"), "\(sync)")
    }

    @Test("Not signed in: exit 1 telling the user to log in")
    func notSignedIn() throws {
        let root = NSTemporaryDirectory() + "forceterm-sync-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let output = try Forceterm.run(["sync", "--store", root + "/store.sqlite"], environment: ["XDG_DATA_HOME": root + "/data"])
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.contains("forceterm login"), "\(output)")
    }

    @Test("The mass-deletion guard stops ghost cleaning with exit 1; --force-delete confirms")
    func massDeletionGuard() throws {
        let user = try SignedIn(contacts: 24)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        for record in try user.documents("contacts").prefix(16) {
            try user.server.command(["delete", "Contact", try #require(record["Id"]?.stringValue)])
        }
        let guarded = try user.forceterm(["sync"])
        #expect(guarded.exitCode == 1, "\(guarded)")
        #expect(guarded.standardError.contains("--force-delete"), "\(guarded)")
        #expect(try user.documents("contacts").count == 24)
        let forced = try user.forceterm(["sync", "--force-delete"])
        #expect(forced.exitCode == 0, "\(forced)")
        #expect(try user.documents("contacts").count == 8)
    }

    @Test("A sync killed (SIGKILL) mid-way and run again ends with every record sent once")
    func killedAndRerun() throws {
        let user = try SignedIn(serverArguments: ["--latency", "150"])
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        for index in 0..<30 { try user.createLocally("contacts", type: "Contact", ["LastName": .string("Crash \(index)")]) }
        // Kill at different moments of the run: before, during and after the create request.
        for delay in [100_000, 400_000, 700_000, 1_000_000] as [useconds_t] {
            let process = Process()
            process.executableURL = Forceterm.executable
            process.arguments = ["sync", "--store", user.storePath]
            var environment = ProcessInfo.processInfo.environment
            for (name, value) in user.environment { environment[name] = value }
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let final = try user.forceterm(["sync"])
        #expect(final.exitCode == 0, "\(final)")
        let contacts = try user.documents("contacts")
        #expect(contacts.count == 30)
        #expect(contacts.allSatisfy { $0["__local__"] == false && ($0["Id"]?.stringValue?.hasPrefix("003") ?? false) }, "\(contacts)")
        #expect(Set(contacts.compactMap { $0["Id"]?.stringValue }).count == 30)
        // The server has each record exactly once: a fresh store fetches the same 30.
        let fresh = try Forceterm.run(["sync", "--down-only", "--json", "--store", user.root + "/fresh.sqlite"], environment: user.environment)
        #expect((try? JSONParser.parse(fresh.standardOutput))?["received"] == 30, "\(fresh)")
    }

    /// LastName and Title of every record of a soup, sorted: a store's content without its ids.
}
