import ForceJSON
import SmartStore
import Testing
@testable import MobileSync

@Suite("Saving downloaded records and cleaning ghosts, on a real store")
struct SyncDownStoreTests {
    func save(_ records: [JSONObject], _ mode: MergeMode, _ fixture: SyncStore, skip: DownloadedRecordWriter.SkipUnchanged = .never,
              syncId: Int64 = 7) throws -> DownloadedRecordWriter.Result {
        let writer = DownloadedRecordWriter(soupName: "contacts", mergeMode: mode, syncId: syncId)
        return try fixture.store.write { try writer.save(records, skip: skip, in: $0) }
    }

    static func result(saved: Int = 0, dirty: Int = 0, unchanged: Int = 0) -> DownloadedRecordWriter.Result {
        var result = DownloadedRecordWriter.Result()
        result.saved = saved
        result.skippedDirty = dirty
        result.skippedUnchanged = unchanged
        return result
    }

    @Test func downloadedRecordsAreStoredCleanWithTheSyncId() throws {
        let fixture = try SyncStore()
        let result = try save([Records.contact("003A", last: "Ada"), Records.contact("003B", last: "Bob")], .overwrite, fixture)
        #expect(result.saved == 2)
        let stored = try #require(try fixture.document("contacts", id: "003A"))
        #expect(stored[LocalField.syncId] == 7)
        #expect(stored[LocalField.local] == false && stored[LocalField.locallyUpdated] == false)
        #expect(stored["attributes"]?["type"] == "Contact")
        // The dirty flag is queryable the SDK's way through its string index.
        #expect(try fixture.store.count(.exact("contacts", path: LocalField.local, matchKey: false)) == 2)
    }

