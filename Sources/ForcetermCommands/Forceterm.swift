import ArgumentParser
import ForcetermServices
import Foundation
import Synchronization

/// The `forceterm` command: with no subcommand, the terminal UI; otherwise one of the subcommands.
public struct Forceterm: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "forceterm",
        abstract: "An offline terminal client for your Salesforce contacts and accounts.",
        discussion: """
            forceterm keeps your contacts and accounts in a local store so you can work without a \
            network, and syncs your changes when you are back online. The store lives in \
            $XDG_DATA_HOME/forceterm/store.sqlite (or ~/.local/share/forceterm/store.sqlite); \
            --store points at another one.
            """,
        version: "forceterm \(Forceterm.version)",
        subcommands: [
            QueryCommand.self, ListCommand.self, ShowCommand.self, AddressesCommand.self,
            CreateCommand.self, UpdateCommand.self, DeleteCommand.self, ImportCommand.self, ExportCommand.self,
            LoginCommand.self, LogoutCommand.self, SyncCommand.self, StatusCommand.self,
            ResolveCommand.self, SubscribeCommand.self, UnsubscribeCommand.self, SubscriptionsCommand.self,
            PasscodeCommand.self, UnlockCommand.self, LockCommand.self, AsideCommand.self,
        ])

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @OptionGroup var tuiOptions: TUIOptions
    @OptionGroup var demoOptions: DemoOptions

    public init() {}

    public func validate() throws {
        if demoOptions.demo {
            if storeOptions.storePath != nil { throw ValidationError("--demo uses its own store; leave out --store.") }
            if tuiOptions.offline { throw ValidationError("--demo and --offline exclude each other: the demo runs its own org on this machine.") }
        }
    }

    public func run() throws {
        // Here, not in validate(): the root's validate() also runs before a subcommand's.
        if globalOptions.global {
            throw ValidationError("the terminal UI shows your own store; the global store is for forceterm sync, status and query --global.")
        }
        try CommandFailure.reporting {
            if demoOptions.demo {
                try DemoLauncher.run(demo: demoOptions.request, configDirectory: configOptions.directory, tui: tuiOptions.preferences)
            } else {
                // No note that a --store file is unencrypted here: the screen would wipe it at once.
                try TUILauncher.run(store: StoreLocation(explicitPath: storeOptions.storePath), configDirectory: configOptions.directory, options: tuiOptions.preferences)
            }
        }
    }

    /// ArgumentParser's own entry point, except that usage errors exit with 2 as the design's
    /// command-line contract says (ArgumentParser uses 64, EX_USAGE), and that the process ends
    /// through `endProcess`.
    public static func main() {
        var status: Int32 = 0
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            // The services' usage errors read as ArgumentParser's own.
            let error: any Error = (error as? UsageError).map { ValidationError($0.message) } ?? error
            var code = exitCode(for: error)
            if code == .validationFailure { code = ExitCode(usageErrorExitCode) }
            let message = fullMessage(for: error)
            if !message.isEmpty {
                if code.isSuccess { StandardStreams.write(message + "\n") } else { StandardStreams.writeError(message + "\n") }
            }
            status = code.rawValue
        }
        endProcess(status)
    }

    /// Ends the process without running exit handlers. libcurl's worker threads may still be
    /// closing TLS connections when a command returns, and OpenSSL's exit handler freeing the same
    /// state crashed finished syncs and logins ("double free or corruption", SIGSEGV in libcrypto).
    /// Nothing is lost: every store write is committed when it is made (SQLite's WAL needs no
    /// close), the TUI restores the terminal before returning, and output is flushed here.
    static func endProcess(_ status: Int32) -> Never {
        fflush(nil)  // every output stream
        _exit(status)
    }

    static let usageErrorExitCode: Int32 = 2

    /// The release: the Makefile's VERSION, which a test checks every executable prints.
    static let version = "0.22.0"
}

