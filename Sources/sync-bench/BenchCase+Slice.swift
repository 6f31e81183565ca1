import ForceJSON
import ForcetermServices
import Foundation
import MobileSync
import SmartStore

/// The subscription cases: one slice of an org (`MailingCity = 'Zürich'`) taken offline by
/// `forceterm subscribe`, into a store whose config syncs no contacts down, then synced again with
/// nothing changed. Each is timed with its ghost check, as a sync run does it.
extension BenchCase {
    static let sliceName = "benchSlice"
    static let sliceCondition = "MailingCity = 'Zürich'"

    /// `slice-first`: subscribes and runs the subscription's first sync and its ghost check;
    /// `slice-resync`: runs both again on the same store.
    func slice(_ definitions: BenchDefinitions, _ session: BenchSession, first: Bool) async throws -> JSONObject {
        let store = try definitions.openStore(try requiredStore(), encrypted: encrypted)
        let manager = try SyncManager(store: store, remote: ForceClientRemote(client: session.client))
        if first {
            // The repo's syncs, its contacts sync down left out (as SubscriptionCommandTests' accounts-only config).
            var config = try SyncsConfig(contentsOf: URL(fileURLWithPath: config).appendingPathComponent("usersyncs.json"))
            config.entries = config.entries.filter { $0.name != "syncDownContacts" }
            _ = try SyncsSoup(store: store).apply(config)
        }
        session.requests.reset()
        let before = session.client.transferStatistics
        let start = ContinuousClock.now
        if first { _ = try await manager.subscribe(name: Self.sliceName, soup: BenchDefinitions.soup, condition: Self.sliceCondition) }
        let state = try await manager.reSync(name: Self.sliceName)
        guard state.status == .done else { throw BenchError("the subscription's sync ended \(state.status.rawValue): \(state.error)") }
        let removed = try await manager.cleanResyncGhosts(id: state.id, justSynced: true)
        let seconds = ProcessMeasurements.seconds(since: start)
        let after = session.client.transferStatistics
        let held = try SubscriptionSummary.all(in: store).first { $0.name == Self.sliceName }?.held ?? 0
        guard held == n, removed == 0 else { throw BenchError("the subscription holds \(held) records (\(removed) removed), expected \(n)") }
        return [
            "seconds": .double(seconds), "records": .int(Int64(held)), "requests": .int(Int64(session.requests.value)),
            "bytesReceived": .int(Int64(after.bytesReceived - before.bytesReceived)), "bytesSent": .int(Int64(after.bytesSent - before.bytesSent)),
        ]
    }
}
