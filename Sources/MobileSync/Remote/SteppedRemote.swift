import ForceJSON
import Synchronization

/// A remote that forwards every call and then, once the call has its answer (or its error) and
/// before the engine sees it, runs `afterCall` with the call's 1-based number. That moment is
/// where a lost answer hurts most: crash-safety and fault tests stop a process or a server there.
public struct SteppedRemote: SyncRemote {
    let remote: any SyncRemote
    let afterCall: @Sendable (Int) async -> Void
    private let calls = Calls()

    public init(remote: any SyncRemote, afterCall: @escaping @Sendable (Int) async -> Void) {
        self.remote = remote
        self.afterCall = afterCall
    }

    /// Shared by the copies of this value the engine holds.
    private final class Calls: Sendable {
        private let count = Mutex(0)
        func next() -> Int { count.withLock { $0 += 1; return $0 } }
    }

    private func step<T>(_ body: () async throws(SyncRemoteError) -> T) async throws(SyncRemoteError) -> T {
        let result: Result<T, SyncRemoteError>
        do throws(SyncRemoteError) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await afterCall(calls.next())
        return try result.get()
    }

    public func query(_ soql: String, batchSize: Int?) async throws(SyncRemoteError) -> RemoteQueryPage {
        try await step { () async throws(SyncRemoteError) in try await remote.query(soql, batchSize: batchSize) }
    }

    public func queryMore(_ nextRecordsUrl: String) async throws(SyncRemoteError) -> RemoteQueryPage {
        try await step { () async throws(SyncRemoteError) in try await remote.queryMore(nextRecordsUrl) }
    }

    public func search(_ sosl: String) async throws(SyncRemoteError) -> [JSONObject] {
        try await step { () async throws(SyncRemoteError) in try await remote.search(sosl) }
    }

    public func recentItemIds(sobjectType: String) async throws(SyncRemoteError) -> [String] {
        try await step { () async throws(SyncRemoteError) in try await remote.recentItemIds(sobjectType: sobjectType) }
    }

    public func retrieve(sobjectType: String, ids: [String], fields: [String]) async throws(SyncRemoteError) -> [JSONObject?] {
        try await step { () async throws(SyncRemoteError) in try await remote.retrieve(sobjectType: sobjectType, ids: ids, fields: fields) }
    }

    public func primingRecords(relayToken: String?, changedAfter: Int64?) async throws(SyncRemoteError) -> BriefcasePrimingPage {
        try await step { () async throws(SyncRemoteError) in try await remote.primingRecords(relayToken: relayToken, changedAfter: changedAfter) }
    }

    public func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        try await step { () async throws(SyncRemoteError) in try await remote.send(writes, route: route) }
    }
}
