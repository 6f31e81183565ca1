import Foundation

/// The data directory of one org: its database and its TLS files.
public struct OrgDirectory: Sendable {
    public let path: String

    /// `--data DIR`, else `$XDG_DATA_HOME/localorg`, else `~/.local/share/localorg`.
    public init(path: String?) {
        if let path {
            self.path = path
        } else if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !xdg.isEmpty {
            self.path = xdg + "/localorg"
        } else {
            self.path = FileManager.default.homeDirectoryForCurrentUser.path + "/.local/share/localorg"
        }
    }

    public var databasePath: String { path + "/org.sqlite" }
    public var certificateAuthority: LocalCertificateAuthority { LocalCertificateAuthority(directory: path) }

    /// Creates the directory (owner-only) and opens the org in it, creating it on first use.
    public func openStore() throws -> OrgStore {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return try OrgStore(path: databasePath, schema: try OrgSchema.bundled())
    }
}