    /// A record new to the soup is the server's copy with its fields in the server's order; what
    /// the engine or SmartStore owns is never taken from the server, whatever it sends.
    @Test func aNewRecordKeepsTheServersFieldsInOrderAndNoneOfItsBookkeeping() throws {
        let server: JSONObject = [
            "Id": "003A", LocalField.local: true, "LastName": "Ada", "_soupEntryId": 99, LocalField.lastError: "stale",
            "_soupLastModifiedDate": 1, "_private": "kept", LocalField.syncId: 3, "Title": "Engineer",
        ]
        let merged = DownloadedRecordWriter.merge(server: server, over: nil, syncId: 7)
        #expect(Array(merged.keys) == ["Id", "LastName", "_private", "Title", LocalField.syncId, LocalField.local,
                                       LocalField.locallyCreated, LocalField.locallyUpdated, LocalField.locallyDeleted])
        #expect(merged[LocalField.syncId] == 7 && merged[LocalField.local] == false)
        #expect(merged == DownloadedRecordWriter.merge(server: server, over: [:], syncId: 7), "the same as merging over an empty copy")
        #expect(LocalField.bookkeeping.allSatisfy { $0.hasPrefix("_") }, "the merge's fast check for engine-owned keys relies on it")
    }

    @Test func leaveIfChangedKeepsLocalEditsAndOverwriteDiscardsThem() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada"), Records.contact("003B", last: "Bob")], .overwrite, fixture)
        for id in ["003A", "003B"] {
            let record = try #require(try fixture.document("contacts", id: id))
            _ = try fixture.store.upsert(Records.edited(record, ["LastName": "Edited"]), in: "contacts")
        }
        let server = [Records.contact("003A", last: "Server", modified: "2024-06-01T00:00:00.000+0000"),
                      Records.contact("003B", last: "Server", modified: "2024-06-01T00:00:00.000+0000")]

        let kept = try save(server, .leaveIfChanged, fixture)
        #expect(kept.saved == 0 && kept.skippedDirty == 2)
        #expect(try fixture.document("contacts", id: "003A")?["LastName"] == "Edited")
        #expect(try fixture.document("contacts", id: "003A")?.isDirty == true)

        _ = try save(server, .overwrite, fixture)
        let overwritten = try #require(try fixture.document("contacts", id: "003A"))
        #expect(overwritten["LastName"] == "Server" && !overwritten.isDirty)
    }

    @Test func overwriteBringsBackALocallyDeletedRecordAndLeavesLocalCreatesAlone() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada")], .overwrite, fixture)
        let record = try #require(try fixture.document("contacts", id: "003A"))
        _ = try fixture.store.upsert(Records.edited(record, delete: true), in: "contacts")
        _ = try fixture.store.create(Records.created("local_1", fields: ["LastName": "New"]), in: "contacts")
        _ = try save([Records.contact("003A", last: "Ada")], .overwrite, fixture)
        #expect(try fixture.document("contacts", id: "003A")?.isLocallyDeleted == false)
        #expect(try fixture.document("contacts", id: "local_1")?.isLocallyCreated == true)
        #expect(try fixture.documents("contacts").count == 2)
    }

    @Test(arguments: [MergeMode.overwrite, .leaveIfChanged])
    func localOnlyFieldsSurviveASyncDown(mode: MergeMode) throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada")], .overwrite, fixture)
        var record = try #require(try fixture.document("contacts", id: "003A"))
        record["Notes__local"] = "met at the fair"
        _ = try fixture.store.upsert(record, in: "contacts")
        _ = try save([Records.contact("003A", last: "Lovelace", modified: "2024-06-01T00:00:00.000+0000")], mode, fixture)
        let stored = try #require(try fixture.document("contacts", id: "003A"))
        #expect(stored["LastName"] == "Lovelace")
        #expect(stored["Notes__local"] == "met at the fair")
        #expect(try fixture.documents("contacts").count == 1, "updated in place, not duplicated")
    }

    @Test func recordsOfTheBoundarySecondAlreadyHeldAreSkippedNewerOnesSaved() throws {
        let fixture = try SyncStore()
        let boundaryText = "2024-05-01T10:00:00.000+0000"
        let boundary = try #require(SalesforceTimestamp.parse(boundaryText))
        _ = try save([Records.contact("003A", last: "Ada", modified: boundaryText)], .overwrite, fixture)
        // The `>=` query returns the held record again, plus one changed in the same second we had not seen.
        let result = try save([Records.contact("003A", last: "Ada", modified: boundaryText),
                               Records.contact("003B", last: "Same second", modified: boundaryText),
                               Records.contact("003C", last: "Later", modified: "2024-05-01T10:00:01.000+0000")],
                              .leaveIfChanged, fixture, skip: .atBoundary(boundary))
        #expect(result == Self.result(saved: 2, unchanged: 1))
        #expect(try fixture.document("contacts", id: "003B") != nil, "a same-second change is never missed")
    }

    /// A capped query runs whole: what this sync already holds clean with the server's modification
    /// time is skipped unwritten, whatever the time; anything else is written as before.
    @Test(arguments: [MergeMode.overwrite, .leaveIfChanged])
    func aFullRunSkipsOnlyCleanRecordsThisSyncHoldsWithTheSameModification(mode: MergeMode) throws {
        let fixture = try SyncStore()
        let early = "2024-05-01T10:00:00.000+0000"
        let late = "2024-05-01T10:00:05.000+0000"
        _ = try save([Records.contact("003A", last: "Ada", modified: early), Records.contact("003B", last: "Bob", modified: early),
                      Records.contact("003D", last: "Dirty", modified: early)], .overwrite, fixture)
        _ = try save([Records.contact("003C", last: "Cy", modified: early)], .overwrite, fixture, syncId: 8)
        try fixture.store.write { transaction in
            var dirty = try #require(try fixture.document("contacts", id: "003D"))
            dirty[LocalField.local] = true
            dirty[LocalField.locallyUpdated] = true
            _ = try transaction.update(dirty, id: try #require(dirty.soupEntryId), in: "contacts")
        }
        let before = try #require(try fixture.document("contacts", id: "003A"))

        // The server's copies: A unchanged (a different LastName under the same time shows whether
        // it was rewritten), B changed since, C held by another sync, D edited locally, E new.
        let result = try save([Records.contact("003A", last: "Not rewritten", modified: early),
                               Records.contact("003B", last: "Bobby", modified: late),
                               Records.contact("003C", last: "Cy", modified: early),
                               Records.contact("003D", last: "Dirty", modified: early),
                               Records.contact("003E", last: "Eve", modified: early)],
                              mode, fixture, skip: .always)
        let leftDirty = mode == .leaveIfChanged ? 1 : 0
        #expect(result == Self.result(saved: 4 - leftDirty, dirty: leftDirty, unchanged: 1))
        let after = try #require(try fixture.document("contacts", id: "003A"))
        #expect(after == before, "skipped without a write")
        #expect(try fixture.document("contacts", id: "003B")?["LastName"] == "Bobby")
        #expect(try fixture.document("contacts", id: "003C")?[LocalField.syncId] == 7, "taken over by the sync that fetched it")
        #expect(try fixture.document("contacts", id: "003D")?.isDirty == (mode == .leaveIfChanged))
        #expect(try fixture.document("contacts", id: "003E") != nil)

        // Without a skip (a first run of a changed definition) everything is written again.
        #expect(try save([Records.contact("003A", last: "Rewritten", modified: early)], mode, fixture) == Self.result(saved: 1))
        #expect(try fixture.document("contacts", id: "003A")?["LastName"] == "Rewritten")
    }

    @Test func theLatestModificationOfABatchFollowsTheSDKsRule() {
        let records = [Records.contact("1", last: "a", modified: "2024-05-01T10:00:00.000+0000"),
                       Records.contact("2", last: "b", modified: "2024-05-02T10:00:00.000+0000")]
        #expect(DownloadedRecordWriter.latestModification(of: records, field: "LastModifiedDate")
            == SalesforceTimestamp.parse("2024-05-02T10:00:00.000Z"))
        var broken = records
        broken[1]["LastModifiedDate"] = .null
        #expect(DownloadedRecordWriter.latestModification(of: broken, field: "LastModifiedDate") == -1)
    }

    @Test func ghostsAreCleanRecordsOfThisSyncTheServerNoLongerReturns() throws {
        let fixture = try SyncStore()
        _ = try save((1...5).map { Records.contact("003\($0)", last: "C\($0)") }, .overwrite, fixture, syncId: 7)
        _ = try save([Records.contact("003OTHER", last: "Other sync")], .overwrite, fixture, syncId: 8)
        let dirty = try #require(try fixture.document("contacts", id: "0035"))
        _ = try fixture.store.upsert(Records.edited(dirty, ["Title": "edited offline"]), in: "contacts")

        let cleaner = GhostCleaner(soupName: "contacts", syncId: 7)
        let local = try fixture.store.read { try cleaner.cleanLocalIds(in: $0) }
        #expect(local == ["0031", "0032", "0033", "0034"], "dirty records and other syncs' records are not candidates")
        let ghosts = GhostCleaner.ghosts(localIds: local, remoteIds: ["0031", "0033"])
        #expect(ghosts == ["0032", "0034"])
        let removed = try fixture.store.write { try cleaner.remove(ghosts + ["0035"], in: $0) }
        #expect(removed == 2, "a dirty record is never removed, even when asked")
        #expect(try fixture.documents("contacts").compactMap { $0["Id"]?.stringValue } == ["0031", "0033", "0035", "003OTHER"])
    }

    @Test func theMassDeletionGuardStopsLargeShareDeletionsOfLargeSoupsOnly() throws {
        let guardrail = MassDeletionGuard()
        #expect(!guardrail.trips(deleting: 50, of: 100), "exactly half is allowed")
        #expect(guardrail.trips(deleting: 51, of: 100))
        #expect(!guardrail.trips(deleting: 10, of: 10), "a tiny soup may be emptied")
        #expect(guardrail.trips(deleting: 20, of: 20))
        #expect(throws: MobileSyncError.massDeletion(soup: "contacts", wouldDelete: 600, of: 1000, limitPercent: 50)) {
            try guardrail.check(deleting: 600, of: 1000, soup: "contacts", force: false)
        }
        try guardrail.check(deleting: 600, of: 1000, soup: "contacts", force: true)
        let message = "\(MobileSyncError.massDeletion(soup: "contacts", wouldDelete: 600, of: 1000, limitPercent: 50))"
        #expect(message.contains("would delete 600 of 1000 records in contacts") && message.contains("--force-delete"))
    }

    @Test func aSoupWithoutAnIdIndexIsRefusedClearly() throws {
        let fixture = try SyncStore()
        try fixture.store.registerSoup("notes", indexSpecs: [IndexSpec(path: "Title", type: .string)])
        let writer = DownloadedRecordWriter(soupName: "notes", mergeMode: .overwrite, syncId: 1)
        #expect(throws: MobileSyncError.soupMissingIndex(soup: "notes", path: "Id")) {
            try fixture.store.write { try writer.save([Records.contact("1", last: "x")], in: $0) }
        }
    }
}
