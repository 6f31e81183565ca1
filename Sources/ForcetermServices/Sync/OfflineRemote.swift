import ForceJSON
import MobileSync

/// The remote of a command that changes only the store (`forceterm unsubscribe`, `subscribe
/// --no-wait`): every request fails as offline, so such a command can never reach a network,
/// and works signed out.
public struct OfflineRemote: SyncRemote {
    public init() {}

    private static var refusal: SyncRemoteError { .offline("this command works on the local store only") }

    public func query(_ soql: String, batchSize: Int?) async throws(SyncRemoteError) -> RemoteQueryPage { throw Self.refusal }
    public func queryMore(_ nextRecordsUrl: String) async throws(SyncRemoteError) -> RemoteQueryPage { throw Self.refusal }
    public func search(_ sosl: String) async throws(SyncRemoteError) -> [JSONObject] { throw Self.refusal }
    public func recentItemIds(sobjectType: String) async throws(SyncRemoteError) -> [String] { throw Self.refusal }
    public func retrieve(sobjectType: String, ids: [String], fields: [String]) async throws(SyncRemoteError) -> [JSONObject?] { throw Self.refusal }
    public func primingRecords(relayToken: String?, changedAfter: Int64?) async throws(SyncRemoteError) -> BriefcasePrimingPage { throw Self.refusal }
    public func resource(_ path: String, query: [(String, String)]) async throws(SyncRemoteError) -> JSONObject { throw Self.refusal }
    public func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] { throw Self.refusal }
}
