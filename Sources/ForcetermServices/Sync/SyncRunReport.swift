import ForceAPI
import ForceJSON
import MobileSync
import SmartStore

/// What a `forceterm sync` did, and what is left for the user.
public struct SyncRunReport: Sendable {
    public var created = 0
    public var updated = 0
    public var deleted = 0
    /// Of the changes sent, those the org refused and those that met a change made there.
    public var refused = 0
    public var conflicted = 0
    /// The changes whose outcome is known, all of the above: what "Sent N" counts, so it adds up.
    /// A change whose answer was lost is counted by the run that learns what became of it.
    public var sent: Int { created + updated + deleted + refused + conflicted }
    /// What the sync downs received and committed, all together and each.
    public var down = SyncDownSummary()
    public var syncDowns: [(name: String, summary: SyncDownSummary)] = []
    public var received: Int { down.received }
    /// Records whose refused update (the server's copy was newer) took the server's other changes
    /// in the sync up: received, though no sync down brought them.
    public var mergedFromServer = 0
    /// Of the created and updated: found done on the server after their answer was lost, not sent twice.
    public var confirmedAfterLostAnswer = 0
    /// What the user hears as "new or changed on the server".
    public var changedOnServer: Int { down.changedOnServer + mergedFromServer }
    public var ghostsRemoved = 0
    /// Records the org now shares with the user that no change of theirs brought (a territory or
    /// team change): found by the ghost check's ids and fetched.
    public var arrived = 0
    /// Records no subscription holds any more that this run sent the change of, then removed.
    public var leftAfterSending = 0
    /// Records that now carry a `__last_error__` / a `__conflict__`, across the synced soups.
    public var recordErrors = 0
    public var conflicts = 0
    public var failure: String?
    /// Named syncs that failed on their own while the others ran (`SyncRun.failsAlone`).
    public var failedSyncs: [(name: String, reason: String)] = []
    /// The failure was the network: no request reached the org.
    public var offline = false
    /// The failure came before any request (another sync running, a store problem).
    public var stoppedBeforeAsking = false
    /// The org refused the session (and a refresh could not renew it): sign in again.
    public var sessionExpired = false
    /// Sync downs whose fields the org now hides from this user (said when it changes, not on
    /// every run): each synced the rest.
    public var hiddenFields: [(name: String, fields: [String])] = []

    public init() {}

    /// Whether the summary says something: anything moved either way, or records are left with
    /// errors or conflicts.
    public var hasNews: Bool {
        sent > 0 || received > 0 || ghostsRemoved > 0 || arrived > 0 || leftAfterSending > 0 || conflicted > 0 || mergedFromServer > 0 || recordErrors > 0 || conflicts > 0
    }

    /// Ends the run on `error`: its message, what it says about the connection, and the records
    /// left with errors or conflicts.
    public mutating func stop(_ message: String, after error: any Error, entries: [SyncsConfig.Entry], store: SmartStore) throws {
        failure = message
        noteConnection(after: error)
        try countOpenIssues(entries: entries, store: store)
    }

    /// Records what a failure says about the connection, for the TUI's online / offline.
    public mutating func noteConnection(after error: any Error) {
        // The engine throws a remote failure as it is, or wrapped in MobileSyncError.remote.
        let error: any Error = (error as? SyncRemoteError).map(MobileSyncError.remote) ?? error
        if case MobileSyncError.remote(.sessionExpired) = error { sessionExpired = true }
        switch error {
        case let error as MobileSyncError:
            switch error {
            case .remote(.offline): offline = true
            case .remote: break
            default: stoppedBeforeAsking = true
            }
        case let error as ForceAPIError:
            offline = offline || error.isOffline
        default:
            stoppedBeforeAsking = true
        }
    }

    public mutating func add(_ summary: SyncUpSummary) {
        created += summary.created
        updated += summary.updated
        deleted += summary.deleted
        refused += summary.errors
        conflicted += summary.conflicts
        mergedFromServer += summary.mergedFromServer
        confirmedAfterLostAnswer += summary.confirmedAfterLostAnswer
    }

    /// A sync down's tallies; a description of an sObject (metadata, layout) is listed with its
    /// sync but is not a record the user received.
    public mutating func add(_ summary: SyncDownSummary, of name: String, countsRecords: Bool = true) {
        if countsRecords { down = down + summary }
        syncDowns.append((name, summary))
    }

    public mutating func countOpenIssues(entries: [SyncsConfig.Entry], store: SmartStore) throws {
        recordErrors = 0
        conflicts = 0
        for soup in Set(entries.map(\.soupName)).sorted() where try store.hasSoup(soup) {
            let counts = try SoupChanges.openIssues(soup: soup, in: store)
            recordErrors += counts.errors
            conflicts += counts.conflicts
        }
    }

