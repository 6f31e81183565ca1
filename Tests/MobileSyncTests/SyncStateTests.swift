import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

@Suite("Sync states in syncs_soup")
struct SyncStateTests {
    @Test func syncsSoupHasTheSDKsJson1Indexes() throws {
        let fixture = try SyncStore()
        _ = try SyncsSoup(store: fixture.store)
        let specs = try fixture.store.indexSpecs(soup: "syncs_soup").map { "\($0.path):\($0.type.rawValue)" }
        #expect(specs == ["name:json1", "type:json1", "status:json1"])
    }

    @Test func aNewSyncStartsWithTheSDKsDefaultsAndRoundTrips() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        let created = try syncs.create(
            SyncState(
                name: "down", target: .down(.soql("SELECT Name FROM Account")), options: SyncOptions(mergeMode: .leaveIfChanged),
                soupName: "accounts"))
        #expect(created.id > 0)
        #expect(created.status == .new && created.progress == 0 && created.totalSize == -1)
        #expect(created.maxTimeStamp == -1 && created.startTime == 0 && created.endTime == 0 && created.error == "")

        var running = created
        running.transition(to: .running, now: 1_000)
        running.maxTimeStamp = 42
        running.transition(to: .done, now: 2_500)
        try syncs.save(running)
        let reread = try #require(try syncs.state(id: created.id))
        #expect(reread == running)
        #expect(reread.startTime == 1_000 && reread.endTime == 2_500, "endTime is read from its own key, not startTime")
        #expect(try syncs.state(name: "down") == running)
        #expect(try syncs.state(id: 9_999) == nil)
    }

    @Test func theStoredDocumentHasTheSDKsKeys() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        let state = try syncs.create(
            SyncState(
                name: "up", target: .up(SyncUpTarget(createFieldlist: ["Name"])), options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Id", "Name"]),
                soupName: "accounts"))
        let document = try #require(try fixture.store.retrieve([state.id], from: "syncs_soup").first)
        for key in ["type", "name", "target", "options", "soupName", "status", "progress", "totalSize", "maxTimeStamp", "startTime", "endTime", "error"] {
            #expect(document[key] != nil, "missing \(key)")
        }
        #expect(document["type"] == "syncUp")
        #expect(document["options"] == ["fieldlist": ["Id", "Name"], "mergeMode": "OVERWRITE"])
        #expect(document["target"]?["createFieldlist"] == ["Name"])
        #expect(document["target"]?["maxBatchSize"] == 200)
    }

    @Test func aTakenNameIsRefusedWithTheSDKsMessage() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        let state = SyncState(name: "same", target: .down(.soql("SELECT Name FROM Account")), options: SyncOptions(), soupName: "accounts")
        _ = try syncs.create(state)
        #expect(throws: MobileSyncError.duplicateSyncName(type: .syncDown, name: "same")) { try syncs.create(state) }
        #expect(
            "\(MobileSyncError.duplicateSyncName(type: .syncDown, name: "same"))"
                == "Failed to create sync down: there is already a sync with name:same")
    }

    @Test func reSyncAfterAStopRewindsOneMillisecond() {
        var state = SyncState(target: .down(.soql("SELECT Name FROM Account")), options: SyncOptions(), soupName: "accounts")
        state.maxTimeStamp = 5_000
        state.totalSize = 10
        state.status = .stopped
        state.prepareForResync()
        #expect(state.maxTimeStamp == 4_999 && state.totalSize == -1)
        state.status = .done
        state.prepareForResync()
        #expect(state.maxTimeStamp == 4_999)
    }

    @Test func aSyncLeftRunningByACrashBecomesStoppedOthersAreUntouched() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        var ids: [SyncStatus: Int64] = [:]
        for status in SyncStatus.allCases {
            var state = try syncs.create(
                SyncState(
                    name: status.rawValue, target: .down(.soql("SELECT Name FROM Account")),
                    options: SyncOptions(), soupName: "accounts"))
            state.status = status
            try syncs.save(state)
            ids[status] = state.id
        }
        // A new handle on the file, as the next process would open it.
        try SyncManager.recoverAfterCrash(store: SmartStore(path: fixture.path))
        for status in SyncStatus.allCases {
            let id = try #require(ids[status])
            let reread = try #require(try syncs.state(id: id))
            #expect(reread.status == (status == .running ? .stopped : status))
        }
        let stopped = try #require(try syncs.state(name: "RUNNING"))
        #expect(stopped.endTime > 0, "leaving RUNNING stamps endTime")
    }

    @Test func aSyncRunningInAnotherProcessIsNotMarkedStopped() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        var state = try syncs.create(
            SyncState(
                name: "busy", target: .down(.soql("SELECT Name FROM Account")),
                options: SyncOptions(), soupName: "accounts"))
        state.status = .running
        try syncs.save(state)
        let holder = try LockHolder(storePath: fixture.path)
        defer { holder.stop() }
        try SyncManager.recoverAfterCrash(store: SmartStore(path: fixture.path))
        #expect(try syncs.state(id: state.id)?.status == .running)
    }

    @Test func optionsFollowTheSDKsRules() throws {
        #expect(try SyncOptions(json: ["fieldlist": ["Id"]]).mergeMode == .overwrite)
        #expect(throws: MobileSyncError.self) { try SyncOptions(json: ["mergeMode": "MERGE"]) }
        do {
            _ = try SyncOptions(json: ["mergeMode": "MERGE"])
        } catch {
            #expect("\(error)".contains("unknown mergeMode \"MERGE\"; use OVERWRITE or LEAVE_IF_CHANGED"))
        }
    }
}
