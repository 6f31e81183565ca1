import ForceJSON
import Foundation
import MobileSync

#if canImport(Glibc)
import Glibc
#endif

/// A test-only crash point for `forceterm sync`: with `FORCETERM_TEST_EXIT_AFTER_CALL=k` in the
/// environment the process ends abruptly (`_exit(86)`, no clean-up, like a kill) right after the
/// k-th call to the server has its answer and before the engine records it: the moment a lost
/// answer hurts most. The crash-safety tests loop k over every call of a sync.
struct ExitAfterRemoteCall: SyncRemote {
    static let environmentVariable = "FORCETERM_TEST_EXIT_AFTER_CALL"
    /// The exit status of a deliberate crash, so a test can tell it from a real failure.
    static let exitStatus: Int32 = 86

    let remote: any SyncRemote
    let exitAfter: Int
    private let counter = Counter()

    /// `remote` wrapped when the variable holds a positive number, else `remote` itself.
    static func wrapping(_ remote: any SyncRemote, environment: [String: String] = ProcessInfo.processInfo.environment) -> any SyncRemote {
        guard let text = environment[environmentVariable], let step = Int(text), step > 0 else { return remote }
        return ExitAfterRemoteCall(remote: remote, exitAfter: step)
    }

    /// Calls so far; shared by the copies of this value the engine holds.
    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var calls = 0
        func next() -> Int { lock.withLock { calls += 1; return calls } }
    }

    private func step<T>(_ body: () async throws(SyncRemoteError) -> T) async throws(SyncRemoteError) -> T {
        let result: Result<T, SyncRemoteError>
        do throws(SyncRemoteError) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        if counter.next() == exitAfter { _exit(Self.exitStatus) }
        return try result.get()
    }

    func query(_ soql: String, batchSize: Int?) async throws(SyncRemoteError) -> RemoteQueryPage {
        try await step { () async throws(SyncRemoteError) in try await remote.query(soql, batchSize: batchSize) }
    }

    func queryMore(_ nextRecordsUrl: String) async throws(SyncRemoteError) -> RemoteQueryPage {
        try await step { () async throws(SyncRemoteError) in try await remote.queryMore(nextRecordsUrl) }
    }

    func search(_ sosl: String) async throws(SyncRemoteError) -> [JSONObject] {
        try await step { () async throws(SyncRemoteError) in try await remote.search(sosl) }
    }

    func recentItemIds(sobjectType: String) async throws(SyncRemoteError) -> [String] {
        try await step { () async throws(SyncRemoteError) in try await remote.recentItemIds(sobjectType: sobjectType) }
    }

    func retrieve(sobjectType: String, ids: [String], fields: [String]) async throws(SyncRemoteError) -> [JSONObject?] {
        try await step { () async throws(SyncRemoteError) in try await remote.retrieve(sobjectType: sobjectType, ids: ids, fields: fields) }
    }

    func primingRecords(relayToken: String?, changedAfter: Int64?) async throws(SyncRemoteError) -> BriefcasePrimingPage {
        try await step { () async throws(SyncRemoteError) in try await remote.primingRecords(relayToken: relayToken, changedAfter: changedAfter) }
    }

    func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        try await step { () async throws(SyncRemoteError) in try await remote.send(writes, route: route) }
    }
}