    public var json: JSONObject {
        var object: JSONObject = [
            "sent": .int(Int64(sent)), "created": .int(Int64(created)), "updated": .int(Int64(updated)),
            "deleted": .int(Int64(deleted)), "ghostsRemoved": .int(Int64(ghostsRemoved)), "arrived": .int(Int64(arrived)),
            "leftAfterSending": .int(Int64(leftAfterSending)),
            "errors": .int(Int64(recordErrors)), "conflicts": .int(Int64(conflicts)),
            "mergedFromServer": .int(Int64(mergedFromServer)), "confirmedAfterLostAnswer": .int(Int64(confirmedAfterLostAnswer)),
        ]
        for (key, value) in down.json { object[key] = value }  // received, stored, unchanged, keptLocalChanges
        var downs: JSONObject = [:]
        for (name, summary) in syncDowns { downs[name] = .object(summary.json) }
        object["syncDowns"] = .object(downs)
        object["failure"] = failure.map(JSONValue.string) ?? .null
        object["failedSyncs"] = .array(failedSyncs.map { .object(["name": .string($0.name), "error": .string($0.reason)]) })
        object["hiddenFields"] = .object(JSONObject(uniqueKeysWithValues: hiddenFields.map { ($0.name, .array($0.fields.map(JSONValue.string))) }))
        return object
    }

    /// What the sync downs brought, in the user's terms: what is news, what this store held
    /// already (the last second's records asked again, this run's own changes coming back), and
    /// what waits behind a local change. Its parts after the first are left out when zero.
    var receivedText: String {
        let news = down.changedOnServer
        let held = down.unchanged + down.heldAlready
        var parts = ["\(news) new or changed on the server"]
        if held > 0 { parts.append("\(held) you had already") }
        if down.keptLocalChanges > 0 { parts.append("\(down.keptLocalChanges) kept as changed here") }
        return "received \(received) record\(received == 1 ? "" : "s")" + (received > 0 ? " (\(parts.joined(separator: ", ")))" : "")
    }

    public var text: String {
        var outcomes = "\(created) created, \(updated) updated, \(deleted) deleted"
        if refused > 0 { outcomes += ", \(refused) refused" }
        if conflicted > 0 { outcomes += ", \(conflicted) in conflict" }
        if mergedFromServer > 0 { outcomes += ", \(mergedFromServer) merged with changes made on the server" }
        if confirmedAfterLostAnswer > 0 {
            outcomes += "; \(confirmedAfterLostAnswer) of the created and updated found done on the server after their answer was lost, not sent twice"
        }
        let shared = arrived > 0 ? " \(arrived) record\(arrived == 1 ? "" : "s") newly shared with you arrived." : ""
        var lines = ["Sent \(sent) change\(sent == 1 ? "" : "s") (\(outcomes)); \(receivedText); removed \(ghostsRemoved) deleted on the server.\(shared)"]
        if leftAfterSending > 0 {
            lines.append(
                "\(leftAfterSending) record\(leftAfterSending == 1 ? "" : "s") left the store once \(leftAfterSending == 1 ? "its change was" : "their changes were") sent (no subscription holds \(leftAfterSending == 1 ? "it" : "them") any more)."
            )
        }
        if recordErrors > 0 || conflicts > 0 {
            lines.append("\(recordErrors) record\(recordErrors == 1 ? "" : "s") with errors, \(conflicts) conflict\(conflicts == 1 ? "" : "s"); see forceterm status.")
        }
        for (name, reason) in failedSyncs {
            lines.append("\(name) failed (the other syncs ran): \(reason.oneLine)")
        }
        for (name, fields) in hiddenFields {
            lines.append("The org hides \(fields.joined(separator: ", ")) from you: \(name) synced the other fields (your profile's field-level security; an admin can grant them).")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension SyncDownSummary {
    /// `received` (every record committed) = `stored` + `unchanged` + `keptLocalChanges`; of
    /// `stored`, `heldAlready` held every value already (mostly the sync's own changes back).
    public var json: JSONObject {
        var object: JSONObject = [
            "received": .int(Int64(received)), "stored": .int(Int64(stored)), "unchanged": .int(Int64(unchanged)),
            "keptLocalChanges": .int(Int64(keptLocalChanges)), "heldAlready": .int(Int64(heldAlready)),
        ]
        if !leftOutFields.isEmpty { object["leftOutFields"] = .array(leftOutFields.map(JSONValue.string)) }
        return object
    }
}
