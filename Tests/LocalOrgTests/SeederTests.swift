import ForceJSON
import Testing

@testable import LocalOrg

@Suite struct SeederTests {
    func seededNames(seed: UInt64) async throws -> (org: TestOrg, rows: [JSONValue]) {
        let org = try await TestOrg()
        _ = try Seeder.seed(store: org.store, accounts: 30, contacts: 300, randomSeed: seed)
        let page = try await org.query("SELECT Name, Title, Email, Account.Name, Account.BillingCity FROM Contact ORDER BY Id")
        return (org, page.body["records"]?.arrayValue ?? [])
    }

    @Test func theSameSeedGivesTheSameDataAndAnotherSeedDoesNot() async throws {
        let first = try await seededNames(seed: 42)
        let second = try await seededNames(seed: 42)
        let other = try await seededNames(seed: 43)
        defer { [first.org, second.org, other.org].forEach { $0.remove() } }
        #expect(first.rows.count == 300)
        #expect(first.rows == second.rows)
        #expect(first.rows != other.rows)
    }

    @Test func seededDataIsMultilingualValidAndSometimesSparse() async throws {
        let (org, rows) = try await seededNames(seed: 7)
        defer { org.remove() }
        let names = rows.compactMap { $0["Name"]?.stringValue }
        #expect(names.contains { $0.unicodeScalars.contains { $0.value >= 0x3040 } })  // CJK or kana
        #expect(names.contains { $0.unicodeScalars.contains { (0xC0...0x17F).contains($0.value) } })  // accented Latin
        #expect(rows.contains { $0["Title"] == .null })
        #expect(rows.contains { $0["Account"] == .null })
        // Every seeded record passes the same validation as API input.
        let contact = try #require(org.store.schema.object(named: "Contact"))
        let full = try await org.query("SELECT LastName, FirstName, Email, Title, MobilePhone, HomePhone, Department FROM Contact")
        for record in full.body["records"]?.arrayValue ?? [] {
            var body = record.objectValue ?? [:]
            body.removeValue(forKey: "attributes")
            #expect(throws: Never.self) { _ = try RecordValidator.values(for: contact, body: body, mode: .create) }
        }
    }
}
