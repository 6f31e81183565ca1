import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import SmartStore
import Testing

@testable import MobileSync

/// The engine end to end: a real store file, `ForceClientRemote` over a real ForceClient, and a
/// real localorg over HTTPS on 127.0.0.1, with the repo's `usersyncs.json`.
final class LiveSync {
    let server: LocalOrgProcess
    let client: ForceClient
    let local: SyncStore
    let manager: SyncManager

    /// `retryPolicy` is ForceClient's (none by default, so a fault shows at once); `onRefresh`
    /// hears each transparent token refresh.
    convenience init(
        serverArguments: [String] = [], retryPolicy: RetryPolicy = .never, username: String = "demo@localorg.test",
        password: String = "localorg-demo", onRefresh: (@Sendable (OAuthCredentials) -> Void)? = nil
    ) async throws {
        try await self.init(
            server: try LocalOrgProcess(arguments: serverArguments), retryPolicy: retryPolicy, username: username,
            password: password, onRefresh: onRefresh)
    }

    /// The engine against `server`, signed in as `username`.
    init(
        server: LocalOrgProcess, retryPolicy: RetryPolicy = .never, username: String = "demo@localorg.test",
        password: String = "localorg-demo", onRefresh: (@Sendable (OAuthCredentials) -> Void)? = nil
    ) async throws {
        self.server = server
        client = try await Self.signIn(to: server, retryPolicy: retryPolicy, username: username, password: password, onRefresh: onRefresh)
        local = try SyncStore()
        manager = try SyncManager(store: local.store, remote: ForceClientRemote(client: client))
        try SyncsSoup(store: local.store).apply(SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json")))
    }

    /// A REST client signed in to `server` as the demo user (or `username`), over HTTPS with its CA.
    static func signIn(
        to server: LocalOrgProcess, retryPolicy: RetryPolicy = .never, username: String = "demo@localorg.test",
        password: String = "localorg-demo", onRefresh: (@Sendable (OAuthCredentials) -> Void)? = nil
    ) async throws -> ForceClient {
        var configuration = TransportConfiguration(caFile: server.caFile)
        configuration.connectTimeout = 15
        configuration.stallTimeout = 30
        configuration.requestDeadline = 60
        let transport = CurlTransport(configuration: configuration)
        let oauth = OAuthClient(loginURL: server.url, transport: transport)
        let token = try await oauth.signIn(username: username, password: Secret(password))
        let identity = try await oauth.identity(of: token)
        return ForceClient(
            credentials: OAuthCredentials(
                loginURL: server.url, clientId: OAuthClient.defaultClientId, token: token,
                identity: identity, caFile: server.caFile),
            transport: transport, retryPolicy: retryPolicy, onCredentialsRefreshed: onRefresh)
    }

    /// Makes the named sync up write through `mode` (single record, batch or collection),
    /// keeping the rest of its definition from the repo's `usersyncs.json`.
    func useSyncUpMode(_ mode: SyncUpTarget.Mode, for name: String) throws {
        _ = try SyncsSoup(store: local.store).apply(Self.config(syncingUpWith: mode) { $0 == name })
    }

    /// The repo's `usersyncs.json` with the sync ups whose name passes `names` writing through `mode`.
    static func config(syncingUpWith mode: SyncUpTarget.Mode, names: (String?) -> Bool = { _ in true }) throws -> SyncsConfig {
        var config = try SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json"))
        config.entries = config.entries.map { entry in
            guard names(entry.name), case let .up(target) = entry.target else { return entry }
            var changed = entry
            changed.target = .up(
                SyncUpTarget(
                    mode: mode, createFieldlist: target.createFieldlist, updateFieldlist: target.updateFieldlist,
                    externalIdFieldName: target.externalIdFieldName))
            return changed
        }
        return config
    }

    /// Closes the client's connections, then stops the server and removes its data.
    func remove() {
        client.shutdown()
        server.remove()
    }

    /// `forceterm sync`'s order: ups (accounts first), then downs.
    static let syncOrder = ["syncUpAccounts", "syncUpContacts", "syncDownAccounts", "syncDownContacts"]

    func syncAll() async throws {
        for name in Self.syncOrder {
            _ = try await manager.reSync(name: name)
        }
    }

    func syncDown() async throws {
        _ = try await manager.reSync(name: "syncDownAccounts")
        _ = try await manager.reSync(name: "syncDownContacts")
    }

    func syncUp() async throws {
        _ = try await manager.reSync(name: "syncUpAccounts")
        _ = try await manager.reSync(name: "syncUpContacts")
    }

    /// Rows of a SOQL query on the server, read fresh.
    func serverRecords(_ soql: String) async throws -> [JSONObject] {
        try await client.query(soql).records.compactMap(\.objectValue)
    }

    func createOnServer(_ type: String, _ fields: JSONObject) async throws -> String {
        try await client.create(type, fields: fields)
    }

    /// Saves a local change as the app does: the document with the sync flags set.
    func saveLocally(_ record: JSONObject, in soup: String) throws {
        if let entryId = record.soupEntryId {
            _ = try local.store.update(record, id: entryId, in: soup)
        } else {
            _ = try local.store.create(record, in: soup)
        }
    }

    /// localorg's records carry whole-second modification times, and If-Unmodified-Since compares
    /// seconds: a server edit must land in a later second than the version the store holds.
    static func nextSecond() async throws {
        try await Task.sleep(for: .milliseconds(1_100))
    }
}
