import ArgumentParser
import ContactsApp
import ForceAPI
import ForceJSON
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
            """)

    @Flag(help: "Only send local changes.") var upOnly = false
    @Flag(help: "Only fetch the server's changes.") var downOnly = false
    @Flag(help: "Remove records deleted on the server even when that is more than half of a soup.") var forceDelete = false
    @Flag(help: "Print the summary as JSON.") var json = false
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
    }

    func run() throws {
        var exitCode: Int32 = 0
        try CommandFailure.reporting {
            // A bad config is reported first: it is the user's to fix whether or not they are signed in.
            let configuration = try SyncConfiguration.load(directory: configOptions.directory, global: globalOptions.global)
            let session = try SignedInSession.load(cacert: cacert, verbose: verbose)
            let storePath = try globalOptions.explicitPath(storeOptions) ?? session.storePath
            let store = try SmartStore(path: storePath)
            try store.setup(from: configuration.store)
            let manager = try SyncManager(store: store, remote: TestCrashPoint.wrapping(ForceClientRemote(client: session.client)))
            for notice in try SyncsSoup(store: store).apply(configuration.syncs).compactMap(\.notice) {
                StandardStreams.writeError("forceterm: \(notice)\n")
            }
            TestCrashPoint.arm(store)
            let plan = SyncRun(entries: configuration.syncs.entries, up: !downOnly, down: !upOnly, forceDelete: forceDelete,
                               unsupported: configuration.syncs.unsupported)
            let json = self.json
            let report = try AsyncCommand.run { try await plan.run(manager: manager, store: store) }
            if json {
                StandardStreams.write(JSONWriter.string(.object(report.json), pretty: true) + "\n")
            } else {
                StandardStreams.write(report.text)
            }
            if let failure = report.failure { throw ConfigError(failure) }
            if report.recordErrors > 0 || report.conflicts > 0 || !report.failedSyncs.isEmpty { exitCode = 3 }
        }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }
}

/// The signed-in user's session: saved credentials, a REST client that saves refreshed tokens,
/// and the store that belongs to this org and user.
struct SignedInSession {
    let client: ForceClient
    let storePath: String

    /// The session saved in `credentialStore` (by default the user's own, from `forceterm login`).
    static func load(cacert: String?, verbose: Bool,
                     credentialStore: CredentialStore = CredentialStore(directory: CredentialStore.defaultDirectory())) throws -> SignedInSession {
        guard let credentials = try credentialStore.load() else {
            throw ConfigError("not signed in; run forceterm login first")
        }
        let caFile = try cacert.map(CACertOption.readablePath) ?? credentials.caFile
        var configuration = TransportConfiguration(caFile: caFile)
        // One connection per composite request a sync up keeps in flight.
        configuration.workerCount = max(configuration.workerCount, SyncManager.defaultRequestConcurrency)
        let transport = CurlTransport(configuration: configuration)
        let saveRefreshed: @Sendable (OAuthCredentials) -> Void = { refreshed in
            do throws(CredentialStoreError) {
                try credentialStore.save(refreshed)
            } catch {
                StandardStreams.writeError("forceterm: warning: could not save the refreshed session (\(error))\n")
            }
        }
        let logLine: @Sendable (String) -> Void = { StandardStreams.writeError("forceterm: \($0)\n") }
        let client = ForceClient(credentials: credentials, transport: transport, onCredentialsRefreshed: saveRefreshed,
                                 requestLog: verbose ? logLine : nil)
        return SignedInSession(client: client, storePath: credentialStore.storePath(for: credentials))
    }
}

/// `userstore.json` and `usersyncs.json`: from `--config DIR` when it has them, else built in
/// (ContactsApp's copy of the repo's `config/`). The TUI and the sync commands read them here.
struct SyncConfiguration {
    let store: StoreConfig
    let syncs: SyncsConfig
    /// The usersyncs.json text, from which the edit form takes its fields.
    let syncsJSON: String

    /// Without `directory`, the built-in files. With it, its files; one it lacks is replaced as the
    /// SDK's own config sets do: no usersyncs.json means no named syncs (the SmartStore test app
    /// ships soups alone), no userstore.json means forceterm's soups (the MobileSync test app
    /// ships syncs alone, into an `accounts` soup).
    /// Where `data` stops being UTF-8 (0-based), for the message: the first byte that does not
    /// start a well-formed character.
    static func firstInvalidUTF8Byte(in data: Data) -> Int {
        let bytes = [UInt8](data)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            guard length > 0, index + length <= bytes.count,
                  String(bytes: bytes[index..<(index + length)], encoding: .utf8) != nil else { return index }
            index += length
        }
        return index
    }

    static func load(directory: String?, global: Bool = false) throws -> SyncConfiguration {
        let storeName = global ? "globalstore.json" : "userstore.json"
        let syncsName = global ? "globalsyncs.json" : "usersyncs.json"
        func file(_ name: String) throws -> (text: String, source: String)? {
            guard let directory else { return nil }
            let path = (directory as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigError("cannot read \(path); check its permissions")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                let offset = Self.firstInvalidUTF8Byte(in: data)
                throw ConfigError("\(path) is not UTF-8 text (byte \(offset) is not); save it as UTF-8")
            }
            return (text, path)
        }
        let storeFile = try file(storeName)
        let syncsFile = try file(syncsName)
        if global, syncsFile == nil {
            throw ConfigError(directory.map { "\($0) has no globalsyncs.json; give --config the directory with the SDK's globalstore.json and globalsyncs.json" }
                ?? "no global syncs are built in; give --config the directory with the SDK's globalstore.json and globalsyncs.json")
        }
        if let directory, storeFile == nil, syncsFile == nil {
            throw ConfigError("\(directory) has neither \(storeName) nor \(syncsName); give --config the directory that holds them")
        }
        let storeText = storeFile ?? (DefaultConfig.userstoreJSON, "the built-in userstore.json")
        let syncsText = syncsFile ?? (directory == nil ? (DefaultConfig.usersyncsJSON, "the built-in usersyncs.json")
                                                       : (#"{"syncs": []}"#, "no usersyncs.json"))
        let store: StoreConfig
        do {
            store = try StoreConfig(json: storeText.text)
        } catch {
            throw ConfigError("\(storeText.source) is not a valid \(storeName): \(error)")
        }
        let syncs: SyncsConfig
        do {
            syncs = try SyncsConfig(json: syncsText.text)
        } catch {
            throw ConfigError("\(syncsText.source) is not a valid \(syncsName): \(error)")
        }
        let missing = syncs.soupProblems(soups: Set(store.soups.map(\.name)))
        if !missing.isEmpty {
            throw ConfigError("\(syncsText.source) does not match \(storeText.source): " + (missing.count == 1 ? missing[0]
                : "\(missing.count) problems:\n  - " + missing.joined(separator: "\n  - ")))
        }
        return SyncConfiguration(store: store, syncs: syncs, syncsJSON: syncsText.text)
    }
}
