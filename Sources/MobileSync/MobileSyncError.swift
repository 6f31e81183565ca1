/// Everything the sync engine refuses or stops on, each with a message that names the problem and
/// what to do about it.
public enum MobileSyncError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidConfig(String)
    case invalidTarget(String)
    /// A target the Mobile SDK has and forceterm does not implement yet: that sync is left out
    /// (and reported failed on each run), the others run.
    case unsupportedTarget(String)
    case duplicateSyncName(type: SyncType, name: String)
    case unknownSync(String)
    case wrongSyncType(id: Int64, expected: SyncType, actual: SyncType)
    case syncRunning(String)
    case syncLocked(storePath: String)
    case managerStopped(state: String)
    case stoppedByRequest
    case soupMissingIndex(soup: String, path: String)
    case massDeletion(soup: String, wouldDelete: Int, of: Int, limitPercent: Int)
    case noFieldsSpecified(soup: String)
    case remote(SyncRemoteError)
    case store(String)
    /// A record's local changes cannot be reverted; the message says why and what to do instead.
    case cannotRevert(String)
    /// A subscription refused before anything was stored; the reason names what to change.
    case invalidSubscription(name: String, reason: String)
    /// An unsubscribe refused before any record was let go.
    case cannotUnsubscribe(name: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidConfig(message):
            "invalid syncs config: \(message)"
        case let .invalidTarget(message):
            "invalid sync target: \(message)"
        case let .unsupportedTarget(message):
            "not supported by forceterm yet: \(message)"
        case let .duplicateSyncName(type, name):
            "Failed to create \(type == .syncDown ? "sync down" : "sync up"): there is already a sync with name:\(name)"
        case let .unknownSync(nameOrId):
            "Sync \(nameOrId) does not exist; list the syncs with `forceterm status`"
        case let .wrongSyncType(id, expected, actual):
            "sync \(id) is a \(actual.rawValue), not a \(expected.rawValue)"
        case let .syncRunning(what):
            "Cannot run \(what) - sync is still running; wait for it to finish"
        case let .syncLocked(storePath):
            "a sync is running on \(storePath) in another process; wait for it to finish and try again"
        case let .managerStopped(state):
            "sync manager has state:\(state); restart it before running a sync"
        case .stoppedByRequest:
            "the sync was stopped on request; run it again to resume"
        case let .soupMissingIndex(soup, path):
            "soup \(soup) has no index on \(path), which syncing needs; add {\"path\": \"\(path)\", \"type\": \"string\"} to its indexes in userstore.json"
        case let .massDeletion(soup, wouldDelete, total, limit):
            "the sync would delete \(wouldDelete) of \(total) records in \(soup) (more than \(limit) %); nothing was deleted. Check the sync's query, or confirm with `forceterm sync --force-delete`"
        case let .noFieldsSpecified(soup):
            "No fields specified for the sync up of \(soup): set createFieldlist/updateFieldlist in the target or fieldlist in the options"
        case let .remote(error):
            error.description
        case let .store(message):
            message
        case let .cannotRevert(message):
            "cannot revert: \(message)"
        case let .invalidSubscription(name, reason):
            "cannot subscribe \(name): \(reason); nothing was stored"
        case let .cannotUnsubscribe(name, reason):
            "cannot unsubscribe \(name): \(reason); nothing was removed"
        }
    }
}
