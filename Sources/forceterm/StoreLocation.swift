import Foundation

/// Where the store file lives: `--store` when given, else the XDG data directory
/// (`$XDG_DATA_HOME/forceterm/store.sqlite`, falling back to `~/.local/share/forceterm/store.sqlite`).
struct StoreLocation: Equatable, Sendable {
    static let fileName = "store.sqlite"
    static let directoryName = "forceterm"

    let path: String

    /// The store named on the command line, or the default one for this user's environment.
    init(explicitPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        path = explicitPath ?? Self.defaultPath(environment: environment)
    }

    /// XDG says a relative or empty `XDG_DATA_HOME` is invalid and must be ignored.
    static func defaultPath(environment: [String: String]) -> String {
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        }
        return ((dataHome as NSString).appendingPathComponent(directoryName) as NSString).appendingPathComponent(fileName)
    }
}
