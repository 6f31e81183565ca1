import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

/// `localorg snapshot`: a class's starting state kept and brought back as a new org.
@Suite("Snapshots: save and restore as a new org")
struct SnapshotTests {
    func contactCount(_ store: OrgStore) throws -> Int {
        try store.counts().first { $0.object == "Contact" }?.live ?? -1
    }

    @Test("A restore brings back the saved records, under a new org id, with every token gone")
    func restoreIsANewOrg() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        _ = try Seeder.seed(store: org.store, accounts: 3, contacts: 30, randomSeed: 7)
        let snapshots = OrgSnapshots(orgDirectory: OrgDirectory(path: org.directory))
        let saved = try snapshots.save("class-start", from: org.store)
        #expect(saved.name == "class-start" && saved.bytes > 0)
        #expect(snapshots.list().map(\.name) == ["class-start"])
        let before = try org.store.organizationId()

        // The class works: a contact renamed, ten added.
        let first = try await org.query("SELECT Id, LastName FROM Contact ORDER BY Id LIMIT 1")
        let contact = try #require(first.body["records"]?.arrayValue?.first)
        let id = try #require(contact["Id"]?.stringValue)
        let patch = await org.call("PATCH", "/services/data/v59.0/sobjects/Contact/\(id)", body: #"{"LastName": "Changed In Class"}"#)
        #expect(patch.status == 204)
        _ = try Seeder.seed(store: org.store, accounts: 0, contacts: 10, randomSeed: 8)
        #expect(try contactCount(org.store) == 40)
        let addedInClass = try await org.create("Contact", #"{"LastName": "Added In Class"}"#)
        let restored = try snapshots.restore("class-start", into: org.store)
        #expect(restored.previousOrganizationId == before)
        #expect(restored.organizationId != before && restored.organizationId.hasPrefix("00D") && restored.organizationId.count == 18)
        #expect(try org.store.organizationId() == restored.organizationId)
        let restoredContacts = try contactCount(org.store)
        #expect(restored.recordCounts["Contact"] == 30 && restoredContacts == 30)
        // The API the server runs answers with the new id and refuses the old session.
        #expect(await org.call("GET", "/services/data/v59.0/sobjects/Contact/\(id)").status == 401)
        let again = try await org.signedIn(as: "demo@localorg.test", password: "localorg-demo")
        let back = try await again.query("SELECT LastName FROM Contact WHERE Id = '\(id)'")
        #expect(back.body["records"]?.arrayValue?.first?["LastName"]?.stringValue == contact["LastName"]?.stringValue)
        // An id handed out in class is never handed out again to another record.
        let afterRestore = try await again.create("Contact", #"{"LastName": "After Restore"}"#)
        #expect(afterRestore != addedInClass && afterRestore > addedInClass)
        let identity = await again.call("GET", "/services/oauth2/userinfo")
        #expect(try JSONParser.parse(identity.body)["organization_id"]?.stringValue == restored.organizationId)
    }

    @Test("Two orgs seeded alike still have different org ids")
    func orgIdsDiffer() async throws {
        let first = try await TestOrg()
        let second = try await TestOrg()
        defer {
            first.remove()
            second.remove()
        }
        #expect(try first.store.organizationId() != (try second.store.organizationId()))
    }

    @Test("A reader of the org during a restore sees it before or after, never between")
    func restoreIsAtomic() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let snapshots = OrgSnapshots(orgDirectory: OrgDirectory(path: org.directory))
        _ = try Seeder.seed(store: org.store, accounts: 5, contacts: 300, randomSeed: 1)
        try snapshots.save("small", from: org.store)
        _ = try Seeder.seed(store: org.store, accounts: 5, contacts: 700, randomSeed: 2)
        try snapshots.save("big", from: org.store)
        // Another process's view: its own connection pool on the same file.
        let reader = try OrgStore(path: org.directory + "/org.sqlite", schema: org.store.schema)
        let stop = LockedFlag()
        let seen = LockedCounts()
        let thread = Thread {
            while !stop.isSet {
                if let counts = try? reader.counts() {
                    seen.add((counts.first { $0.object == "Contact" }?.live ?? -1, counts.first { $0.object == "Account" }?.live ?? -1))
                }
            }
        }
        thread.start()
        for round in 0..<6 {
            _ = try snapshots.restore(round.isMultiple(of: 2) ? "small" : "big", into: org.store)
        }
        stop.set()
        while !thread.isFinished { usleep(10_000) }
        let states = Set(seen.values.map { "\($0.contacts)/\($0.accounts)" })
        #expect(seen.values.count > 10)
        #expect(states.isSubset(of: ["300/5", "1000/10"]), "\(states)")
    }

    @Test("Names are checked; restoring an unknown one names those there are")
    func names() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let snapshots = OrgSnapshots(orgDirectory: OrgDirectory(path: org.directory))
        for bad in ["", "../x", ".hidden", "a b", String(repeating: "x", count: 65)] {
            #expect(throws: SchemaError.self) { try snapshots.save(bad, from: org.store) }
        }
        try snapshots.save("day-1", from: org.store)
        #expect { try snapshots.restore("day-2", into: org.store) } throws: { "\($0)".contains("there are: day-1") }
    }
}

/// A flag one thread sets and another reads.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// What the reader thread saw.
final class LockedCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [(contacts: Int, accounts: Int)] = []
    func add(_ value: (Int, Int)) { lock.withLock { seen.append((contacts: value.0, accounts: value.1)) } }
    var values: [(contacts: Int, accounts: Int)] { lock.withLock { seen } }
}

@Suite("Seeded demo data")
struct SeederNameTests {
    @Test("The demo's 500 contacts have 500 different names, some without a first name")
    func namesDoNotRepeat() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        _ = try Seeder.seed(store: org.store, accounts: 50, contacts: 500, randomSeed: 1)
        let rows = try await org.store.rows(sql: "SELECT COALESCE(FirstName, ''), LastName FROM sobject_Contact", arguments: [])
        let names = rows.map { row in row.compactMap(String.fromDatabaseValue).joined(separator: " ") }
        #expect(names.count == 500 && Set(names).count == 500)
        #expect(rows.contains { String.fromDatabaseValue($0[0]) == "" || $0[0].isNull })
    }
}

@Suite("A write authenticated before a restore never lands after it")
struct RestoreRaceTests {
    @Test("A session ended between its check and its write is refused inside the write's transaction, and nothing is written")
    func sessionEndedBeforeTheWrite() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let request = RequestContext()
        let session = try await RequestContext.$current.withValue(request) { try await org.api.tokens.session(forAccessToken: org.accessToken) }
        #expect(session != nil && request.tokenSelector != nil)
        // What a snapshot restore does to sessions, committed while the request was on its way.
        try await org.store.write { db in try db.execute(sql: "DELETE FROM localorg_token") }
        await #expect(throws: APIError.sessionInvalid) {
            try await RequestContext.$current.withValue(request) {
                try await org.api.sessionWrite { db in try db.execute(sql: "DELETE FROM localorg_sequence") }
            }
        }
        let sequences = try await org.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM localorg_sequence") ?? 0 }
        #expect(sequences > 0, "the refused write changed nothing")
        // A live session writes as before.
        let fresh = RequestContext()
        let token = try await TestOrg.signIn(org.api, username: "demo@localorg.test", password: "localorg-demo")
        _ = try await RequestContext.$current.withValue(fresh) { try await org.api.tokens.session(forAccessToken: token) }
        let wrote = try await RequestContext.$current.withValue(fresh) { try await org.api.sessionWrite { _ in true } }
        #expect(wrote)
    }
}
