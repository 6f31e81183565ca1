import ContactsApp
import ForceJSON
import Foundation
import MobileSync
import SmartStore
import Testing

/// The outbox over a real store file: every unsent change with how long it has waited, its
/// tries, why it is still here, and nothing once it is sent.
@Suite("The outbox: unsent changes, their age, tries and last error")
struct OutboxTests {
    @Test("A change keeps the time it was first saved; tries are the sync attempts since; the last try's failure or the org's refusal is its error")
    func agesTriesAndErrors() throws {
        let fixture = try StoreFixture()
        let repository = RecordRepository(store: fixture.store, kind: .contact)
        let synced = try fixture.addSyncedContact(first: "Ana", last: "García")
        let syncedId = try #require(synced["_soupEntryId"]?.int64Value)
        // A try before the change does not count for it.
        try SyncRunLog.recordSendAttempt(SendAttempt(startedAt: LocalEdit.now() - 60_000, error: "offline"), in: fixture.store)
        let before = LocalEdit.now()
        let edited = try repository.update(entryId: syncedId, fields: ["Title": "CFO"])
        let since = try #require(try fixture.document(syncedId)[LocalField.localSince]?.int64Value)
        #expect(since >= before && since <= LocalEdit.now())
        Thread.sleep(forTimeInterval: 0.01)
        // Edited again: the change still waits since its first save.
        _ = try repository.update(entryId: edited.entryId, fields: ["Title": "CEO"])
        #expect(try fixture.document(syncedId)[LocalField.localSince]?.int64Value == since)
        let created = try repository.create(fields: ["LastName": "Nuevo"])
        try SyncRunLog.recordSendAttempt(SendAttempt(startedAt: LocalEdit.now(), error: nil), in: fixture.store)
        try SyncRunLog.recordSendAttempt(SendAttempt(startedAt: LocalEdit.now(), error: "cannot connect to Salesforce"), in: fixture.store)

        let (entries, total) = try Outbox.entries(in: fixture.store, kinds: [.contact, .account])
        #expect(total == 2 && entries.map(\.name) == ["Ana García", "Nuevo"], "oldest first: \(entries)")
        #expect(entries.map(\.change) == [.update, .create])
        #expect(entries.allSatisfy { $0.attempts == 2 && $0.lastError == "cannot connect to Salesforce" && $0.needsYou == nil })
        #expect(entries[1].id.hasPrefix("local_") && entries[1].entryId == created.entryId)

        // The org refused the create: its own error, not the run's.
        var refused = try fixture.document(created.entryId)
        refused[LocalField.lastError] = .string(#"[{"errorCode":"REQUIRED_FIELD_MISSING","message":"Required fields are missing: [Email]","fields":["Email"]}]"#)
        _ = try fixture.store.update(refused, id: created.entryId, in: "contacts")
        var conflicted = try fixture.document(syncedId)
        conflicted[LocalField.conflict] = ["server": ["Title": "COO"], "detectedAt": .int(LocalEdit.now()), "fields": ["Title"]]
        _ = try fixture.store.update(conflicted, id: syncedId, in: "contacts")
        let later = try Outbox.entries(in: fixture.store, kinds: [.contact], limit: 1)
        #expect(later.total == 2 && later.entries.count == 1, "a limit reads the oldest only, the total counts all")
        #expect(later.entries.first?.needsYou?.contains("conflict") == true)
        let all = try Outbox.entries(in: fixture.store, kinds: [.contact]).entries
        #expect(all.last?.lastError == "REQUIRED_FIELD_MISSING: Required fields are missing: [Email]")
        #expect(Outbox.age(since: LocalEdit.now() - 125_000, now: Date()) == "2 min")
        #expect(Outbox.age(since: LocalEdit.now() - 3 * 86_400_000, now: Date()) == "3 days")
    }

    @Test("A record deleted here and undeleted has nothing to send and leaves the outbox; the log keeps the last 200 tries")
    func undeleteAndKeptTries() throws {
        let fixture = try StoreFixture()
        let repository = RecordRepository(store: fixture.store, kind: .contact)
        let synced = try fixture.addSyncedContact(first: "Bo", last: "Berg")
        let entryId = try #require(synced["_soupEntryId"]?.int64Value)
        _ = try repository.delete(entryId: entryId)
        #expect(try Outbox.entries(in: fixture.store, kinds: [.contact]).entries.map(\.change) == [.delete])
        _ = try repository.undelete(entryId: entryId)
        #expect(try Outbox.entries(in: fixture.store, kinds: [.contact]).total == 0)
        #expect(try fixture.document(entryId)[LocalField.localSince] == nil)
        for index in 0..<205 { try SyncRunLog.recordSendAttempt(SendAttempt(startedAt: Int64(index), error: nil), in: fixture.store) }
        let kept = try SyncRunLog.sendAttempts(in: fixture.store)
        #expect(kept.count == 200 && kept.first?.startedAt == 5 && kept.last?.startedAt == 204)
    }
}
