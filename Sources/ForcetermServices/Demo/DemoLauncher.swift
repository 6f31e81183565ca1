import ContactsApp
import ForceAPI
import Foundation
import MobileSync
import SmartStore
import TerminalUI

/// `forceterm --demo`: runs `localorg` as a child process on 127.0.0.1 with demo data, signs in as
/// the demo user (password flow) and opens the TUI with `s` live against that org, its first sync
/// already running in the background (not when an earlier demo left local changes: those wait for
/// `s`). The server is stopped when the TUI ends, however it ends (q, SIGTERM, SIGHUP, an error);
/// if forceterm itself is killed, the server notices and stops.
public enum DemoLauncher {
    /// The demo user localorg creates in every new org.
    public static let username = "demo@localorg.test"
    public static let password = "localorg-demo"
    public static let accountCount = 50
    public static let contactCount = 500

    public static func run(demo: DemoRequest, configDirectory: String?, tui: TUIPreferences) throws {
        let program = try LocalOrgProgram.locate()
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw NcursesScreenError.notATerminal }
        let directory = DemoDirectory()
        if demo.reset {
            say(try directory.reset() ? "Removed the previous demo state (--reset)." : "No previous demo state to remove (--reset); starting fresh.")
        }
        let reused = FileManager.default.fileExists(atPath: directory.orgPath + "/org.sqlite")
        try directory.create()
        say(
            reused
                ? "Demo state in \(directory.path), kept from the last run (--reset starts over)."
                : "Demo state in \(directory.path).")
        if !reused { say("Creating the demo org with \(accountCount) accounts and \(contactCount) contacts...") }
        try program.run(
            ["seed", "--demo", "--data", directory.orgPath, "--accounts", "\(accountCount)", "--contacts", "\(contactCount)", "--if-empty"],
            log: directory.serverLog, truncate: true)
        let server = try program.serve(
            dataDirectory: directory.orgPath, port: demo.port ?? 0,
            latencyMilliseconds: demo.latencyMilliseconds ?? 0, log: directory.serverLog)
        defer { server.stop() }
        say("localorg is serving \(server.url) (its requests: \(directory.serverLog)).")
        let session = try signIn(to: server, directory: directory)
        let queued = try queuedChanges(session: session, configDirectory: configDirectory)
        var listCommand = [Self.forcetermPath(), "list", "contacts", "--store", session.storePath]
        if let configDirectory { listCommand += ["--config", configDirectory] }
        let help = DemoHelp(
            url: server.url, username: username, password: password, caFile: directory.caFile, serverLog: directory.serverLog,
            localorgPath: program.path, orgDirectory: directory.orgPath, listCommand: listCommand, script: directory.serverChangeScript)
        try help.scriptText.write(toFile: directory.serverChangeScript, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.serverChangeScript)
        say("To change a contact on the server from another terminal: sh \(ShellCommand.quoted(ShellCommand.typed(directory.serverChangeScript)))")
        defer { say("The demo org stopped with forceterm; forceterm --demo starts it again (--reset starts over).") }
        say(
            queued > 0
                ? "Opening forceterm: \(queued) local change\(queued == 1 ? "" : "s") from the last demo wait for s (? shows how to reach the demo org)."
                : "Opening forceterm; its first sync runs in the background (? shows how to reach the demo org).")
        try TUILauncher.run(
            store: StoreLocation(explicitPath: session.storePath), configDirectory: configDirectory, options: tui, session: session,
            helpNotes: help.notes, syncOnOpen: queued == 0)
    }

    /// The demo user's session, saved in the demo directory (never over the user's own).
    public static func signIn(to server: RunningLocalOrg, directory: DemoDirectory) throws -> SignedInSession {
        say("Signing in as \(username)...")
        let caFile = directory.caFile
        let oauth = OAuthClient(loginURL: server.url, transport: CurlTransport(configuration: TransportConfiguration(caFile: caFile)))
        let credentials = directory.credentials
        try AsyncCommand.run {
            let token = try await oauth.signIn(username: username, password: Secret(password))
            let identity = try await oauth.identity(of: token)
            try credentials.save(OAuthCredentials(loginURL: oauth.loginURL, clientId: oauth.clientId, token: token, identity: identity, caFile: caFile))
        }
        return try SignedInSession.load(cacert: nil, verbose: false, credentialStore: credentials)
    }

    /// The local changes an earlier demo left in the demo store (its soups set up on the way):
    /// with none, the TUI's first sync runs at once; with some, they wait for `s`.
    public static func queuedChanges(session: SignedInSession, configDirectory: String?) throws -> Int {
        let configuration = try SyncConfiguration.load(directory: configDirectory)
        try StoreKeys.createKeyFile(forStore: session.storePath)
        try StoreKeys.open(session.storePath).setup(from: configuration.store)
        return try LocalChanges.count(storePath: session.storePath).total
    }

    /// This program's own path, for the script's `forceterm list`.
    static func forcetermPath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A progress line on stderr, before the TUI takes the terminal.
    public static func say(_ line: String) {
        StandardStreams.writeError("forceterm --demo: \(line)\n")
    }
}
