import ForceAPI
import Foundation

/// Where the store file lives: `--store` when given; else, when someone is signed in, that org's
/// and user's own store (`$XDG_DATA_HOME/forceterm/users/<org>/<user>/store.sqlite`); else the XDG
/// data directory (`$XDG_DATA_HOME/forceterm/store.sqlite`, falling back to `~/.local/share/…`).
public struct StoreLocation: Equatable, Sendable {
    public static let fileName = "store.sqlite"

    public let path: String

    /// The store named on the command line, or the default one for this user's environment.
    public init(explicitPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let explicitPath {
            path = explicitPath
        } else if let signedIn = Self.signedInStorePath(environment: environment) {
            path = signedIn
        } else {
            path = Self.defaultPath(environment: environment)
        }
    }

    /// The signed-in user's store; nil when nobody is signed in (or the credentials are unusable,
    /// which `login`/`logout` report).
    public static func signedInStorePath(environment: [String: String]) -> String? {
        let credentials = CredentialStore(directory: CredentialStore.defaultDirectory(environment: environment))
        guard let signedIn = try? credentials.load() else { return nil }
        return credentials.storePath(for: signedIn)
    }

    /// The global store: one per account on this machine, whoever signs in to Salesforce (the SDK's
    /// global store, shared by the app's users).
    public static func global(environment: [String: String] = ProcessInfo.processInfo.environment) -> StoreLocation {
        StoreLocation(explicitPath: (CredentialStore.defaultDirectory(environment: environment) as NSString).appendingPathComponent("global.sqlite"))
    }

    /// The stores of users who signed in on this machine before (`users/<org>/<user>/store.sqlite`),
    /// which stay after they sign out.
    public static func userStores(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let users = (CredentialStore.defaultDirectory(environment: environment) as NSString).appendingPathComponent("users")
        let manager = FileManager.default
        let orgs = ((try? manager.contentsOfDirectory(atPath: users)) ?? []).sorted()
        return orgs.flatMap { org in
            (((try? manager.contentsOfDirectory(atPath: users + "/" + org)) ?? []).sorted()).map { "\(users)/\(org)/\($0)/\(fileName)" }
        }.filter { manager.fileExists(atPath: $0) }
    }

    /// Whether `path` is the store used while nobody is signed in, and nobody is: what is recorded
    /// there waits for `login` to move it into a user's store.
    public static func isSignedOutStore(_ path: String, environment: [String: String]) -> Bool {
        signedInStorePath(environment: environment) == nil && path == defaultPath(environment: environment)
    }

    /// The store in forceterm's data directory, for when nobody is signed in.
    public static func defaultPath(environment: [String: String]) -> String {
        (CredentialStore.defaultDirectory(environment: environment) as NSString).appendingPathComponent(fileName)
    }
}
