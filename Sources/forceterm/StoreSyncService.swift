import ContactsApp
import ForceAPI
import Foundation
import MobileSync
import SmartStore

/// What the TUI's `s` key runs: the same named syncs as `forceterm sync` (every sync up, then
/// every sync down with its ghost cleaning), reporting progress to the status line instead of
/// stderr. The mass-deletion guard is never forced from here; `forceterm sync --force-delete` is.
struct StoreSyncService: SyncService {
    let manager: SyncManager
    let store: SmartStore
    let entries: [SyncsConfig.Entry]
    /// The signed-in client, for the API usage the org reported (Sforce-Limit-Info).
    let client: ForceClient
    /// The file's syncs forceterm cannot run, reported failed on each `s`.
    var unsupported: [SyncsConfig.Unsupported] = []

    func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        let plan = SyncRun(entries: entries, up: true, down: true, forceDelete: false, unsupported: unsupported)
        let order = plan.order
        let report = try await plan.run(manager: manager, store: store) { state in
            let phase = state.type == .syncUp ? "Sync up" : "Sync down"
            progress(SyncProgress(step: state.name.flatMap(order.firstIndex) ?? 0, of: order.count,
                                  phase: "\(phase) \(state.name ?? state.soupName)", percent: state.progress))
        }
        let usage = await client.lastAPIUsage.map { APIUsageLevel(used: $0.used, limit: $0.limit) }
        if let failure = report.failure {
            let connection: Connection = report.offline ? .offline : (report.stoppedBeforeAsking ? .unknown : .online)
            throw SyncFailure(reason: failure, connection: connection, apiUsage: usage)
        }
        return SyncSummary(recordsWithErrors: report.recordErrors, conflicts: report.conflicts, apiUsage: usage,
                           failedSyncs: report.failedSyncs.map(\.name))
    }
}
