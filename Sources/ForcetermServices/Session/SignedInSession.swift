import ContactsApp
import ForceAPI
import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// The signed-in user's session: saved credentials, a REST client that saves refreshed tokens,
/// and the store that belongs to this org and user.
public struct SignedInSession: Sendable {
    public let client: ForceClient
    public let storePath: String
    /// The org signed in to, which a store synced with it is bound to (`StoreOrigin`).
    public var organizationId: String = ""
    public var loginURL: String = ""
    /// Query pages a sync down asks for at once (config.toml's [network] pages-in-flight).
    public var pagesInFlight = UserSettings.defaultPagesInFlight

    /// The session saved in `credentialStore` (by default the user's own, from `forceterm login`).
    public static func load(cacert: String?, verbose: Bool,
                     credentialStore: CredentialStore = CredentialStore(directory: CredentialStore.defaultDirectory())) throws -> SignedInSession {
        guard let credentials = try credentialStore.load() else {
            throw ConfigError("not signed in; run forceterm login first")
        }
        let caFile = try cacert.map(CACertOption.readablePath) ?? credentials.caFile
        // config.toml's [network] timeouts, when the file can be used (the TUI reports it when not).
        let settings = UserSettings.load(path: UserSettings.path()).settings
        var configuration = settings.applied(to: TransportConfiguration(caFile: caFile))
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
        return SignedInSession(client: client, storePath: credentialStore.storePath(for: credentials),
                               organizationId: credentials.organizationId, loginURL: credentials.loginURL,
                               pagesInFlight: settings.pagesInFlight ?? UserSettings.defaultPagesInFlight)
    }
}
