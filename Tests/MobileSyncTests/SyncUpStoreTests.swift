import ForceJSON
import SmartStore
import Testing

@testable import MobileSync

@Suite("Planning a sync up and recording its answers, on a real store")
struct SyncUpStoreTests {
    static let fields = ["Id", "FirstName", "LastName", "AccountId", "LastModifiedDate"]

    func dirty(_ fixture: SyncStore, soup: String = "contacts") throws -> [JSONObject] {
        try fixture.store.read { try SyncUpTask.dirtyRecords(soup: soup, in: $0) }
    }

    func plan(
        _ fixture: SyncStore, target: SyncUpTarget = SyncUpTarget(), mode: MergeMode = .leaveIfChanged,
        fieldlist: [String]? = fields
    ) throws -> SyncUpPlan {
        let planner = SyncUpPlanner(target: target, options: SyncOptions(mergeMode: mode, fieldlist: fieldlist), soupName: "contacts")
        let serverIds = try fixture.store.read { try LocalIdMap.all(in: $0) }
        return try planner.plan(try dirty(fixture), serverIds: serverIds)
    }

    /// One clean server record, one edited, one deleted, one created, one created then deleted.
    func mixedStore() throws -> SyncStore {
        let fixture = try SyncStore()
        let clean = (1...3).map { Records.contact("003\($0)", last: "C\($0)") }
        _ = try fixture.store.create(
            clean.map {
                var r = $0
                r[LocalField.local] = false
                return r
            }, in: "contacts")
        _ = try fixture.store.create(
            [
                Records.created("local_9", fields: ["LastName": "Created then deleted"]).merging([LocalField.locallyDeleted: true]) { $1 }
            ], in: "contacts")
        _ = try fixture.store.create(Records.created("local_5", fields: ["FirstName": "Nova", "LastName": "New", "Title": "not listed"]), in: "contacts")
        let updated = try #require(try fixture.document("contacts", id: "0032"))
        _ = try fixture.store.upsert(Records.edited(updated, ["LastName": "Changed"]), in: "contacts")
        let deleted = try #require(try fixture.document("contacts", id: "0033"))
        _ = try fixture.store.upsert(Records.edited(deleted, delete: true), in: "contacts")
        return fixture
    }

