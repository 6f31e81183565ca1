import ForceJSON
import PropertyBased
import SmartStore
import Testing

@testable import MobileSync

/// The field-level rules on a real store file, one rule per test: what sync up sends,
/// what an answer does to a record changed while its write was on its way, how a refused write is
/// merged, and how a conflict is settled field by field or a record reverted.
@Suite("Field-level sync: bases, edits during a sync, merges and resolutions")
struct FieldLevelSyncTests {
    static let fields = ["FirstName", "LastName", "Title", "Department", "Email"]
    static let synced = "2024-05-01T10:00:00.000+0000"
    static let later = "2024-07-01T00:00:00.000+0000"

    let fixture: SyncStore
    let recorder = SyncUpRecorder(soupName: "contacts", target: SyncUpTarget(), mergeMode: .leaveIfChanged, updateFields: fields)
    var planner: SyncUpPlanner { SyncUpPlanner(target: SyncUpTarget(), options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: Self.fields), soupName: "contacts") }

    init() throws {
        fixture = try SyncStore()
        var ada = Records.contact(
            "003A", last: "Lovelace", modified: Self.synced,
            extra: ["FirstName": "Ada", "Title": "Engineer", "Department": "R&D", "Email": "ada@example.com"])
        ada[LocalField.local] = false
        _ = try fixture.store.create(ada, in: "contacts")
    }

    func ada() throws -> JSONObject { try #require(try fixture.document("contacts", id: "003A")) }

    func edit(_ changes: JSONObject) throws {
        _ = try fixture.store.upsert(try #require(LocalEdit.updated(try ada(), fields: changes)), in: "contacts")
    }

    func plan() throws -> SyncUpPlan {
        let records = try fixture.store.read { try SyncUpTask.dirtyRecords(soup: "contacts", in: $0) }
        return try planner.plan(records, serverIds: [:])
    }

    @discardableResult
    func answer(_ outcome: RecordOutcome, to write: PlannedWrite, server: JSONObject? = nil) throws -> (SyncUpSummary, Set<Int64>) {
        var summary = SyncUpSummary()
        let again = try fixture.store.write { try recorder.apply(outcome, to: write, serverValues: server, now: 42, summary: &summary, in: $0) }
        return (summary, again)
    }

    func serverCopy(_ changes: JSONObject, modified: String = later) -> JSONObject {
        var copy = Records.contact(
            "003A", last: "Lovelace", modified: modified,
            extra: ["FirstName": "Ada", "Title": "Engineer", "Department": "R&D", "Email": "ada@example.com"])
        for (key, value) in changes { copy[key] = value }
        return copy
    }

    // MARK: What is sent

    @Test func onlyTheFieldsChangedHereAreSentConditionallyOnTheVersionSeen() throws {
        try edit(["Title": "Countess"])
        try edit(["Title": "Countess of Lovelace"])
        #expect(try ada().baseValues == ["Title": "Engineer"], "the base is the value before the first change")
        #expect(
            try plan().writes.map(\.write) == [
                .update(sobjectType: "Contact", id: "003A", fields: ["Title": "Countess of Lovelace"], ifUnmodifiedSince: SalesforceTimestamp.parse(Self.synced))
            ])
    }

    @Test func anEditBackToTheBaseLeavesNothingToSendAndTheRecordIsSettled() throws {
        try edit(["Title": "Countess"])
        try edit(["Title": "Engineer"])
        let plan = try plan()
        #expect(plan.writes.isEmpty && plan.unchanged.count == 1)
        try fixture.store.write { try recorder.settleUnchanged(plan.unchanged, planner: planner, in: $0) }
        let settled = try ada()
        #expect(!settled.isDirty && settled[LocalField.base] == nil && settled["Title"] == "Engineer")
    }

    // MARK: Edits while a write is on its way

    @Test func anEditMadeWhileTheUpdateWasOnItsWayStaysToBeSent() throws {
        try edit(["Title": "First"])
        let write = try #require(try plan().writes.first)
        try edit(["Title": "Second", "Department": "Sales"])
        let (summary, again) = try answer(.success(id: "003A"), to: write)
        #expect(summary.updated == 1 && again.isEmpty)
        let record = try ada()
        #expect(record["Title"] == "Second" && record["Department"] == "Sales" && record.isDirty && record.isLocallyUpdated)
        #expect(record.baseValues == ["Title": "First", "Department": "R&D"], "the server now holds what was sent")
        #expect(record["LastModifiedDate"] == .null, "our write made the known date stale")
        #expect(
            try plan().writes.map(\.write) == [
                .update(sobjectType: "Contact", id: "003A", fields: ["Title": "Second", "Department": "Sales"], ifUnmodifiedSince: nil)
            ])
    }

    @Test func anUpdateAnsweredWithNothingChangedMeanwhileLeavesTheRecordClean() throws {
        try edit(["Title": "First"])
        let write = try #require(try plan().writes.first)
        try answer(.success(id: "003A"), to: write)
        let record = try ada()
        #expect(!record.isDirty && record[LocalField.base] == nil && record["Title"] == "First")
    }

    @Test func anEditMadeWhileTheCreateWasOnItsWayStaysToBeSentAsAnUpdate() throws {
        let created = try fixture.store.create(
            LocalEdit.created(
                fields: ["LastName": "Hopper", "Title": "Rear Admiral"],
                sObjectType: "Contact", localId: "local_1"), in: "contacts")
        let write = try #require(try plan().writes.first { $0.action == .create })
        try fixture.store.write { try recorder.markCreatesInFlight([write], now: 1, in: $0) }
        let entryId = try #require(created.soupEntryId)
        let inFlight = try #require(try fixture.store.retrieve([entryId], from: "contacts").first)
        #expect(
            inFlight[LocalField.createInFlight]?["fields"] == ["LastName": "Hopper", "Title": "Rear Admiral"],
            "the journal keeps the values sent, for recognising the create later even if the record changes")
        _ = try fixture.store.update(try #require(LocalEdit.updated(inFlight, fields: ["Title": "Commodore"])), id: entryId, in: "contacts")
        try answer(.success(id: "003H"), to: write)
        let record = try #require(try fixture.document("contacts", id: "003H"))
        #expect(!record.isLocallyCreated && record.isLocallyUpdated && record.isDirty && record["Title"] == "Commodore")
        #expect(record.baseValues == ["Title": "Rear Admiral"] && record[LocalField.createInFlight] == nil)
    }

    @Test func aRecordUndeletedWhileItsDeleteWasOnItsWayIsCreatedAgain() throws {
        _ = try fixture.store.upsert(LocalEdit.deleted(try ada()), in: "contacts")
        let write = try #require(try plan().writes.first)
        _ = try fixture.store.upsert(LocalEdit.undeleted(try ada()), in: "contacts")
        try answer(.success(id: "003A"), to: write)
        let record = try #require(try fixture.documents("contacts").first)
        #expect(record.isLocallyCreated && record["Id"] == nil && record["LastName"] == "Lovelace")
    }

    // MARK: Shrunk from the interleaved property (InterleavedSyncPropertyTests)

    /// Seed 23: an update answered while the record was deleted here left it marked updated with
    /// no base; undeleted, it looked like an edit by an older writer and every field the server had
    /// changed became a conflict.
    @Test func anUpdateAnsweredWhileDeletedThenUndeletedIsInSyncNotInConflict() throws {
        try edit(["Title": "Countess"])
        let write = try #require(try plan().writes.first)
        _ = try fixture.store.upsert(LocalEdit.deleted(try ada()), in: "contacts")
        try answer(.success(id: "003A"), to: write)
        let deleted = try ada()
        #expect(deleted.isLocallyDeleted && !deleted.isLocallyUpdated && deleted.baseValues == [:])
        _ = try fixture.store.upsert(LocalEdit.undeleted(deleted), in: "contacts")
        #expect(!(try ada()).isDirty, "nothing is left to send: the server has the Title")
        let merged = FieldMerge().merge(local: try ada(), server: serverCopy(["Title": "Countess", "Department": "Sales"]), now: 1)
        #expect(merged.conflictingFields.isEmpty && merged.record["Department"] == "Sales")
    }

    /// Seed 23, the other half: a record deleted here and changed on the server is a conflict;
    /// undeleting it takes the server's changes instead of leaving a conflict about every field.
    @Test func undeletingARecordDeletedHereAndChangedThereTakesTheServersChanges() throws {
        _ = try fixture.store.upsert(LocalEdit.deleted(try ada()), in: "contacts")
        let write = try #require(try plan().writes.first)
        try answer(.preconditionFailed, to: write, server: serverCopy(["Department": "Sales"]))
        #expect(try ConflictResolver(store: fixture.store, soupName: "contacts").conflict(entryId: write.entryId)?.kind == .deletedHere)
        _ = try fixture.store.upsert(LocalEdit.undeleted(try ada()), in: "contacts")
        let record = try ada()
        #expect(!record.hasConflict && !record.isDirty && record["Department"] == "Sales")
        #expect(record["LastModifiedDate"]?.stringValue == Self.later)
    }

    /// Interleaved seed 23 (strict org): edited here, the edit reached the server, then deleted
    /// here before the record settled; the server's copy holds what the user last saw, so the
    /// delete goes ahead, while a value nobody here saw still stops it.
    @Test func aServerCopyHoldingTheValuesLastSeenHereDoesNotStopADelete() throws {
        try edit(["Title": "Countess"])
        _ = try fixture.store.upsert(LocalEdit.deleted(try ada()), in: "contacts")
        let merge = FieldMerge(updatableFields: Set(Self.fields))
        #expect(!merge.serverChanged(try ada(), comparedWith: serverCopy(["Title": "Countess"])))
        #expect(merge.serverChanged(try ada(), comparedWith: serverCopy(["Title": "Countess", "Department": "Sales"])))
    }

    /// Seed 42: a delete refused (412) after the record was undeleted here became a conflict
    /// about every field; undeleted, the record simply takes the server's changes.
    @Test func aDeleteRefusedAfterTheRecordWasUndeletedHereMergesTheServersChanges() throws {
        _ = try fixture.store.upsert(LocalEdit.deleted(try ada()), in: "contacts")
        let write = try #require(try plan().writes.first)
        _ = try fixture.store.upsert(LocalEdit.undeleted(try ada()), in: "contacts")
        let (summary, _) = try answer(.preconditionFailed, to: write, server: serverCopy(["Department": "Sales"]))
        let record = try ada()
        #expect(summary.conflicts == 0 && !record.hasConflict && !record.isDirty && record["Department"] == "Sales")
    }

    /// Seed 36: a record created here, sent, and deleted on the server before any sync down had
    /// fetched it had no `__sync_id__`, so no ghost cleaning ever removed it.
    @Test func aCreatedRecordJoinsTheSetOfItsSoupsOnlySyncDown() throws {
        _ = try fixture.store.create(LocalEdit.created(fields: ["LastName": "Hopper"], sObjectType: "Contact", localId: "local_1"), in: "contacts")
        let write = try #require(try plan().writes.first { $0.action == .create })
        var summary = SyncUpSummary()
        var owning = recorder
        owning.owningSyncDownId = 7
        try fixture.store.write { _ = try owning.apply(.success(id: "003H"), to: write, serverValues: nil, now: 1, summary: &summary, in: $0) }
        let created = try #require(try fixture.document("contacts", id: "003H"))
        #expect(created[LocalField.syncId] == 7 && !created.isDirty)
        let cleaner = GhostCleaner(soupName: "contacts", syncId: 7)
        #expect(try fixture.store.read { try cleaner.cleanLocalIds(in: $0) }.contains("003H"))
    }

    // MARK: Refused writes

    @Test func aRefusedUpdateWhoseServerChangesTouchOtherFieldsIsMergedAndSentAgain() throws {
        try edit(["Title": "Countess"])
        let write = try #require(try plan().writes.first)
        let (summary, again) = try answer(.preconditionFailed, to: write, server: serverCopy(["Department": "Sales"]))
        #expect(summary.conflicts == 0 && again == [write.entryId])
        let record = try ada()
        #expect(record["Title"] == "Countess" && record["Department"] == "Sales" && !record.hasConflict)
        #expect(
            try plan().writes.map(\.write) == [
                .update(sobjectType: "Contact", id: "003A", fields: ["Title": "Countess"], ifUnmodifiedSince: SalesforceTimestamp.parse(Self.later))
            ], "only my field, against the version just merged")
    }

    @Test func aRefusedUpdateTheServerAlreadyHoldsIsSettled() throws {
        try edit(["Title": "Countess"])
        let write = try #require(try plan().writes.first)
        // Our earlier send of the same value whose answer never came back.
        let (summary, again) = try answer(.preconditionFailed, to: write, server: serverCopy(["Title": "Countess"]))
        #expect(summary.conflicts == 0 && summary.updated == 1 && again.isEmpty)
        let record = try ada()
        #expect(!record.isDirty && record["LastModifiedDate"]?.stringValue == Self.later)
    }

    @Test func aRefusedDeleteIsAConflictOnlyWhenTheServerChangedAFieldWeTrack() throws {
        _ = try fixture.store.upsert(LocalEdit.deleted(try ada()), in: "contacts")
        let write = try #require(try plan().writes.first)
        var untracked = serverCopy([:])
        untracked["Birthdate"] = "1815-12-10"
        let (quiet, again) = try answer(.preconditionFailed, to: write, server: untracked)
        let refreshed = try ada()
        #expect(quiet.conflicts == 0 && again.count == 1 && refreshed["LastModifiedDate"]?.stringValue == Self.later)
        let resent = try #require(try plan().writes.first)
        let (changed, _) = try answer(.preconditionFailed, to: resent, server: serverCopy(["Title": "Promoted"], modified: "2024-08-01T00:00:00.000+0000"))
        #expect(changed.conflicts == 1)
        #expect(try ConflictResolver(store: fixture.store, soupName: "contacts").conflict(entryId: write.entryId)?.kind == .deletedHere)
    }

    @Test func aRecordEditedWithoutABaseIsNoConflictWhileTheServerStillHasTheVersionItStartedFrom() throws {
        _ = try fixture.store.upsert(Records.editedWithoutBase(try ada(), ["Title": "Mine"]), in: "contacts")
        let unchanged = FieldMerge().merge(local: try ada(), server: serverCopy([:], modified: Self.synced), now: 1)
        #expect(unchanged.conflictingFields.isEmpty && unchanged.record.baseValues == ["Title": "Engineer"])
        let changed = FieldMerge().merge(local: try ada(), server: serverCopy(["Department": "Sales"]), now: 1)
        #expect(changed.conflictingFields == ["Title", "Department"], "a newer version and no base: every differing field is in doubt")
    }

    // MARK: Resolving and reverting

    @Test func aConflictOfTwoFieldsIsSettledFieldByFieldAndOtherChangesStayMerged() throws {
        try edit(["Title": "Countess", "Department": "Analytics", "Email": "ada@lovelace.org"])
        let write = try #require(try plan().writes.first)
        try answer(.preconditionFailed, to: write, server: serverCopy(["Title": "CTO", "Department": "Engines", "FirstName": "Augusta"]))
        let resolver = ConflictResolver(store: fixture.store, soupName: "contacts")
        let conflict = try #require(try resolver.conflict(entryId: write.entryId))
        #expect(conflict.fields.map(\.name) == ["Title", "Department"])
        #expect(conflict.fields.first == ConflictField(name: "Title", base: "Engineer", mine: "Countess", server: "CTO"))
        #expect(try ada()["FirstName"] == "Augusta", "changed only on the server: taken")

        try resolver.resolve(entryId: write.entryId, fields: ["Title"], choice: .keepMine)
        #expect(try resolver.conflict(entryId: write.entryId)?.fields.map(\.name) == ["Department"], "one field left")
        try resolver.resolve(entryId: write.entryId, fields: ["Department"], choice: .takeServer)
        let record = try ada()
        #expect(!record.hasConflict && record["Title"] == "Countess" && record["Department"] == "Engines")
        #expect(
            try plan().writes.map(\.write) == [
                .update(
                    sobjectType: "Contact", id: "003A", fields: ["Title": "Countess", "Email": "ada@lovelace.org"],
                    ifUnmodifiedSince: SalesforceTimestamp.parse(Self.later))
            ], "the field kept and the change only I made go; the server's Department and FirstName stay")
    }

    @Test func aConflictStoredByAnOlderForcetermIsSettledFieldByFieldToo() throws {
        var record = Records.editedWithoutBase(try ada(), ["Title": "Mine"])
        record[LocalField.conflict] = ["server": .object(serverCopy(["Title": "Theirs", "Department": "Sales"])), "detectedAt": 1]
        _ = try fixture.store.upsert(record, in: "contacts")
        let resolver = ConflictResolver(store: fixture.store, soupName: "contacts")
        #expect(try resolver.conflict(entryId: try #require(record.soupEntryId))?.fields.map(\.name) == ["Title", "Department"])
        try resolver.keepLocal(entryId: try #require(record.soupEntryId))
        #expect(
            try plan().writes.map(\.write) == [
                .update(
                    sobjectType: "Contact", id: "003A", fields: ["Title": "Mine", "Department": "R&D"],
                    ifUnmodifiedSince: SalesforceTimestamp.parse(Self.later))
            ])
    }

    /// Shrunk from the interleaved property test: deleted here, changed on the server, "keep mine"
    /// (the delete wins), then undeleted before the delete went. Mine still wins: the server's
    /// change the user chose to lose is overwritten, as a kept field conflict would be.
    @Test func keepMineOnADeleteThenUndeleteSendsMineOverTheServersChange() throws {
        var record = LocalEdit.deleted(try ada())
        record[LocalField.conflict] = RecordConflict(server: serverCopy(["Department": "Engines"]), detectedAt: 1).json
        _ = try fixture.store.upsert(record, in: "contacts")
        let entryId = try #require(record.soupEntryId)
        let resolver = ConflictResolver(store: fixture.store, soupName: "contacts")
        try resolver.keepLocal(entryId: entryId)
        #expect(try plan().writes.map(\.write) == [.delete(sobjectType: "Contact", id: "003A", ifUnmodifiedSince: SalesforceTimestamp.parse(Self.later))])
        _ = try fixture.store.upsert(LocalEdit.undeleted(try ada()), in: "contacts")
        #expect(
            try plan().writes.map(\.write) == [
                .update(sobjectType: "Contact", id: "003A", fields: ["Department": "R&D"], ifUnmodifiedSince: SalesforceTimestamp.parse(Self.later))
            ], "my Department goes back over the server's")
    }

    @Test func revertPutsARecordBackAtItsBase() throws {
        let reverter = LocalChangeReverter(store: fixture.store, soupName: "contacts")
        try edit(["Title": "Countess", "Department": "Analytics"])
        _ = try fixture.store.upsert(LocalEdit.deleted(try ada()), in: "contacts")
        let entryId = try #require(try ada().soupEntryId)
        guard case let .reverted(record) = try reverter.revert(entryId: entryId) else {
            Issue.record("not reverted")
            return
        }
        #expect(record["Title"] == "Engineer" && record["Department"] == "R&D" && !record.isDirty && !record.isLocallyDeleted)

        let created = try fixture.store.create(
            LocalEdit.created(fields: ["LastName": "Hopper"], sObjectType: "Contact", localId: "local_9"),
            in: "contacts")
        #expect(try reverter.revert(entryId: try #require(created.soupEntryId)) == .removed)

        let legacy = Records.editedWithoutBase(try ada(), ["Title": "Mine"])
        _ = try fixture.store.upsert(legacy, in: "contacts")
        #expect(throws: MobileSyncError.self) { try reverter.revert(entryId: entryId) }
    }

    @Test func revertWhileAWriteMayBeOnItsWayKeepsTheRecordToBeSent() throws {
        try edit(["Title": "Countess"])
        let write = try #require(try plan().writes.first)
        try fixture.store.write { _ = try WriteJournal(soup: "contacts").record([write], now: 1, in: $0) }
        guard case let .reverted(record) = try LocalChangeReverter(store: fixture.store, soupName: "contacts").revert(entryId: write.entryId) else {
            Issue.record("not reverted")
            return
        }
        #expect(record["Title"] == "Engineer" && record.isDirty, "if the update arrives, the next sync puts Engineer back")
        try answer(.success(id: "003A"), to: write)
        #expect(try plan().writes.map(\.write) == [.update(sobjectType: "Contact", id: "003A", fields: ["Title": "Engineer"], ifUnmodifiedSince: nil)])
    }

    // MARK: The merge itself

    /// Per field: changed only on the server → the server's; only here → mine, still to send; on
    /// both sides to one value → settled; to different values → a conflict keeping mine.
    @Test func theMergeFollowsTheFourRulesForEveryField() async {
        let values: [JSONValue] = [.null, "a", "b", "c", .int(1), .double(1)]
        let field = Gen.int(in: 0...(values.count - 1)).array(of: 3...3)
        await propertyCheck(count: 300, input: field.array(of: 1...4)) { rows in
            var local: JSONObject = ["Id": "003A", "attributes": ["type": "Contact"], "LastModifiedDate": .string(Self.synced)]
            var server: JSONObject = ["Id": "003A", "attributes": ["type": "Contact"], "LastModifiedDate": .string(Self.later)]
            var base: JSONObject = [:]
            for (index, row) in rows.enumerated() {
                let name = "F\(index)"
                let (b, mine, theirs) = (values[row[0]], values[row[1]], values[row[2]])
                local[name] = mine
                server[name] = theirs
                if !FieldValues.same(mine, b) { base[name] = b }
            }
            if !base.isEmpty {
                local[LocalField.base] = .object(base)
                local[LocalField.local] = true
                local[LocalField.locallyUpdated] = true
            }
            let outcome = FieldMerge().merge(local: local, server: server, now: 1)
            for (index, row) in rows.enumerated() {
                let name = "F\(index)"
                let (b, mine, theirs) = (values[row[0]], values[row[1]], values[row[2]])
                let changedHere = !FieldValues.same(mine, b)
                let changedThere = !FieldValues.same(theirs, b)
                let result = outcome.record[name]
                let conflicting = outcome.conflictingFields.contains(name)
                let pending = outcome.record.baseValues?[name] != nil
                if !changedHere {
                    #expect(FieldValues.same(result, theirs) && !conflicting && !pending, "\(rows): \(name) not changed here")
                } else if !changedThere || FieldValues.same(mine, theirs) {
                    #expect(FieldValues.same(result, mine) && !conflicting, "\(rows): \(name) changed here only, or alike")
                    #expect(pending == !FieldValues.same(mine, theirs), "\(rows): \(name) is sent only if the server lacks it")
                } else {
                    #expect(FieldValues.same(result, mine) && conflicting && pending, "\(rows): \(name) changed on both sides")
                }
            }
            #expect(outcome.record["LastModifiedDate"]?.stringValue == Self.later)
            #expect(outcome.hasLocalChanges == (outcome.record.baseValues?.isEmpty == false))
        }
    }
}
