import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

/// The rules a real org puts on a save: record types with their own picklist values, restricted
/// picklists, validation rules, field-level security, and a team's own custom fields.
@Suite struct OrgRulesTests {
    static let v = "/services/data/v62.0"

    static func json(_ response: APIResponse) throws -> JSONValue { try JSONParser.parse(response.body) }

    static func firstError(_ response: APIResponse) throws -> (code: String, fields: [String]) {
        let error = try json(response).arrayValue?.first
        return (error?["errorCode"]?.stringValue ?? "", error?["fields"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    static func recordTypeId(_ org: TestOrg, _ developerName: String) async throws -> String {
        let describe = try json(await org.call("GET", "\(v)/sobjects/Account/describe"))
        let info = describe["recordTypeInfos"]?.arrayValue?.first { $0["developerName"]?.stringValue == developerName }
        return try #require(info?["recordTypeId"]?.stringValue)
    }

    @Test func describeListsMasterAndTheObjectsOwnRecordTypes() async throws {
        let org = try await TestOrg()
        let account = try Self.json(await org.call("GET", "\(Self.v)/sobjects/Account/describe"))
        let infos = account["recordTypeInfos"]?.arrayValue ?? []
        #expect(infos.compactMap { $0["developerName"]?.stringValue } == ["Master", "Customer", "Partner"])
        #expect(infos.first?["recordTypeId"] == "012000000000000AAA")
        #expect(infos.first?["available"] == false, "Master is not offered where the object has its own record types")
        #expect(infos.filter { $0["defaultRecordTypeMapping"] == true }.compactMap { $0["developerName"]?.stringValue } == ["Customer"])
        let fields = account["fields"]?.arrayValue ?? []
        #expect(fields.first { $0["name"] == "Type" }?["restrictedPicklist"] == true)
        #expect(fields.first { $0["name"] == "RecordTypeId" }?["referenceTo"] == ["RecordType"])

        let contact = try Self.json(await org.call("GET", "\(Self.v)/sobjects/Contact/describe"))
        let contactInfos = contact["recordTypeInfos"]?.arrayValue ?? []
        #expect(contactInfos.count == 1 && contactInfos.first?["master"] == true && contactInfos.first?["available"] == true)
        #expect(contact["fields"]?.arrayValue?.contains { $0["name"] == "RecordTypeId" } == false)

        let query = "SELECT DeveloperName FROM RecordType WHERE SobjectType = 'Account' ORDER BY DeveloperName"
        let rows = try Self.json(await org.call("GET", "\(Self.v)/query?q=\(query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"))
        #expect(rows["records"]?.arrayValue?.compactMap { $0["DeveloperName"]?.stringValue } == ["Customer", "Partner"])
    }

    @Test func aRestrictedPicklistTakesOnlyTheValuesOfTheRecordsRecordType() async throws {
        let org = try await TestOrg()
        let partner = try await Self.recordTypeId(org, "Partner")
        let bogus = await org.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"A","Type":"Bogus"}"#)
        #expect(bogus.status == 400)
        #expect(try Self.firstError(bogus) == ("INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", ["Type"]))
        // A partner's type on a record of the default (Customer) record type.
        let wrongType = await org.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"A","Type":"Technology Partner"}"#)
        #expect(try Self.firstError(wrongType).code == "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST")
        let created = await org.call(
            "POST", "\(Self.v)/sobjects/Account",
            body: #"{"Name":"A","Type":"Technology Partner","Website":"a.example","RecordTypeId":"\#(partner)"}"#)
        #expect(created.status == 201)
        let id = try #require(try Self.json(created)["id"]?.stringValue)
        // Moving it to Customer makes its partner type invalid: checked though Type is not sent.
        let customer = try await Self.recordTypeId(org, "Customer")
        let moved = await org.call("PATCH", "\(Self.v)/sobjects/Account/\(id)", body: #"{"RecordTypeId":"\#(customer)"}"#)
        #expect(try Self.firstError(moved) == ("INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", ["Type"]))
        let unknown = await org.call("PATCH", "\(Self.v)/sobjects/Account/\(id)", body: #"{"RecordTypeId":"012000000000001AAA"}"#)
        #expect(try Self.firstError(unknown) == ("INVALID_CROSS_REFERENCE_KEY", ["RecordTypeId"]))
        // An unrestricted picklist (Ownership) takes any value, as in Salesforce.
        let free = await org.call("PATCH", "\(Self.v)/sobjects/Account/\(id)", body: #"{"Ownership":"Cooperative"}"#)
        #expect(free.status == 204)
    }

    @Test func aNewRecordGetsTheDefaultRecordType() async throws {
        let org = try await TestOrg()
        let created = try Self.json(await org.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"Plain"}"#))
        let id = try #require(created["id"]?.stringValue)
        let record = try Self.json(await org.call("GET", "\(Self.v)/sobjects/Account/\(id)"))
        #expect(record["RecordTypeId"]?.stringValue == (try await Self.recordTypeId(org, "Customer")))
    }

    @Test func validationRulesRefuseWithTheirMessageOnTheirField() async throws {
        let org = try await TestOrg()
        let partner = try await Self.recordTypeId(org, "Partner")
        let noSite = await org.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"P","RecordTypeId":"\#(partner)"}"#)
        #expect(try Self.firstError(noSite) == ("FIELD_CUSTOM_VALIDATION_EXCEPTION", ["Website"]))
        #expect(try Self.json(noSite).firstErrorMessage == "A partner account needs its website.")

        let web = await org.call("POST", "\(Self.v)/sobjects/Contact", body: #"{"LastName":"Web","LeadSource":"Web"}"#)
        #expect(try Self.firstError(web) == ("FIELD_CUSTOM_VALIDATION_EXCEPTION", ["Email"]))
        let ok = try Self.json(await org.call("POST", "\(Self.v)/sobjects/Contact", body: #"{"LastName":"Web","LeadSource":"Web","Email":"w@example.com"}"#))
        let id = try #require(ok["id"]?.stringValue)
        // The rule judges the record as it would be stored, not only the fields sent.
        let cleared = await org.call("PATCH", "\(Self.v)/sobjects/Contact/\(id)", body: #"{"Email":null}"#)
        #expect(try Self.firstError(cleared).code == "FIELD_CUSTOM_VALIDATION_EXCEPTION")
        // In a collection, the refusal is that record's alone.
        let collection = await org.call(
            "POST", "\(Self.v)/composite/sobjects",
            body: #"""
                {"allOrNone":false,"records":[{"attributes":{"type":"Contact"},"LastName":"A","LeadSource":"Web"},
                                              {"attributes":{"type":"Contact"},"LastName":"B","LeadSource":"Phone Inquiry"}]}
                """#)
        let results = try Self.json(collection).arrayValue ?? []
        #expect(results.map { $0["success"] } == [false, true])
        #expect(results.first?["errors"]?.arrayValue?.first?["statusCode"] == "FIELD_CUSTOM_VALIDATION_EXCEPTION")
    }

    @Test func aFieldOnlyAdminsMayEditIsReadOnlyForOthersInDescribeAndOnSave() async throws {
        let admin = try await TestOrg()
        let trainer = try await admin.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        func rating(_ org: TestOrg) async throws -> JSONValue? {
            try Self.json(await org.call("GET", "\(Self.v)/sobjects/Account/describe"))["fields"]?.arrayValue?.first { $0["name"] == "Rating" }
        }
        #expect(try await rating(admin)?["updateable"] == true)
        #expect(try await rating(trainer)?["updateable"] == false)
        #expect(try await rating(trainer)?["createable"] == false)
        let refused = await trainer.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"T","Rating":"Hot"}"#)
        #expect(try Self.firstError(refused) == ("INVALID_FIELD_FOR_INSERT_UPDATE", ["Rating"]))
        #expect(await admin.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"T","Rating":"Hot"}"#).status == 201)
        #expect(await trainer.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"T"}"#).status == 201)
    }

    @Test func theUIAPIListsEachRecordTypesPicklistValues() async throws {
        let org = try await TestOrg()
        let partner = try await Self.recordTypeId(org, "Partner")
        let all = try Self.json(await org.call("GET", "\(Self.v)/ui-api/object-info/Account/picklist-values/\(partner)"))
        let type = all["picklistFieldValues"]?["Type"]?["values"]?.arrayValue?.compactMap { $0["value"]?.stringValue }
        #expect(type == ["Channel Partner / Reseller", "Installation Partner", "Technology Partner"])
        #expect(all["picklistFieldValues"]?["Rating"]?["values"]?.arrayValue?.count == 3, "a picklist the record type does not narrow offers all")
        let one = try Self.json(await org.call("GET", "\(Self.v)/ui-api/object-info/Account/picklist-values/\(partner)/Industry"))
        #expect(one["values"]?.arrayValue?.count == 6)
        let master = try Self.json(await org.call("GET", "\(Self.v)/ui-api/object-info/Account/picklist-values/012000000000000AAA"))
        #expect(master["picklistFieldValues"]?["Type"]?["values"]?.arrayValue?.count == 7)
        #expect(await org.call("GET", "\(Self.v)/ui-api/object-info/Account/picklist-values/012000000000009AAA").status == 404)
    }

    @Test func customFieldsAndObjectsComeFromCustomSchemaJSON() async throws {
        let directory = NSTemporaryDirectory() + "localorg-custom-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #"""
        {"fields": {"Contact": [{"name": "Region__c", "label": "Region", "type": "picklist", "restrictedPicklist": true,
                                  "picklistValues": ["North", "South"]},
                                 {"name": "Tags__c", "type": "multipicklist", "length": 4099, "restrictedPicklist": true,
                                  "picklistValues": ["A", "B"]},
                                 {"name": "Score__c", "type": "percent", "precision": 5, "scale": 2}]},
         "objects": [{"name": "Visit__c", "label": "Visit", "keyPrefix": "a01",
                      "fields": [{"name": "Name", "type": "string", "length": 80, "nillable": false, "nameField": true},
                                 {"name": "Account__c", "label": "Account", "type": "reference", "referenceTo": "Account",
                                  "relationshipName": "Account__r", "childRelationshipName": "Visits__r"}]}]}
        """#.write(toFile: directory + "/custom-schema.json", atomically: true, encoding: .utf8)
        let store = try OrgDirectory(path: directory).openStore(firstUsers: .demo)
        let api = try LocalOrgAPI(store: store, settings: OrgSettings())
        let token = try await TestOrg.signIn(api, username: "demo@localorg.test", password: "localorg-demo")
        func call(_ method: String, _ path: String, _ body: String = "") async -> APIResponse {
            await api.handle(
                APIRequest(
                    method: method, path: path, headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: Array(body.utf8), baseURL: TestOrg.baseURL))
        }
        let region = try Self.json(await call("GET", "\(Self.v)/sobjects/Contact/describe"))["fields"]?.arrayValue?.first { $0["name"] == "Region__c" }
        #expect(region?["custom"] == true && region?["restrictedPicklist"] == true)
        #expect(
            try Self.firstError(await call("POST", "\(Self.v)/sobjects/Contact", #"{"LastName":"X","Region__c":"East"}"#)).code
                == "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST")
        #expect(await call("POST", "\(Self.v)/sobjects/Contact", #"{"LastName":"X","Region__c":"North"}"#).status == 201)
        // A multi-select picklist's values are checked one by one; a percent is a number.
        #expect(await call("POST", "\(Self.v)/sobjects/Contact", #"{"LastName":"X","Tags__c":"A;B","Score__c":87.5}"#).status == 201)
        let stray = await call("POST", "\(Self.v)/sobjects/Contact", #"{"LastName":"X","Tags__c":"A;C"}"#)
        #expect(try Self.firstError(stray) == ("INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", ["Tags__c"]))
        let account = try #require(try Self.json(await call("POST", "\(Self.v)/sobjects/Account", #"{"Name":"Visited"}"#))["id"]?.stringValue)
        let visit = await call("POST", "\(Self.v)/sobjects/Visit__c", #"{"Name":"Monday","Account__c":"\#(account)"}"#)
        #expect(visit.status == 201)
        #expect(try Self.json(visit)["id"]?.stringValue?.hasPrefix("a01") == true)

        // A standard-looking name is refused, naming the file.
        try #"{"fields": {"Contact": [{"name": "Region", "type": "string", "length": 10}]}}"#
            .write(toFile: directory + "/custom-schema.json", atomically: true, encoding: .utf8)
        #expect {
            _ = try OrgDirectory(path: directory).schema()
        } throws: { error in
            "\(error)".contains("custom-schema.json") && "\(error)".contains("Contact.Region needs a name ending in __c")
        }
    }
}