/// Options every command that opens the store understands, before or after the subcommand's name.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The store file to use instead of the default one.",
            discussion: "Default: $XDG_DATA_HOME/forceterm/store.sqlite, or ~/.local/share/forceterm/store.sqlite.",
            valueName: "path"),
        completion: .file(extensions: ["sqlite", "db"]))
    var storePath: String?

    func validate() throws {
        if storePath?.isEmpty == true { throw ValidationError("--store needs the path of a store file.") }
    }

    var location: StoreLocation {
        if let storePath { UnencryptedStoreNotice.sayOnce(about: storePath) }
        return StoreLocation(explicitPath: storePath)
    }
}

/// Says once per run, on stderr, that a store named with `--store` is not encrypted.
enum UnencryptedStoreNotice {
    private static let said = Mutex<Set<String>>([])

    static func sayOnce(about path: String) {
        guard said.withLock({ $0.insert(path).inserted }), let note = StoreKeys.unencryptedNote(forExplicitStore: path) else { return }
        StandardStreams.writeError("forceterm: \(note)\n")
    }
}

/// `--global` for `sync`, `status` and `query` (and the root command, which refuses it): the store
/// shared by every Salesforce user who signs in on this account, the SDK's global store. Same
/// property name everywhere, for the reason `ConfigOptions` gives.
struct GlobalStoreOptions: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "Use the global store: one shared by every Salesforce user who signs in on this account (the SDK's globalstore.json and globalsyncs.json).",
            discussion: "It lives in $XDG_DATA_HOME/forceterm/global.sqlite; sync --global reads the two files from --config DIR."))
    var global = false

    /// The store `--store` or `--global` names; nil for the default one.
    func explicitPath(_ store: StoreOptions) throws -> String? {
        guard global else { return store.storePath }
        guard store.storePath == nil else { throw ValidationError("--global and --store name two different stores; give one.") }
        return StoreLocation.global().path
    }

    /// `--store`, the global store, else the signed-in user's own.
    func location(_ store: StoreOptions) throws -> StoreLocation {
        if !global, let path = store.storePath { UnencryptedStoreNotice.sayOnce(about: path) }
        return StoreLocation(explicitPath: try explicitPath(store))
    }
}

/// The root command's options. The parser accepts them before a subcommand's name too
/// (`forceterm --offline sync`); a subcommand that does not read one refuses it rather than
/// running as if it had not been written.
enum RootOption: String, CaseIterable {
    case store = "--store", global = "--global", config = "--config"
    case noColor = "--no-color", ascii = "--ascii", offline = "--offline"
    case demo = "--demo", reset = "--reset", demoPort = "--demo-port", demoLatency = "--demo-latency"

    /// Why a subcommand that does not read this option refuses it.
    func refusal(by command: String) -> String {
        switch self {
        case .store:
            "forceterm \(command) does not take --store: the session decides the store (one per org and user). Give --store to sync, status, query, list, show, addresses, create, update, delete, import, export or logout."
        case .global:
            "forceterm \(command) does not take --global: only sync, status, query, list, show and export work on the global store."
        case .config:
            "forceterm \(command) does not take --config: it reads the store only. --config is for the terminal UI, sync, login and the commands that read or change records (list, show, addresses, create, update, delete, import, export)."
        case .noColor, .ascii, .offline, .demo, .reset, .demoPort, .demoLatency:
            "forceterm \(command) does not take \(rawValue): it is an option of the terminal UI (forceterm with no subcommand)."
        }
    }
}

extension Forceterm {
    /// The root options written on the command line (or given by a subcommand's option of the same name).
    var optionsGiven: [RootOption] {
        RootOption.allCases.filter { option in
            switch option {
            case .store: storeOptions.storePath != nil
            case .global: globalOptions.global
            case .config: configOptions.directory != nil
            case .noColor: tuiOptions.noColor
            case .ascii: tuiOptions.ascii
            case .offline: tuiOptions.offline
            case .demo: demoOptions.demo
            case .reset: demoOptions.reset
            case .demoPort: demoOptions.demoPort != nil
            case .demoLatency: demoOptions.demoLatency != nil
            }
        }
    }

    /// Throws the first root option given that `command` does not read (those in `reads`).
    func refuseOptions(except reads: Set<RootOption>, in command: String) throws {
        if let option = optionsGiven.first(where: { !reads.contains($0) }) {
            throw ValidationError(option.refusal(by: command))
        }
    }
}
