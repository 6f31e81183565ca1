import ForceJSON
import Testing

@testable import LocalOrg

@Suite struct BriefcaseTests {
    static let rules: JSONValue = [
        "briefcases": [
            [
                "name": "Field sales",
                "rules": [
                    ["object": "Account", "where": "Industry = 'Technology'"],
                    ["object": "Contact"],
                ],
            ]
        ]
    ]

    @Test func primingRecordsWalkEveryRuleThroughRelayTokens() async throws {
        let org = try await TestOrg(briefcases: Self.rules)
        defer { org.remove() }
        _ = try Seeder.seed(store: org.store, accounts: 40, contacts: 2500, randomSeed: 5)
        let technology = try await org.query("SELECT COUNT() FROM Account WHERE Industry = 'Technology'").body["totalSize"]?.int64Value ?? 0
        var ids: [String: Set<String>] = [:]
        var recordTypes: [String: String] = [:]
        var path = "/services/data/v59.0/connect/briefcase/priming-records"
        var pages = 0
        while pages < 10 {
            pages += 1
            let page = try JSONParser.parse(await org.call("GET", path).body)
            #expect(page["stats"]?["ruleCountTotal"] == 2)
            #expect(page["stats"]?["recordCountTotal"]?.int64Value == technology + 2500)
            #expect(page["ruleErrors"] == [])
            for (object, byType) in page["primingRecords"]?.objectValue ?? [:] {
                for (recordTypeId, records) in byType.objectValue ?? [:] {
                    // Account has record types (Customer, Partner): grouped by them, as Salesforce does;
                    // Contact has none: under Master's id.
                    #expect(object == "Account" ? recordTypeId != "012000000000000AAA" : recordTypeId == "012000000000000AAA", "\(object) \(recordTypeId)")
                    for record in records.arrayValue ?? [] {
                        #expect(record["systemModstamp"]?.stringValue?.hasSuffix(".000Z") == true)
                        ids[object, default: []].insert(record["id"]?.stringValue ?? "")
                        if object == "Account", let id = record["id"]?.stringValue {
                            recordTypes[id] = recordTypeId
                        }
                    }
                }
            }
            guard let token = page["relayToken"]?.stringValue else { break }
            path = "/services/data/v59.0/connect/briefcase/priming-records?relayToken=\(token)"
        }
        #expect(pages == 2)  // 2000 records per page
        #expect(Int64(ids["Account"]?.count ?? 0) == technology)
        #expect(ids["Contact"]?.count == 2500)
        let stored = try await org.query("SELECT Id, RecordTypeId FROM Account WHERE Industry = 'Technology'").body["records"]?.arrayValue ?? []
        #expect(!stored.isEmpty && stored.allSatisfy { recordTypes[$0["Id"]?.stringValue ?? ""] == $0["RecordTypeId"]?.stringValue }, "each account under its own record type")

        // changedAfterTimestamp narrows the top-level rules to recent changes.
        let future = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/connect/briefcase/priming-records?changedAfterTimestamp=2999-01-01T00:00:00Z").body)
        #expect(future["primingRecords"] == [:])
        #expect(future["relayToken"] == .null)
        let bad = await org.call("GET", "/services/data/v59.0/connect/briefcase/priming-records?relayToken=nonsense")
        #expect(bad.status == 400)
        #expect(await org.call("GET", "/services/data/v53.0/connect/briefcase/priming-records").status == 404)
    }

    @Test func rulesThatDoNotCompileAreRefusedAtStart() throws {
        let schema = try OrgSchema.bundled()
        #expect(throws: SchemaError.self) {
            _ = try BriefcaseConfiguration.parse(["briefcases": [["rules": [["object": "Account", "where": "Nope = 1"]]]]], schema: schema)
        }
        #expect(throws: SchemaError.self) {
            _ = try BriefcaseConfiguration.parse(["briefcases": [["rules": [["object": "Widget"]]]]], schema: schema)
        }
    }
}
