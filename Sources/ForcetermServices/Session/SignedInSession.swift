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
    /// Connections to the org at most over HTTP/1.1 (over HTTP/2 one carries every request).
    static let connectionsOverHTTP1 = 8

    /// A session over a client signed in already (`load` reads the saved one); tests and the
    /// engine's own tools use it as it is.
    public init(
        client: ForceClient, storePath: String, organizationId: String = "", loginURL: String = "",
        pagesInFlight: Int = UserSettings.defaultPagesInFlight
    ) {
        self.client = client
        self.storePath = storePath
        self.organizationId = organizationId
        self.loginURL = loginURL
        self.pagesInFlight = pagesInFlight
    }

    /// The session saved in `credentialStore` (by default the user's own, from `forceterm login`).
    /// `passcode` unlocks a locked store's sealed tokens (the TUI gives one that never asks);
    /// `knownKey`, a store's key already in hand, is used when that store is the session's;
    /// `keeping` hands over the transport of the session before (its connection still open).
    public static func load(
        cacert: String?, verbose: Bool,
        credentialStore: CredentialStore = CredentialStore(directory: CredentialStore.defaultDirectory()),
        passcode: Passcode = Passcode(), knownKey: (path: String, key: StoreKey)? = nil,
        keeping kept: KeptTransport? = nil
    ) throws -> SignedInSession {
        guard let saved = try credentialStore.load() else {
            throw ConfigError("not signed in; run forceterm login first")
        }
        let storePath = credentialStore.storePath(for: saved)
        // A store with a passcode has the session's tokens sealed with its key: unlocked here, and
        // refreshed tokens sealed again with the same key (the TUI may outlive the keyring's timeout).
        let known = knownKey.flatMap { ($0.path as NSString).standardizingPath == (storePath as NSString).standardizingPath ? $0.key : nil }
        let sealingKey = try known ?? StoreKeys.sealingKey(forStore: storePath, passcode: passcode)
        if sealingKey == nil, SealedTokens.areSealed(saved) {
            // A credentials.json copied to another machine or account, without the store's key.
            throw ConfigError(
                "the session in \(credentialStore.path) is sealed with the key of the store \(storePath), which is not here "
                    + "(neither \(WrappedStoreKey.file(forStore: storePath)) nor \(StoreKeys.keyFile(forStore: storePath))); "
                    + "it cannot be used without it: sign in again (forceterm login)")
        }
        let credentials = try sealingKey.map { try SealedTokens.open(saved, with: $0) } ?? saved
        if let sealingKey, !SealedTokens.areSealed(saved) {
            // Left unsealed by a `forceterm passcode` cut short before its last step: sealed now.
            try? credentialStore.save(try SealedTokens.seal(saved, with: sealingKey))
        }
        let caFile = try cacert.map(CACertOption.readablePath) ?? credentials.caFile
        // config.toml's [network] timeouts, when the file can be used (the TUI reports it when not).
        let settings = UserSettings.load(path: UserSettings.path()).settings
        var configuration = settings.applied(to: TransportConfiguration(caFile: caFile))
        // Over HTTP/1.1 each request in flight needs a connection of its own: up to 8 (each one
        // a handshake on a slow link); a sync up's further requests wait for one to be free.
        configuration.maxConnections = max(configuration.maxConnections, Self.connectionsOverHTTP1)
        let transport = kept?.transport(for: configuration) ?? CurlTransport(configuration: configuration)
        let saveRefreshed: @Sendable (OAuthCredentials) -> Void = { refreshed in
            do {
                // Never written unsealed once the store has a passcode.
                try credentialStore.save(try sealingKey.map { try SealedTokens.seal(refreshed, with: $0) } ?? refreshed)
            } catch {
                StandardStreams.writeError("forceterm: warning: could not save the refreshed session (\(error))\n")
            }
        }
        let logLine: @Sendable (String) -> Void = { StandardStreams.writeError("forceterm: \($0)\n") }
        let client = ForceClient(
            credentials: credentials, transport: transport, onCredentialsRefreshed: saveRefreshed,
            requestLog: verbose ? logLine : nil)
        return SignedInSession(
            client: client, storePath: storePath,
            organizationId: credentials.organizationId, loginURL: credentials.loginURL,
            pagesInFlight: settings.pagesInFlight ?? UserSettings.defaultPagesInFlight)
    }
}
