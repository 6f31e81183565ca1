import ArgumentParser
import ContactsApp
import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import MobileSync
import SmartStore

/// `forceterm sync`: the named syncs of `usersyncs.json` for the signed-in user's store — every
/// sync up (accounts first, so contacts can point at new accounts), then every sync down followed
/// by its ghost cleaning. Progress goes to stderr, the summary (or JSON) to stdout.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send local changes to Salesforce, then fetch the server's changes.",
        discussion: """
            Runs the named syncs from usersyncs.json (built in, or from --config DIR) against the \
            org you signed in to with forceterm login. Local changes are never lost: when the \
            network is down the sync stops and your changes stay in the store for the next run.

            Exit status: 0 all done; 1 the sync could not run or stopped (message on stderr); \
            3 it finished but some records were refused or are in conflict (see forceterm status), \
            or a named sync failed on its own (a field the org lacks, say) while the others ran.

            With --watch it stays running, for a laptop without the TUI open (a systemd user \
            service, a tmux pane): it syncs when another process saves a change, as soon as the \
            link comes back, and every [sync] interval of config.toml; failures are retried with \
            backoff. It prints a line per run (--json: an object per line) and ends on SIGTERM, \
            SIGHUP or Ctrl-C once the running sync has ended (a second signal ends it at once).
            """)

    @Flag(help: "Only send local changes.") var upOnly = false
    @Flag(help: "Only fetch the server's changes.") var downOnly = false
    @Flag(help: "Remove records deleted on the server even when that is more than half of a soup.") var forceDelete = false
    @Flag(help: "Print the summary as JSON (with --watch: one object per line, per run).") var json = false
    @Flag(help: "Stay running and sync by itself: on other processes' saves, the link's return and the [sync] interval.") var watch = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm
    @Option(help: ArgumentHelp("Trust the certificate authorities in this PEM file instead of the one saved at sign-in.", valueName: "file"))
    var cacert: String?
    @Flag(help: "Print one line per request to standard error (never tokens).") var verbose = false

    func validate() throws {
        try root.refuseOptions(except: [.store, .global, .config], in: "sync")
        _ = try globalOptions.explicitPath(storeOptions)
        if upOnly && downOnly { throw ValidationError("--up-only and --down-only exclude each other; leave both out to sync both ways.") }
        if watch && (upOnly || downOnly || forceDelete) {
            throw ValidationError("--watch syncs both ways and keeps the mass-deletion guard; leave out --up-only, --down-only and --force-delete.")
        }
    }

    func run() throws {
        if watch { return try runWatching() }
        var exitCode: Int32 = 0
        try CommandFailure.reporting {
            // A bad config is reported first: it is the user's to fix whether or not they are signed in.
            let configuration = try SyncConfiguration.load(directory: configOptions.directory, global: globalOptions.global)
            for note in configuration.syncs.notes { StandardStreams.writeError("forceterm: note: \(note)\n") }
            let session = try SignedInSession.load(cacert: cacert, verbose: verbose)
            let storePath = try globalOptions.explicitPath(storeOptions) ?? session.storePath
            let store = try StoreKeys.open(storePath)
            try StoreOrigin.claim(store, at: storePath, for: session)
            try store.setup(from: configuration.store)
            // The sync lock is waited for a moment: forceterm status takes it for an instant to
            // see whether a sync runs, and must never make one fail.
            let client = try StoreDevice.naming(session.client, store: store)
            let manager = try SyncManager(
                store: store, remote: TestCrashPoint.wrapping(ForceClientRemote(client: client)),
                lockTimeout: SyncManager.briefLockWait,
                pagesInFlight: session.pagesInFlight)
            for notice in try SyncsSoup(store: store).apply(configuration.syncs).compactMap(\.notice) {
                StandardStreams.writeError("forceterm: \(notice)\n")
            }
            TestCrashPoint.arm(store)
            // The config's syncs, then the subscriptions made at run time (forceterm subscribe).
            var plan = SyncRun(
                entries: configuration.syncs.entries + (try SyncsSoup(store: store).subscriptionEntries()), up: !downOnly, down: !upOnly, forceDelete: forceDelete,
                unsupported: configuration.syncs.unsupported)
            plan.onRerun = { StandardStreams.writeError("\($0)\n") }
            let json = self.json
            let run = plan
            let report = try AsyncCommand.run { try await run.run(manager: manager, store: store) }
            let network = session.client.transferStatistics
            session.client.shutdown()
            if json {
                var summary = report.json
                summary["network"] = .object([
                    "requests": .int(Int64(network.requests)), "connectionsOpened": .int(Int64(network.connectionsOpened)),
                    "bodyBytesSent": .int(Int64(network.bytesSent)), "bodyBytesReceived": .int(Int64(network.bytesReceived)),
                ])
                StandardStreams.write(JSONWriter.string(.object(summary), pretty: true) + "\n")
            } else if report.failure == nil || report.hasNews {
                // A run stopped before anything moved (another sync holds the store, no network)
                // is said by its failure alone, not by a summary of zeros that reads as success.
                StandardStreams.write(report.text)
            }
            if verbose {
                StandardStreams.writeError(
                    "forceterm: \(network.requests) request(s) over \(network.connectionsOpened) connection(s); "
                        + "bodies \(network.bytesSent) bytes sent, \(network.bytesReceived) received (as sent, compressed)\n")
            }
            if let failure = report.failure { throw ConfigError(failure) }
            if report.recordErrors > 0 || report.conflicts > 0 || !report.failedSyncs.isEmpty { exitCode = 3 }
        }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    /// `--watch`: the TUI's automatic sync without the TUI, until a stop signal.
    private func runWatching() throws {
        try CommandFailure.reporting {
            let configuration = try SyncConfiguration.load(directory: configOptions.directory, global: globalOptions.global)
            for note in configuration.syncs.notes { StandardStreams.writeError("forceterm: note: \(note)\n") }
            // Signed in now, or said at once; each run reads the session again (a login elsewhere counts).
            let session = try SignedInSession.load(cacert: cacert, verbose: verbose)
            let storePath = try globalOptions.explicitPath(storeOptions) ?? session.storePath
            let (store, storeKey) = try StoreKeys.openWithKey(storePath)
            try StoreOrigin.claim(store, at: storePath, for: session)
            try store.setup(from: configuration.store)
            let (settings, problem) = UserSettings.load(path: UserSettings.path())
            if let problem { StandardStreams.writeError("forceterm: \(problem)\n") }
            // Asked for by name: [sync] auto = false keeps the TUI to s, not the watch.
            var automatic = settings.automaticSync
            automatic.enabled = true
            let (made, listener, notices) = try TUILauncher.syncController(
                store: store, config: configuration, options: TUIPreferences(),
                session: cacert == nil ? nil : session, storeKey: storeKey, automatic: automatic)
            for notice in notices { StandardStreams.writeError("forceterm: \(notice)\n") }
            guard let controller = made else { throw ConfigError("this store cannot be synced") }
            if !json {
                StandardStreams.writeError(
                    "forceterm: watching \(storePath); syncs every \(Int(automatic.interval)) s"
                        + (automatic.serverPush ? ", on local changes and on the org's announced changes; " : " and on local changes; ")
                        + "SIGTERM, SIGHUP or Ctrl-C ends it\n")
            }
            let json = self.json
            listener?.start()
            _ = SyncWatch(store: store, controller: controller).run { run in
                StandardStreams.write(json ? SyncWatch.json(run) + "\n" : SyncWatch.text(run))
            }
            listener?.stop()
            controller.close()
            session.client.shutdown()
        }
    }
}
