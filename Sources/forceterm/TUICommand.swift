import ArgumentParser
import ContactsApp
import Foundation
import SmartStore
import TerminalUI

/// The options of the TUI itself (`forceterm` with no subcommand).
struct TUIOptions: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "A directory with userstore.json and usersyncs.json to use instead of the built-in ones.",
            valueName: "dir"))
    var configDirectory: String?

    @Flag(name: .customLong("no-color"), help: "No colours (also when NO_COLOR is set).")
    var noColor = false

    @Flag(help: "ASCII line drawing and markers, for terminals or fonts without Unicode box drawing.")
    var ascii = false

    @Flag(help: "Work without the network: s reports that it is offline and keeps changes queued.")
    var offline = false

    /// The userstore.json and usersyncs.json text: from --config, or built in.
    func configTexts() throws -> (userstore: String, usersyncs: String) {
        guard let configDirectory else { return (DefaultConfig.userstoreJSON, DefaultConfig.usersyncsJSON) }
        let directory = URL(fileURLWithPath: configDirectory)
        func read(_ name: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw ConfigError("cannot read \(url.path): --config needs a directory holding \(name)")
            }
            return text
        }
        return (try read("userstore.json"), try read("usersyncs.json"))
    }
}

/// Opens the store (registering the configured soups when missing) and runs the TUI until the user
/// quits or a signal arrives. The terminal is restored on every way out; every change was already
/// committed when it was made.
enum TUILauncher {
    static func run(store location: StoreLocation, options: TUIOptions) throws {
        let texts = try options.configTexts()
        let storeConfig = try StoreConfig(json: texts.userstore)
        let fields = try SyncedFields(usersyncsJSON: texts.usersyncs)
        let store = try SmartStore(path: location.path)
        try store.setup(from: storeConfig)
        let model = try AppModel(store: store, syncedFields: fields, sync: nil, offline: options.offline)
        let environment = ProcessInfo.processInfo.environment
        let screen = try NcursesScreen(wantColors: Theme.colorsWanted(noColorFlag: options.noColor, environment: environment))
        var app = TerminalApp(model: model, screen: screen, theme: Theme(colors: screen.colors, ascii: options.ascii))
        let exit = app.run()
        screen.restore()
        if case let .signal(number) = exit {
            // The shell's convention for "ended by a signal"; the store is already committed.
            throw ExitCode(128 + number)
        }
    }
}
