import ForceJSON
import SmartStore
import Testing

@testable import MobileSync

@Suite("Saving downloaded records and cleaning ghosts, on a real store")
struct SyncDownStoreTests {
    func save(
        _ records: [JSONObject], _ fixture: SyncStore, skip: DownloadedRecordWriter.SkipUnchanged = .never,
        syncId: Int64 = 7
    ) throws -> DownloadedRecordWriter.Result {
        let writer = DownloadedRecordWriter(soupName: "contacts", syncId: syncId)
        return try fixture.store.write { try writer.save(records, skip: skip, in: $0) }
    }

    static func result(saved: Int = 0, dirty: Int = 0, unchanged: Int = 0, held: Int = 0) -> DownloadedRecordWriter.Result {
        var result = DownloadedRecordWriter.Result()
        result.saved = saved
        result.skippedDirty = dirty
        result.skippedUnchanged = unchanged
        result.heldAlready = held
        return result
    }

    @Test func downloadedRecordsAreStoredCleanWithTheSyncId() throws {
        let fixture = try SyncStore()
        let result = try save([Records.contact("003A", last: "Ada"), Records.contact("003B", last: "Bob")], fixture)
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
        #expect(
            Array(merged.keys) == [
                "Id", "LastName", "_private", "Title", LocalField.syncId, LocalField.local,
                LocalField.locallyCreated, LocalField.locallyUpdated, LocalField.locallyDeleted,
            ])
        #expect(merged[LocalField.syncId] == 7 && merged[LocalField.local] == false)
        #expect(merged == DownloadedRecordWriter.merge(server: server, over: [:], syncId: 7), "the same as merging over an empty copy")
        #expect(LocalField.bookkeeping.allSatisfy { $0.hasPrefix("_") }, "the merge's fast check for engine-owned keys relies on it")
    }

    /// Beyond the SDK: a sync down never discards a local change, in either merge mode. With a
    /// recorded base the server's copy is merged field by field; without one the record is left alone.
    @Test
    func aRecordWithLocalChangesIsMergedFieldByFieldInEitherMode() throws {
        let fixture = try SyncStore()
        let original: JSONObject = ["Title": "Engineer", "Department": "R&D", "Email": "ada@example.com"]
        _ = try save([Records.contact("003A", last: "Ada", extra: original), Records.contact("003B", last: "Bob", extra: original)], fixture)
        let ada = try #require(try fixture.document("contacts", id: "003A"))
        _ = try fixture.store.upsert(Records.edited(ada, ["Title": "Mine", "Email": "same@example.com"]), in: "contacts")
        let bob = try #require(try fixture.document("contacts", id: "003B"))
        _ = try fixture.store.upsert(Records.editedWithoutBase(bob, ["Title": "Mine"]), in: "contacts")
        let later = "2024-06-01T00:00:00.000+0000"
        let server = [
            Records.contact(
                "003A", last: "Ada", modified: later,
                extra: ["Title": "Theirs", "Department": "Sales", "Email": "same@example.com"]),
            Records.contact("003B", last: "Bob", modified: later, extra: ["Title": "Theirs", "Department": "Sales", "Email": "ada@example.com"]),
        ]
        let result = try save(server, fixture)
        #expect(result.saved == 1 && result.merged == 1 && result.conflicts == 1 && result.skippedDirty == 1)

        let merged = try #require(try fixture.document("contacts", id: "003A"))
        #expect(merged["Department"] == "Sales", "changed only on the server: taken")
        #expect(merged["Title"] == "Mine", "changed on both sides: mine is kept, as a conflict of that field")
        #expect(merged["Email"] == "same@example.com" && merged.baseValues?["Email"] == nil, "the same change on both sides: settled")
        #expect(merged["LastModifiedDate"]?.stringValue == later, "the next write is conditional on the version merged")
        let conflict = try #require(RecordConflict(merged[LocalField.conflict]))
        #expect(conflict.fields == ["Title"] && conflict.base == ["Title": "Engineer"] && conflict.server?["Title"] == "Theirs")
        #expect(merged.baseValues == ["Title": "Theirs"], "the base is now the server's version")
        #expect(merged.isDirty && merged[LocalField.syncId] == 7)

        let untouched = try #require(try fixture.document("contacts", id: "003B"))
        #expect(
            untouched["Title"] == "Mine" && untouched["Department"] == "R&D" && untouched.isDirty && !untouched.hasConflict,
            "without a recorded base the record is left as it is")
    }

    @Test func aMergeWhereTheServerChangedOnlyOtherFieldsLeavesMineToSendAndNoConflict() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada", extra: ["Title": "Engineer", "Department": "R&D"])], fixture)
        let ada = try #require(try fixture.document("contacts", id: "003A"))
        _ = try fixture.store.upsert(Records.edited(ada, ["Title": "Mine"]), in: "contacts")
        let result = try save(
            [
                Records.contact(
                    "003A", last: "Ada", modified: "2024-06-01T00:00:00.000+0000",
                    extra: ["Title": "Engineer", "Department": "Sales"])
            ], fixture)
        #expect(result.merged == 1 && result.conflicts == 0)
        let merged = try #require(try fixture.document("contacts", id: "003A"))
        #expect(merged["Title"] == "Mine" && merged["Department"] == "Sales" && merged.isDirty && !merged.hasConflict)
        #expect(merged.baseValues == ["Title": "Engineer"])
    }

    @Test func aServerCopyOfTheVersionAlreadyHeldLeavesALocalChangeAsItIs() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada", extra: ["Title": "Engineer"])], fixture)
        let ada = try #require(try fixture.document("contacts", id: "003A"))
        let edited = Records.edited(ada, ["Title": "Mine"])
        _ = try fixture.store.upsert(edited, in: "contacts")
        let result = try save([Records.contact("003A", last: "Ada", extra: ["Title": "Engineer"])], fixture)
        #expect(result.merged == 0 && result.skippedDirty == 1)
        let stored = try #require(try fixture.document("contacts", id: "003A"))
        #expect(stored["Title"] == "Mine" && stored.baseValues == ["Title": "Engineer"])
        // Another user's change in the same second carries the same date: values tell it apart.
        let sameSecond = try save([Records.contact("003A", last: "Ada", extra: ["Title": "Engineer", "Department": "Sales"])], fixture)
        #expect(sameSecond.merged == 1)
        #expect(try fixture.document("contacts", id: "003A")?["Department"] == "Sales")
    }

    /// Shrunk from the interleaved property (seed 24): a sync down skipped a record in conflict
    /// and moved its high-water mark past the server's newer version; taking the server's value
    /// then left the record behind it for good. Now the record takes the server's other changes,
    /// its conflict shows the newest copy, and its conflicting field stays in conflict.
    @Test func aRecordInConflictTakesTheServersOtherChangesAndItsConflictShowsTheNewestCopy() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada", extra: ["Title": "Engineer", "Department": "R&D"])], fixture)
        let ada = try #require(try fixture.document("contacts", id: "003A"))
        _ = try fixture.store.upsert(Records.edited(ada, ["Title": "Mine"]), in: "contacts")
        _ = try save([Records.contact("003A", last: "Ada", modified: "2024-06-01T00:00:00.000+0000", extra: ["Title": "Theirs", "Department": "R&D"])], fixture)
        let newer = Records.contact(
            "003A", last: "Ada", modified: "2024-06-02T00:00:00.000+0000",
            extra: ["Title": "Theirs again", "Department": "Sales"])
        let result = try save([newer], fixture)
        #expect(result.merged == 1)
        let stored = try #require(try fixture.document("contacts", id: "003A"))
        let conflict = try #require(RecordConflict(stored[LocalField.conflict]))
        #expect(stored["Department"] == "Sales" && stored["Title"] == "Mine")
        #expect(conflict.fields == ["Title"] && conflict.base == ["Title": "Engineer"] && conflict.server?["Title"] == "Theirs again")
        #expect(stored["LastModifiedDate"] == "2024-06-02T00:00:00.000+0000")
        try ConflictResolver(store: fixture.store, soupName: "contacts").takeServer(entryId: try #require(stored.soupEntryId))
        let settled = try #require(try fixture.document("contacts", id: "003A"))
        #expect(settled["Title"] == "Theirs again" && settled["Department"] == "Sales" && !settled.isDirty)
    }

    @Test func aRecordDeletedHereThatTheServerChangedIsAConflictAtOnce() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada", extra: ["Title": "Engineer"])], fixture)
        let ada = try #require(try fixture.document("contacts", id: "003A"))
        _ = try fixture.store.upsert(Records.edited(ada, delete: true), in: "contacts")
        _ = try save([Records.contact("003A", last: "Ada", modified: "2024-06-01T00:00:00.000+0000", extra: ["Title": "Promoted"])], fixture)
        let stored = try #require(try fixture.document("contacts", id: "003A"))
        #expect(stored.isLocallyDeleted && stored["Title"] == "Engineer")
        #expect(SyncConflict(record: stored, soupName: "contacts")?.kind == .deletedHere)
        #expect(RecordConflict(stored[LocalField.conflict])?.server?["Title"] == "Promoted")
    }

    @Test func ourOwnWriteWhoseAnswerWasLostIsNotAnotherUsersChange() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada", extra: ["Title": "Engineer"])], fixture)
        let ada = try #require(try fixture.document("contacts", id: "003A"))
        // Sent "First" (the answer was lost), then edited again to "Second".
        _ = try fixture.store.upsert(Records.edited(Records.edited(ada, ["Title": "First"]), ["Title": "Second"]), in: "contacts")
        var writer = DownloadedRecordWriter(soupName: "contacts", syncId: 7)
        writer.ownWrites = [try #require(ada.soupEntryId): ["Title": "First"]]
        let server = Records.contact("003A", last: "Ada", modified: "2024-06-01T00:00:00.000+0000", extra: ["Title": "First"])
        let result = try fixture.store.write { try writer.save([server], in: $0) }
        #expect(result.conflicts == 0)
        let stored = try #require(try fixture.document("contacts", id: "003A"))
        #expect(stored["Title"] == "Second" && stored.baseValues == ["Title": "First"] && !stored.hasConflict)
    }

    @Test
    func aLocalDeleteSurvivesASyncDownAndLocalCreatesAreLeftAlone() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada")], fixture)
        let record = try #require(try fixture.document("contacts", id: "003A"))
        _ = try fixture.store.upsert(Records.edited(record, delete: true), in: "contacts")
        _ = try fixture.store.create(Records.created("local_1", fields: ["LastName": "New"]), in: "contacts")
        _ = try save([Records.contact("003A", last: "Ada", modified: "2024-06-01T00:00:00.000+0000")], fixture)
        #expect(try fixture.document("contacts", id: "003A")?.isLocallyDeleted == true, "the SDK's OVERWRITE would bring it back")
        #expect(try fixture.document("contacts", id: "local_1")?.isLocallyCreated == true)
        #expect(try fixture.documents("contacts").count == 2)
    }

    @Test
    func localOnlyFieldsSurviveASyncDown() throws {
        let fixture = try SyncStore()
        _ = try save([Records.contact("003A", last: "Ada")], fixture)
        var record = try #require(try fixture.document("contacts", id: "003A"))
        record["Notes__local"] = "met at the fair"
        _ = try fixture.store.upsert(record, in: "contacts")
        _ = try save([Records.contact("003A", last: "Lovelace", modified: "2024-06-01T00:00:00.000+0000")], fixture)
        let stored = try #require(try fixture.document("contacts", id: "003A"))
        #expect(stored["LastName"] == "Lovelace")
        #expect(stored["Notes__local"] == "met at the fair")
        #expect(try fixture.documents("contacts").count == 1, "updated in place, not duplicated")
    }

    @Test func recordsOfTheBoundarySecondAlreadyHeldAreSkippedNewerOnesSaved() throws {
        let fixture = try SyncStore()
        let boundaryText = "2024-05-01T10:00:00.000+0000"
        let boundary = try #require(SalesforceTimestamp.parse(boundaryText))
        _ = try save([Records.contact("003A", last: "Ada", modified: boundaryText)], fixture)
        // The `>=` query returns the held record again, plus one changed in the same second we had not seen.
        let result = try save(
            [
                Records.contact("003A", last: "Ada", modified: boundaryText),
                Records.contact("003B", last: "Same second", modified: boundaryText),
                Records.contact("003C", last: "Later", modified: "2024-05-01T10:00:01.000+0000"),
            ], fixture, skip: .atBoundary(boundary))
        #expect(result == Self.result(saved: 2, unchanged: 1))
        #expect(try fixture.document("contacts", id: "003B") != nil, "a same-second change is never missed")
    }

    /// A capped query runs whole: what this sync already holds clean with the server's modification
    /// time is skipped unwritten, whatever the time; anything else is written as before.
    @Test
    func aFullRunSkipsOnlyCleanRecordsThisSyncHoldsWithTheSameModification() throws {
        let fixture = try SyncStore()
        let early = "2024-05-01T10:00:00.000+0000"
        let late = "2024-05-01T10:00:05.000+0000"
        _ = try save(
            [
                Records.contact("003A", last: "Ada", modified: early), Records.contact("003B", last: "Bob", modified: early),
                Records.contact("003D", last: "Dirty", modified: early),
            ], fixture)
        _ = try save([Records.contact("003C", last: "Cy", modified: early)], fixture, syncId: 8)
        try fixture.store.write { transaction in
            var dirty = try #require(try fixture.document("contacts", id: "003D"))
            dirty[LocalField.local] = true
            dirty[LocalField.locallyUpdated] = true
            _ = try transaction.update(dirty, id: try #require(dirty.soupEntryId), in: "contacts")
        }
        let before = try #require(try fixture.document("contacts", id: "003A"))

        // The server's copies: A unchanged, B changed since, C held by another sync, D edited
        // locally (without a base: left alone in either mode), E new.
        let result = try save(
            [
                Records.contact("003A", last: "Ada", modified: early),
                Records.contact("003B", last: "Bobby", modified: late),
                Records.contact("003C", last: "Cy", modified: early),
                Records.contact("003D", last: "Dirty", modified: early),
                Records.contact("003E", last: "Eve", modified: early),
            ], fixture, skip: .always)
        // C is written (another sync's record) but brings nothing new: held already.
        #expect(result == Self.result(saved: 3, dirty: 1, unchanged: 1, held: 1))
        let after = try #require(try fixture.document("contacts", id: "003A"))
        #expect(after == before, "skipped without a write")
        #expect(try fixture.document("contacts", id: "003B")?["LastName"] == "Bobby")
        #expect(try fixture.document("contacts", id: "003C")?[LocalField.syncId] == 7, "taken over by the sync that fetched it")
        #expect(try fixture.document("contacts", id: "003D")?.isDirty == true)
        #expect(try fixture.document("contacts", id: "003E") != nil)

        // Another change in the same second carries the same time: its values tell it apart.
        #expect(
            try save(
                [Records.contact("003A", last: "Changed in the same second", modified: early)], fixture,
                skip: .always) == Self.result(saved: 1))

        // Without a skip (a first run of a changed definition) everything is written again.
        #expect(try save([Records.contact("003A", last: "Rewritten", modified: early)], fixture, skip: .never) == Self.result(saved: 1))
        #expect(try fixture.document("contacts", id: "003A")?["LastName"] == "Rewritten")
    }

    @Test func theLatestModificationOfABatchFollowsTheSDKsRule() {
        let records = [
            Records.contact("1", last: "a", modified: "2024-05-01T10:00:00.000+0000"),
            Records.contact("2", last: "b", modified: "2024-05-02T10:00:00.000+0000"),
        ]
        #expect(
            DownloadedRecordWriter.latestModification(of: records, field: "LastModifiedDate")
                == SalesforceTimestamp.parse("2024-05-02T10:00:00.000Z"))
        var broken = records
        broken[1]["LastModifiedDate"] = .null
        #expect(DownloadedRecordWriter.latestModification(of: broken, field: "LastModifiedDate") == -1)
    }

    @Test func ghostsAreCleanRecordsOfThisSyncTheServerNoLongerReturns() throws {
        let fixture = try SyncStore()
        _ = try save((1...5).map { Records.contact("003\($0)", last: "C\($0)") }, fixture, syncId: 7)
        _ = try save([Records.contact("003OTHER", last: "Other sync")], fixture, syncId: 8)
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
        let writer = DownloadedRecordWriter(soupName: "notes", syncId: 1)
        #expect(throws: MobileSyncError.soupMissingIndex(soup: "notes", path: "Id")) {
            try fixture.store.write { try writer.save([Records.contact("1", last: "x")], in: $0) }
        }
    }
}
