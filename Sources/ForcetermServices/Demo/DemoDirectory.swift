import ContactsApp
import ForceAPI
import Foundation

/// Where `forceterm --demo` keeps its state, apart from the user's own store and credentials:
/// `$XDG_DATA_HOME/forceterm/demo/` (or `~/.local/share/forceterm/demo/`). A second `--demo`
/// reuses it, so a trainer's edits survive a restart; `--demo --reset` deletes it first.
public struct DemoDirectory: Sendable {
    public let path: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        path = (CredentialStore.defaultDirectory(environment: environment) as NSString).appendingPathComponent("demo")
    }

    /// The demo org's data directory for `localorg --data`: its database and its CA.
    public var orgPath: String { path + "/org" }
    /// The CA certificate clients trust (`curl --cacert`).
    public var caFile: String { orgPath + "/ca.pem" }
    /// What the demo org prints: one line per request, for `tail -f`.
    public var serverLog: String { path + "/localorg.log" }
    /// A script that changes a contact on the server: shorter to type than the command it runs,
    /// and copied from a terminal without the help box's borders.
    public var serverChangeScript: String { path + "/change-on-server.sh" }
    /// The demo user's session (and, below `users/`, the demo user's store).
    public var credentials: CredentialStore { CredentialStore(directory: path) }

    /// Creates the directory, owner-only like the rest of forceterm's data.
    public func create() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Deletes every piece of demo state (org, store, session); nothing outside `path` is touched.
    /// Removes the demo state; false when there was none.
    @discardableResult
    public func reset() throws -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw ConfigError("cannot remove the demo directory \(path) for --reset (\(error.localizedDescription)); remove it by hand")
        }
        return true
    }
}