    @Test func theOrderIsDeleteThenCreateThenUpdateAndCreatedThenDeletedNeverLeaves() throws {
        let fixture = try mixedStore()
        let plan = try plan(fixture)
        #expect(plan.writes.map(\.action) == [.delete, .create, .update])
        #expect(plan.writes.map(\.recordId) == ["0033", "local_5", "0032"])
        #expect(plan.removeLocally.count == 1)
        let modified = SalesforceTimestamp.parse("2024-05-01T10:00:00.000+0000")
        #expect(plan.writes[0].write == .delete(sobjectType: "Contact", id: "0033", ifUnmodifiedSince: modified))
        #expect(
            plan.writes[2].write
                == .update(
                    sobjectType: "Contact", id: "0032",
                    fields: ["LastName": "Changed"], ifUnmodifiedSince: modified),
            "LEAVE_IF_CHANGED: the last known modification time is the precondition")
    }

    @Test func overwriteSendsUnconditionally() throws {
        let plan = try plan(try mixedStore(), mode: .overwrite)
        #expect(plan.writes.allSatisfy { !$0.write.isConditional })
    }

    @Test func fieldListsFollowTheSDKsPrecedenceAndNeverSendIdOrModification() throws {
        let fixture = try mixedStore()
        let target = SyncUpTarget(createFieldlist: ["FirstName", "LastName", "Id", "LastModifiedDate"], updateFieldlist: ["FirstName"])
        let plan = try plan(fixture, target: target)
        #expect(plan.writes[1].write == .create(sobjectType: "Contact", fields: ["FirstName": "Nova", "LastName": "New"]))
        #expect(
            plan.writes.count == 2 && plan.unchanged.count == 1,
            "the update changed only LastName, which its list leaves out: nothing to send, and it is settled locally")
        let legacy = try SyncStore()
        _ = try legacy.store.create(Records.editedWithoutBase(Records.contact("0032", last: "C2"), ["LastName": "Changed"]), in: "contacts")
        #expect(
            try self.plan(legacy, target: target).writes.map(\.write) == [
                .update(sobjectType: "Contact", id: "0032", fields: [:], ifUnmodifiedSince: SalesforceTimestamp.parse("2024-05-01T10:00:00.000+0000"))
            ], "without a recorded base every listed field is sent, as the SDK does; a field the record lacks is omitted")
        let onlyOptions = try self.plan(fixture, target: SyncUpTarget(), fieldlist: ["LastName"])
        #expect(onlyOptions.writes[1].write == .create(sobjectType: "Contact", fields: ["LastName": "New"]))
        #expect(throws: MobileSyncError.noFieldsSpecified(soup: "contacts")) { try self.plan(fixture, fieldlist: nil) }
    }

    @Test func aCreatedRecordWithAnExternalIdIsUpserted() throws {
        let fixture = try SyncStore()
        _ = try fixture.store.create(
            [
                Records.created("local_1", fields: ["LastName": "Ext", "Email": "ext@example.com"]),
                Records.created("local_2", fields: ["LastName": "NoExt", "Email": .null]),
            ], in: "contacts")
        let target = SyncUpTarget(createFieldlist: ["LastName", "Email"], externalIdFieldName: "Email")
        let plan = try plan(fixture, target: target)
        #expect(
            plan.writes.map(\.write) == [
                .upsert(sobjectType: "Contact", externalIdField: "Email", externalId: "ext@example.com", fields: ["LastName": "Ext"]),
                .create(sobjectType: "Contact", fields: ["LastName": "NoExt", "Email": .null]),
            ])
    }

    @Test(arguments: [(SyncUpTarget.Mode.singleRecord, [1, 1, 1]), (.batch, [25, 25, 10]), (.collection, [60])])
    func chunkingFollowsTheTarget(mode: SyncUpTarget.Mode, sizes: [Int]) throws {
        let fixture = try SyncStore()
        _ = try fixture.store.create((0..<60).map { Records.created("local_\($0)", fields: ["LastName": .string("N\($0)")]) }, in: "contacts")
        let requests = try plan(fixture, target: SyncUpTarget(mode: mode)).requests(for: SyncUpTarget(mode: mode))
        #expect(Array(requests.map(\.writes.count).prefix(sizes.count)) == sizes)
        #expect(requests.reduce(0) { $0 + $1.writes.count } == 60)
        #expect(Set(requests.map(\.route)) == [mode == .singleRecord ? .single : mode == .batch ? .composite : .collection])
    }

    @Test func collectionsTakePlainWritesAndConditionalOnesGoThroughComposite() throws {
        let fixture = try SyncStore()
        let clean = (0..<230).map { Records.contact(String(format: "003%04d", $0), last: "C\($0)") }
        _ = try fixture.store.create(clean.map { Records.edited($0, ["LastName": "E"]) }, in: "contacts")
        let target = SyncUpTarget()
        let overwrite = try plan(fixture, mode: .overwrite).requests(for: target)
        #expect(overwrite.map(\.writes.count) == [200, 30] && overwrite.allSatisfy { $0.route == .collection })
        let conditional = try plan(fixture, mode: .leaveIfChanged).requests(for: target)
        #expect(conditional.count == 10 && conditional.allSatisfy { $0.route == .composite && $0.writes.count <= 25 })
    }

    @Test func referencesToLocallyCreatedAccountsAreRewrittenOnceTheAccountHasItsServerId() throws {
        let fixture = try SyncStore()
        _ = try fixture.store.create(Records.created("local_acc", type: "Account", fields: ["Name": "Acme"]), in: "accounts")
        _ = try fixture.store.create(Records.created("local_con", fields: ["LastName": "Child", "AccountId": "local_acc"]), in: "contacts")

        let before = try plan(fixture)
        #expect(before.writes.isEmpty)
        let refusal = try #require(before.refused.values.first)
        #expect(refusal.errorCode == "LOCAL_REFERENCE_PENDING" && refusal.fields == ["AccountId"])

        // The account syncs up first: its create succeeds and the recorder notes its server id.
        let accountPlanner = SyncUpPlanner(target: SyncUpTarget(), options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
        let accountWrite = try #require(try accountPlanner.plan(try dirty(fixture, soup: "accounts"), serverIds: [:]).writes.first)
        let recorder = SyncUpRecorder(soupName: "accounts", target: SyncUpTarget(), mergeMode: .overwrite)
        var summary = SyncUpSummary()
        try fixture.store.write { _ = try recorder.apply(.success(id: "001SERVER"), to: accountWrite, serverValues: nil, now: 1, summary: &summary, in: $0) }
        #expect(try fixture.document("accounts", id: "001SERVER")?.isDirty == false)

        let after = try plan(fixture)
        #expect(after.writes.map(\.write) == [.create(sobjectType: "Contact", fields: ["LastName": "Child", "AccountId": "001SERVER"])])
    }

    @Test func aRefusedConditionalUpdateOfAFieldTheServerAlsoChangedIsAConflictOfThatField() throws {
        let fixture = try mixedStore()
        let plan = try plan(fixture)
        let update = plan.writes[2]
        let recorder = SyncUpRecorder(soupName: "contacts", target: SyncUpTarget(), mergeMode: .leaveIfChanged)
        var summary = SyncUpSummary()
        let server = Records.contact("0032", last: "Changed on the server", modified: "2024-07-01T00:00:00.000+0000")
        let again = try fixture.store.write {
            try recorder.apply(.preconditionFailed, to: update, serverValues: server, now: 99, summary: &summary, in: $0)
        }
        #expect(summary.conflicts == 1 && again.isEmpty)
        let record = try #require(try fixture.document("contacts", id: "0032"))
        #expect(record["LastName"] == "Changed" && record.isDirty, "local changes are kept")
        #expect(record[LocalField.conflict]?["server"]?["LastName"] == "Changed on the server")
        #expect(RecordConflict(record[LocalField.conflict])?.fields == ["LastName"])

        #expect(try self.plan(fixture).awaitingResolution.count == 1, "not sent again until resolved")
        let resolver = ConflictResolver(store: fixture.store, soupName: "contacts")
        let conflicts = try resolver.conflicts()
        #expect(conflicts.count == 1 && conflicts[0].server?["LastName"] == "Changed on the server")
        #expect(conflicts[0].fields == [ConflictField(name: "LastName", base: "C2", mine: "Changed", server: "Changed on the server")])

        try resolver.keepLocal(entryId: conflicts[0].entryId)
        let kept = try #require(try fixture.document("contacts", id: "0032"))
        #expect(kept["LastName"] == "Changed" && kept.isDirty && !kept.hasConflict)
        #expect(kept["LastModifiedDate"] == "2024-07-01T00:00:00.000+0000" && !kept.overwritesServer)
        let resent = try #require(try self.plan(fixture).writes.first { $0.recordId == "0032" })
        #expect(
            resent.write
                == .update(
                    sobjectType: "Contact", id: "0032", fields: ["LastName": "Changed"],
                    ifUnmodifiedSince: SalesforceTimestamp.parse("2024-07-01T00:00:00.000+0000")),
            "keep mine sends my value, conditional on the server version the conflict showed")
        try fixture.store.write { _ = try recorder.apply(.success(id: nil), to: resent, serverValues: nil, now: 100, summary: &summary, in: $0) }
        let written = try #require(try fixture.document("contacts", id: "0032"))
        #expect(!written.isDirty && written["LastModifiedDate"] == .null, "once written, the server's new date is unknown until read")
    }

    @Test func keepingMineOverARecordTheServerDeletedSinceCreatesItAgain() throws {
        let fixture = try mixedStore()
        let update = try plan(fixture).writes[2]
        let recorder = SyncUpRecorder(soupName: "contacts", target: SyncUpTarget(), mergeMode: .leaveIfChanged)
        var summary = SyncUpSummary()
        try fixture.store.write { _ = try recorder.apply(.notFound, to: update, serverValues: nil, now: 99, summary: &summary, in: $0) }
        #expect(try ConflictResolver(store: fixture.store, soupName: "contacts").conflict(entryId: update.entryId)?.kind == .deletedOnServer)
        try ConflictResolver(store: fixture.store, soupName: "contacts").keepLocal(entryId: update.entryId)
        let recreated = try #require(try fixture.documents("contacts").first { $0["LastName"] == "Changed" })
        #expect(recreated.isLocallyCreated && recreated["Id"] == nil && !recreated.hasConflict)
        #expect(try self.plan(fixture).writes.contains { $0.entryId == update.entryId && $0.action == .create })
    }

    @Test func takingTheServersValuesDropsLocalChanges() throws {
        let fixture = try mixedStore()
        let update = try plan(fixture).writes[2]
        let recorder = SyncUpRecorder(soupName: "contacts", target: SyncUpTarget(), mergeMode: .leaveIfChanged)
        var summary = SyncUpSummary()
        let server = Records.contact("0032", last: "Server wins", modified: "2024-07-01T00:00:00.000+0000")
        try fixture.store.write { _ = try recorder.apply(.preconditionFailed, to: update, serverValues: server, now: 99, summary: &summary, in: $0) }
        try ConflictResolver(store: fixture.store, soupName: "contacts").takeServer(entryId: update.entryId)
        let record = try #require(try fixture.document("contacts", id: "0032"))
        #expect(record["LastName"] == "Server wins" && !record.isDirty && !record.hasConflict && record[LocalField.base] == nil)
    }

    @Test func outcomesFollowTheSDKForDeletesErrorsAndRecreates() throws {
        let fixture = try mixedStore()
        let plan = try plan(fixture, mode: .overwrite)
        let recorder = SyncUpRecorder(soupName: "contacts", target: SyncUpTarget(), mergeMode: .overwrite)
        var summary = SyncUpSummary()
        let error = RecordError(errorCode: "REQUIRED_FIELD_MISSING", message: "Required fields are missing: [LastName]", fields: ["LastName"])
        try fixture.store.write { transaction in
            try recorder.markCreatesInFlight(plan.writes, now: 5, in: transaction)
            try recorder.apply(.notFound, to: plan.writes[0], serverValues: nil, now: 6, summary: &summary, in: transaction)
            try recorder.apply(.failed([error]), to: plan.writes[1], serverValues: nil, now: 6, summary: &summary, in: transaction)
            let again = try recorder.apply(.notFound, to: plan.writes[2], serverValues: nil, now: 6, summary: &summary, in: transaction)
            #expect(again == [plan.writes[2].entryId], "OVERWRITE sends the re-create in the same run")
        }
        #expect(try fixture.document("contacts", id: "0033") == nil, "a 404 on delete counts as done")
        let failed = try #require(try fixture.document("contacts", id: "local_5"))
        #expect(failed.isLocallyCreated && failed[LocalField.createInFlight] == nil)
        #expect(failed[LocalField.lastError]?.stringValue?.contains("REQUIRED_FIELD_MISSING") == true)
        let recreated = try #require(try fixture.documents("contacts").first { $0["LastName"] == "Changed" })
        #expect(recreated.isLocallyCreated && recreated["Id"] == nil, "OVERWRITE re-creates a record deleted on the server")
        #expect(summary.deleted == 1 && summary.errors == 1 && summary.recreated == 1)
    }

    @Test func aCreateIsJournaledBeforeSendingAndALostAnswerIsLookedUpByItsValues() throws {
        let fixture = try SyncStore()
        _ = try fixture.store.create(Records.created(nil, fields: ["LastName": "O'Brien", "FirstName": .null]), in: "contacts")
        let plan = try plan(fixture)
        let recorder = SyncUpRecorder(soupName: "contacts", target: SyncUpTarget(), mergeMode: .leaveIfChanged)
        try fixture.store.write { try recorder.markCreatesInFlight(plan.writes, now: 1_700_000_000_000, in: $0) }
        let journaled = try #require(try fixture.documents("contacts").first)
        #expect(journaled[LocalField.createInFlight]?["sentAt"] == 1_700_000_000_000)
        #expect(journaled["Id"]?.stringValue?.hasPrefix("local_") == true, "a record without an id gets a stable local one")
        #expect(
            CreateRecovery.query(sobjectType: "Contact", fields: ["LastName": "O'Brien", "FirstName": .null], sentAt: 1_700_000_000_000)
                == "select Id from Contact where CreatedDate >= 2023-11-14T22:08:20.000Z and LastName = 'O\\'Brien' order by CreatedDate limit 3")
    }

    @Test func aLostCreatesLookupFiltersOnlyOnWhatARealOrgCanFilterAndStaysUnderTheURLLimit() throws {
        let describe: JSONObject = [
            "name": "Contact",
            "fields": [
                ["name": "LastName", "type": "string", "length": 80, "filterable": true],
                ["name": "Email", "type": "email", "length": 80, "filterable": true],
                ["name": "Description", "type": "textarea", "length": 32000, "filterable": false],
                ["name": "Notes__c", "type": "textarea", "length": 1000],
            ],
        ]
        let described = try #require(DescribedFields(describe: describe))
        let fields: JSONObject = [
            "LastName": "Lovelace", "Email": "ada@example.org", "Description": "short", "Notes__c": "kept out",
            "Title": .null, "Secret__c": "not in the describe",
        ]
        let query = CreateRecovery.query(sobjectType: "Contact", fields: fields, sentAt: 1_700_000_000_000, described: described)
        #expect(query == "select Id from Contact where CreatedDate >= 2023-11-14T22:08:20.000Z and LastName = 'Lovelace' and Email = 'ada@example.org' order by CreatedDate limit 3")
        // Without a describe, a value over 255 characters is still left out, and the encoded
        // query never passes the budget however many fields there are.
        var many: JSONObject = ["Description": .string(String(repeating: "x", count: 300))]
        for index in 0..<400 { many["Field\(index)__c"] = .string("value number \(index) with some words") }
        let long = CreateRecovery.query(sobjectType: "Contact", fields: many, sentAt: 1_700_000_000_000)
        #expect(!long.contains("Description"))
        #expect(CreateRecovery.encodedLength(long) <= CreateRecovery.queryBudget)
        #expect(long.contains("Field0__c"))
    }
}
