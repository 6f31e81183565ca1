import ArgumentParser
import ForcetermServices
import Foundation

/// `--config DIR`: the directory with the Mobile SDK's config files — `userstore.json` and
/// `usersyncs.json` for the TUI and `sync`, `bootconfig.json` for `login`.
///
/// The root command and its subcommands declare this one type under the same property name
/// (`configOptions`), so the parser hands one value to both wherever it is written:
/// `forceterm --config DIR sync` and `forceterm sync --config DIR` mean the same. Declared as
/// separate options (or as two types), the root command took the value and the subcommand never
/// saw it (apple/swift-argument-parser#169).
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "A directory with the Mobile SDK's config files to use instead of the built-in ones.",
            discussion: """
                The terminal UI and sync read userstore.json and usersyncs.json from it (without \
                usersyncs.json there are no named syncs; without userstore.json, forceterm's own \
                soups); login reads bootconfig.json (default directory: $XDG_CONFIG_HOME/forceterm, \
                or ~/.config/forceterm).
                """,
            valueName: "dir"),
        completion: .directory)
    var directory: String?

    /// A `--config` that names no directory is a mistake to report, not a reason to fall back to
    /// the built-in files.
    func validate() throws {
        guard let directory else { return }
        guard !directory.isEmpty else { throw ValidationError("--config needs the path of a directory.") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw ValidationError("--config \(directory): no such directory.")
        }
        guard isDirectory.boolValue else {
            throw ValidationError("--config \(directory) is a file; give the directory that holds it.")
        }
    }
}
