import ContactsApp
import ForceAPI
import Foundation
import MobileSync
import SmartStore
import Synchronization

/// What the TUI's `s` key runs: the same named syncs as `forceterm sync` (every sync up, then
/// every sync down with its ghost cleaning), reporting progress to the status line instead of
/// stderr. The mass-deletion guard is never forced from here; `forceterm sync --force-delete` is.
///
/// The session is read again before each sync (`SessionSource.signedInUser`), so a `forceterm
/// login` made in another terminal while the TUI runs is what the next `s` uses, and a TUI started
/// before anyone signed in can sync once someone has.
public struct StoreSyncService: SyncService {
    /// Where each sync's session comes from.
    public enum SessionSource: Sendable {
        /// The credentials `forceterm login` saved, read at each sync.
        case signedInUser
        /// This session for every sync (the demo's own).
        case fixed(SignedInSession)
    }

    public let store: SmartStore
    public let entries: [SyncsConfig.Entry]
    public let sessions: SessionSource
    /// The file's syncs forceterm cannot run, reported failed on each `s`.
    public var unsupported: [SyncsConfig.Unsupported] = []
    /// The key the TUI opened `store` with: it unseals the session's tokens when `store` is the
    /// signed-in user's, so the sync needs neither the keyring (which some containers forbid) nor a prompt.
    public var storeKey: StoreKey?
    /// The signed-in user's REST transport, kept between syncs (a connection still open).
    let transports = KeptTransport()

    public init(store: SmartStore, entries: [SyncsConfig.Entry], sessions: SessionSource, unsupported: [SyncsConfig.Unsupported] = []) {
        self.store = store
        self.entries = entries
        self.sessions = sessions
        self.unsupported = unsupported
    }

    public var sessionState: SessionState {
        switch sessions {
        case .fixed: .signedIn
        case .signedInUser:
            // Saved credentials are a session even while the store (and so their seal) is locked.
            (try? CredentialStore(directory: CredentialStore.defaultDirectory()).load()) == nil ? .signedOut : .signedIn
        }
    }

    /// A connection to the org's host (or the proxy before it) opens: no request, no token.
    public func linkIsUp() async -> Bool {
        let instance: String?
        switch sessions {
        case let .fixed(session): instance = await session.client.credentials.instanceURL
        case .signedInUser: instance = (try? CredentialStore(directory: CredentialStore.defaultDirectory()).load())?.instanceURL
        }
        guard let instance else { return false }
        return await LinkProbe.canConnect(to: instance)
    }

    /// The session a sync uses now, read again each time (a sign-in made elsewhere counts).
    public func session() throws -> SignedInSession {
        switch sessions {
        case let .fixed(fixed):
            return fixed
        case .signedInUser:
            do {
                // Never a prompt: the terminal is the TUI's; a locked store is unlocked on its lock screen.
                return try SignedInSession.load(
                    cacert: nil, verbose: false, passcode: .withoutAsking,
                    knownKey: storeKey.map { ((try? StoreKeys.keyOwner(ofStore: store.path)) ?? store.path, $0) },
                    keeping: transports)
            } catch let locked as StoreLocked {
                throw SyncFailure(reason: "\(locked.short); your changes stay queued", needsUser: true)
            } catch {
                throw SyncFailure(reason: "\(error); your changes stay queued", session: .signedOut)
            }
        }
    }

    public func syncUpThenDown(progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        try await syncUpThenDown(.everything, progress: progress)
    }

    public func syncUpThenDown(_ scope: SyncScope, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        do {
            return try await run(scope, progress: progress)
        } catch {
            // Its connection may be what failed: the next sync opens a new one.
            transports.forget()
            throw error
        }
    }

    /// Closes the connection kept for the next sync; before the process exits.
    public func close() { transports.forget() }

    private func run(_ scope: SyncScope, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncSummary {
        let session = try session()
        do {
            try StoreOrigin.claim(store, at: store.path, for: session)
        } catch let mismatch as StoreOrigin.Mismatch {
            throw SyncFailure(reason: mismatch.short)
        }
        let manager = try SyncManager(
            store: store, remote: ForceClientRemote(client: StoreDevice.naming(session.client, store: store)), lockTimeout: SyncManager.briefLockWait,
            pagesInFlight: session.pagesInFlight)
        // A narrower run leaves out the file's unsupported sync downs too: the full runs report them.
        // The subscriptions are read at each run: one made meanwhile (forceterm subscribe) joins it.
        let plan = SyncRun(
            entries: scope.entries(of: entries + (try SyncsSoup(store: store).subscriptionEntries())), up: true, down: true, forceDelete: false,
            unsupported: scope == .everything ? unsupported : unsupported.filter { $0.type == .syncUp })
        let bar = Mutex(SyncRunProgress(order: plan.order))
        // An object's description (metadata, layout) is stored in a soup of its own whose name
        // (sobject_metadata) means nothing to a user: the bar names only the record soups.
        let descriptions = Set(entries.filter(\.describesAnObject).map(\.name))
        let report = try await plan.run(manager: manager, store: store) { state in
            let phase = state.type == .syncUp ? "Sync up" : "Sync down"
            let soup = descriptions.contains(state.name ?? "") ? "" : state.soupName
            // Under the lock: two sync downs' reports reach the bar in the order it took them.
            bar.withLock {
                progress(
                    $0.update(
                        name: state.name ?? "", phase: phase, soup: soup, percent: state.progress,
                        ended: state.status != .running))
            }
        }
        let usage = await session.client.lastAPIUsage.map { APIUsageLevel(used: $0.used, limit: $0.limit) }
        if let failure = report.failure {
            let connection: Connection = report.offline ? .offline : (report.stoppedBeforeAsking ? .unknown : .online)
            throw SyncFailure(reason: failure, connection: connection, apiUsage: usage, session: report.sessionExpired ? .expired : nil)
        }
        return SyncSummary(
            recordsWithErrors: report.recordErrors, conflicts: report.conflicts, apiUsage: usage,
            failedSyncs: report.failedSyncs.map(\.name), sent: report.created + report.updated + report.deleted,
            receivedChanges: report.changedOnServer + report.arrived, removedOnServer: report.ghostsRemoved,
            hiddenFields: Array(Set(report.hiddenFields.flatMap(\.fields))).sorted())
    }
}

extension SyncScope {
    /// The named syncs a run of this scope takes: every sync up, and the sync downs that fill a
    /// record soup of an announced object (an event says nothing of an object's description).
    public func entries(of entries: [SyncsConfig.Entry]) -> [SyncsConfig.Entry] {
        guard case let .announced(objects) = self else { return entries }
        return entries.filter { entry in
            guard case let .down(target) = entry.target else { return true }
            return target.filledSoups(soupName: entry.soupName).contains { soup in soup.holdsRecords && (soup.sobjectType.map(objects.contains) ?? false) }
        }
    }
}
