import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

@Suite struct SchemaTests {
    /// The shipped schema plus an Opportunity object, as a trainer would add it.
    func schemaWithOpportunity(extraField: Bool) throws -> JSONValue {
        var document = try OrgSchema.bundledDocument().objectValue ?? [:]
        var fields: [JSONValue] = [
            ["name": "Name", "type": "string", "length": 120, "nillable": false, "nameField": true],
            ["name": "Amount", "type": "currency"],
            ["name": "CloseDate", "type": "date", "nillable": false],
            ["name": "AccountId", "type": "reference", "referenceTo": "Account", "relationshipName": "Account", "childRelationshipName": "Opportunities"],
        ]
        if extraField { fields.append(["name": "NextStep", "type": "string", "length": 255]) }
        var objects = document["objects"]?.arrayValue ?? []
        objects.append(["name": "Opportunity", "keyPrefix": "006", "hasOwner": true, "fields": .array(fields)])
        document["objects"] = .array(objects)
        return .object(document)
    }

    @Test func anObjectAddedInTheSchemaFileIsServedLikeTheOthers() async throws {
        let directory = NSTemporaryDirectory() + "localorg-schema-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try JSONWriter.string(try schemaWithOpportunity(extraField: false)).write(toFile: directory + "/schema.json", atomically: true, encoding: .utf8)
        let store = try OrgDirectory(path: directory).openStore(firstUsers: .demo)
        let api = try LocalOrgAPI(store: store, settings: OrgSettings())
        let token = try await TestOrg.signIn(api, username: "demo@localorg.test", password: "localorg-demo")
        func call(_ method: String, _ path: String, _ body: String = "") async -> APIResponse {
            let parts = path.split(separator: "?", maxSplits: 1)
            return await api.handle(
                APIRequest(
                    method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "",
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: Array(body.utf8), baseURL: TestOrg.baseURL))
        }
        let account = try #require(try JSONParser.parse(await call("POST", "/services/data/v59.0/sobjects/Account", #"{"Name":"Buyer"}"#).body)["id"]?.stringValue)
        let missing = await call("POST", "/services/data/v59.0/sobjects/Opportunity", #"{"Name":"No date"}"#)
        #expect(try JSONParser.parse(missing.body).firstErrorMessage == "Required fields are missing: [CloseDate]")
        let created = await call("POST", "/services/data/v59.0/sobjects/Opportunity", #"{"Name":"Big deal","CloseDate":"2025-03-31","Amount":12500.5,"AccountId":"\#(account)"}"#)
        #expect(created.status == 201)
        #expect(try JSONParser.parse(created.body)["id"]?.stringValue?.hasPrefix("006") == true)
        let query = "SELECT Name, (SELECT Name, Amount, CloseDate FROM Opportunities) FROM Account".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let rows = try JSONParser.parse(await call("GET", "/services/data/v59.0/query?q=\(query)").body)
        let deal = rows["records"]?.arrayValue?.first?["Opportunities"]?["records"]?.arrayValue?.first
        #expect(deal?["Amount"] == 12500.5 && deal?["CloseDate"] == "2025-03-31")

        // A field added to the file later gets its column on the next start; data stays.
        try JSONWriter.string(try schemaWithOpportunity(extraField: true)).write(toFile: directory + "/schema.json", atomically: true, encoding: .utf8)
        let reopened = try OrgDirectory(path: directory).openStore()
        let opportunity = try #require(reopened.schema.object(named: "Opportunity"))
        #expect(opportunity.field(named: "NextStep") != nil)
        #expect(try reopened.counts().first { $0.object == "Opportunity" }?.live == 1)
    }

    @Test(arguments: [
        #"{"objects":[{"name":"A","keyPrefix":"001","fields":[]},{"name":"B","keyPrefix":"001","fields":[]}]}"#,
        #"{"objects":[{"name":"A","keyPrefix":"01g","fields":[]}]}"#,
        #"{"objects":[{"name":"A\"; DROP","keyPrefix":"0AA","fields":[]}]}"#,
        #"{"objects":[{"name":"A","keyPrefix":"0AA","fields":[{"name":"X","type":"reference","referenceTo":"Nope","relationshipName":"X"}]}]}"#,
        #"{"objects":[{"name":"A","keyPrefix":"0AA","fields":[{"name":"X","type":"blob"}]}]}"#,
        #"{"objects":[{"name":"A","keyPrefix":"0AA","fields":[{"name":"Id","type":"string"}]}]}"#,
    ])
    func badSchemasAreRejectedWithAReason(text: String) throws {
        #expect(throws: SchemaError.self) { _ = try OrgSchema.parse(try JSONParser.parse(text)) }
    }
}
