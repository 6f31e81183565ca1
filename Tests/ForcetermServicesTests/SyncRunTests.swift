import ForceAPI
import ForcetermServices
import MobileSync
import Testing

/// How a sync run classifies what stopped it: one sync's own problem lets the others run; the
/// connection, the session and the store stop them all, and the report says which it was.
@Suite("The sync run: which failures stop one sync, which stop the run")
struct SyncRunTests {
    @Test("An org refusing one sync's query or request (4xx but 401), or its definition, fails that sync alone")
    func failsAlone() {
        #expect(SyncRun.failsAlone(SyncRemoteError.server(status: 400, errorCode: "INVALID_FIELD", message: "No such column 'Shoe__c'")))
        #expect(SyncRun.failsAlone(MobileSyncError.remote(.server(status: 404, errorCode: "NOT_FOUND", message: "no layout"))))
        #expect(SyncRun.failsAlone(MobileSyncError.invalidTarget("no query")))
        #expect(SyncRun.failsAlone(MobileSyncError.store("unknown soup 'notes'")))
        #expect(!SyncRun.failsAlone(SyncRemoteError.server(status: 401, errorCode: "INVALID_SESSION_ID", message: "expired")))
        #expect(!SyncRun.failsAlone(SyncRemoteError.server(status: 503, errorCode: "SERVER_UNAVAILABLE", message: "busy")))
        #expect(!SyncRun.failsAlone(SyncRemoteError.offline("connection refused")))
        #expect(!SyncRun.failsAlone(MobileSyncError.store("disk I/O error")))
    }

    @Test("The report tells offline, an expired session and a stop before any request apart")
    func connectionNoted() {
        var offline = SyncRunReport()
        offline.noteConnection(after: SyncRemoteError.offline("connection refused"))
        #expect(offline.offline && !offline.sessionExpired && !offline.stoppedBeforeAsking)

        var expired = SyncRunReport()
        expired.noteConnection(after: MobileSyncError.remote(.sessionExpired))
        #expect(expired.sessionExpired && !expired.offline && !expired.stoppedBeforeAsking)

        var locked = SyncRunReport()
        locked.noteConnection(after: MobileSyncError.syncLocked(storePath: "/tmp/store.sqlite"))
        #expect(locked.stoppedBeforeAsking && !locked.offline)
    }

    @Test("Every sync up runs before every sync down, in the file's order")
    func order() throws {
        let config = try SyncsConfig(
            json: """
                {"syncs": [
                  {"syncName": "downContacts", "syncType": "syncDown", "soupName": "contacts", "target": {"type": "soql", "query": "SELECT Id FROM Contact"}, "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
                  {"syncName": "upContacts", "syncType": "syncUp", "soupName": "contacts", "target": {"createFieldlist": ["LastName"]}, "options": {"fieldlist": ["LastName"], "mergeMode": "LEAVE_IF_CHANGED"}},
                  {"syncName": "downAccounts", "syncType": "syncDown", "soupName": "accounts", "target": {"type": "soql", "query": "SELECT Id FROM Account"}, "options": {"mergeMode": "OVERWRITE"}}
                ]}
                """)
        #expect(SyncRun(entries: config.entries, up: true, down: true, forceDelete: false).order == ["upContacts", "downContacts", "downAccounts"])
        #expect(SyncRun(entries: config.entries, up: false, down: true, forceDelete: false).order == ["downContacts", "downAccounts"])
        #expect(SyncRun(entries: config.entries, up: true, down: false, forceDelete: false).order == ["upContacts"])
    }

    @Test("The failure line names the sync and says local changes are kept")
    func failureMessage() {
        #expect(
            SyncRun.failureMessage("syncDownContacts", ForceClientRemote.remoteError(.offline(.connectionRefused, host: "10.99.0.2")))
                == "syncDownContacts stopped: cannot connect to Salesforce (10.99.0.2: connection refused: is the server running, and on that port?); "
                + "sync again once it is. Local changes are kept in the store.",
            "what to do is said once")
        #expect(
            SyncRun.failureMessage("syncDownContacts", SyncRemoteError.server(status: 500, errorCode: "UNKNOWN_EXCEPTION", message: "boom"))
                .hasSuffix("Local changes are kept in the store; run forceterm sync again."))
    }

    @Test("A sync up run twice counts each record once: the first run's refusals are sent again and counted by the second")
    func rerunTallies() {
        var first = SyncUpSummary()
        first.sent = 10
        first.updated = 8
        first.errors = 2
        var second = SyncUpSummary()
        second.sent = 5
        second.updated = 3
        second.errors = 2
        second.conflicts = 1
        let total = SyncRun.combined([first, second])
        #expect(total.sent == 13 && total.updated == 11 && total.errors == 2 && total.conflicts == 1)
        #expect(SyncRun.combined([first]) == first)
        #expect(SyncRun.combined([]) == SyncUpSummary())
        #expect(SyncRun.isLinkFailure(SyncRemoteError.offline("the transfer stalled, after 20 s")))
        #expect(!SyncRun.isLinkFailure(SyncRemoteError.server(status: 503, errorCode: "SERVER_UNAVAILABLE", message: "busy")))
    }

    @Test("The summary says what was received in the user's terms, its later parts left out when zero")
    func receivedText() {
        var report = SyncRunReport()
        #expect(report.text == "Sent 0 changes (0 created, 0 updated, 0 deleted); received 0 records; removed 0 deleted on the server.\n")
        var down = SyncDownSummary()
        down.stored = 12
        down.heldAlready = 2
        down.unchanged = 3
        down.keptLocalChanges = 1
        report.add(down, of: "syncDownContacts")
        report.updated = 2
        #expect(
            report.text == "Sent 2 changes (0 created, 2 updated, 0 deleted); received 16 records (10 new or changed on the server, "
                + "5 you had already, 1 kept as changed here); removed 0 deleted on the server.\n")
        var quiet = SyncRunReport()
        var unchanged = SyncDownSummary()
        unchanged.unchanged = 1
        quiet.add(unchanged, of: "syncDownContacts")
        #expect(quiet.text.contains("received 1 record (0 new or changed on the server, 1 you had already);"))
    }
}
