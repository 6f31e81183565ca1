import ForceJSON
import Synchronization

/// A remote that forwards every call and then, once the call has its answer (or its error) and
/// before the engine sees it, runs `afterCall` with the call's 1-based number. That moment is
/// where a lost answer hurts most: crash-safety and fault tests stop a process or a server there,
/// or drop the connection before a request leaves or after its answer came.
public struct SteppedRemote: SyncRemote {
    let remote: any SyncRemote
    let beforeCall: @Sendable (Int) async throws(SyncRemoteError) -> Void
    /// With the call's number and whether it got an answer; throwing replaces the call's result.
    let afterCall: @Sendable (Int, Bool) async throws(SyncRemoteError) -> Void
    private let calls = Calls()

    /// Runs `afterCall` after every call, answered or failed.
    public init(remote: any SyncRemote, afterCall: @escaping @Sendable (Int) async -> Void) {
        self.remote = remote
        self.beforeCall = { _ in }
        self.afterCall = { call, _ in await afterCall(call) }
    }

    /// Runs `beforeCall` before each request leaves and `afterAnswer` once one got its answer;
    /// either may throw to fail the call, as a dropped connection would.
    public init(
        remote: any SyncRemote, beforeCall: @escaping @Sendable (Int) async throws(SyncRemoteError) -> Void,
        afterAnswer: @escaping @Sendable (Int) async throws(SyncRemoteError) -> Void
    ) {
        self.remote = remote
        self.beforeCall = beforeCall
        self.afterCall = { (call, answered) async throws(SyncRemoteError) in if answered { try await afterAnswer(call) } }
    }

    /// Shared by the copies of this value the engine holds: calls started, and calls finished.
    private final class Calls: Sendable {
        private let started = Mutex(0)
        private let finished = Mutex(0)
        func start() -> Int {
            started.withLock {
                $0 += 1
                return $0
            }
        }
        func finish() -> Int {
            finished.withLock {
                $0 += 1
                return $0
            }
        }
    }

    private func step<T>(_ body: () async throws(SyncRemoteError) -> T) async throws(SyncRemoteError) -> T {
        try await beforeCall(calls.start())
        let result: Result<T, SyncRemoteError>
        do throws(SyncRemoteError) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        let answered = if case .success = result { true } else { false }
        try await afterCall(calls.finish(), answered)
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

    public func resource(_ path: String, query: [(String, String)]) async throws(SyncRemoteError) -> JSONObject {
        try await step { () async throws(SyncRemoteError) in try await remote.resource(path, query: query) }
    }

    public func resource(_ path: String, query: [(String, String)], unlessTagged etag: String?) async throws(SyncRemoteError) -> RemoteResource {
        try await step { () async throws(SyncRemoteError) in try await remote.resource(path, query: query, unlessTagged: etag) }
    }

    public var signedInUserId: String? { get async { await remote.signedInUserId } }

    public func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        try await step { () async throws(SyncRemoteError) in try await remote.send(writes, route: route) }
    }

    public func send(_ writes: [RecordWrite], route: WriteRoute, allowingDuplicates: Bool) async throws(SyncRemoteError) -> [RecordOutcome] {
        try await step { () async throws(SyncRemoteError) in try await remote.send(writes, route: route, allowingDuplicates: allowingDuplicates) }
    }
}
