import ForceJSON
import Foundation
import GRDB
import Testing

@testable import LocalOrg

/// A production org's rules, each request compared with what Salesforce's documentation or a
/// recorded answer shows (status, errorCode, message, fields, `duplicateResut`), and switched off
/// for a lenient room.
@Suite struct ProductionRulesTests {
    static let v = "/services/data/v62.0"

    static func json(_ response: APIResponse) throws -> JSONValue { try JSONParser.parse(response.body) }

    static func encoded(_ soql: String) -> String { soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? soql }

    // MARK: Every rule on in a new org, each switchable

    @Test func aNewOrgEnforcesEveryRuleAndATrainerCanSwitchThemOff() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        #expect(try org.store.productionRules() == .strict)
        var rules = ProductionRules.strict
        rules.set(.duplicateRules, on: false)
        try org.store.setProductionRules(rules)
        #expect(try org.store.productionRules().off == [.duplicateRules])
        try org.store.setProductionRules(.lenient)
        #expect(try org.store.productionRules().off == Set(ProductionRules.Rule.allCases))
    }

    // MARK: Request size (REST API limits: URI and headers at most 16,384 bytes)

    @Test func aRequestHeadOver16KBIsRefusedAsSalesforceRefusesIt() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let long = String(repeating: "a", count: 17_000)
        let uri = await org.call("GET", "\(Self.v)/query?q=SELECT+Id+FROM+Contact+WHERE+LastName+=+'\(long)'")
        #expect(uri.status == 414)
        #expect(uri.bodyText == "<h1>Bad Message 414</h1><pre>reason: URI Too Long</pre>")
        let headers = await org.call("GET", "\(Self.v)/query?q=\(String(repeating: "b", count: 10_000))", headers: ["X-Padding": String(repeating: "c", count: 8_000)])
        #expect(headers.status == 431)
        #expect(headers.bodyText == "<h1>Bad Message 431</h1><pre>reason: Request Header Fields Too Large</pre>")
        #expect(headers.header("Content-Type")?.hasPrefix("text/html") == true)

        let lenient = try await TestOrg(rules: ProductionRules(off: [.requestSizeLimit]))
        defer { lenient.remove() }
        #expect(await lenient.call("GET", "\(Self.v)/query?q=SELECT+Id+FROM+Contact+WHERE+LastName+=+'\(long)'").status == 200)
    }

    // MARK: Long text areas (SOQL reference: WHERE takes "any field except a long text area")

    @Test func describeMarksLongTextAreasNotFilterableSortableOrGroupable() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let fields = try Self.json(await org.call("GET", "\(Self.v)/sobjects/Contact/describe"))["fields"]?.arrayValue ?? []
        let description = try #require(fields.first { $0["name"] == "Description" })
        #expect(description["type"] == "textarea" && description["length"] == 32000)
        #expect(description["filterable"] == false && description["sortable"] == false && description["groupable"] == false)
        #expect(description["extraTypeInfo"] == "plaintextarea")
        // A text area of 255 characters is an ordinary text field to SOQL (the recorded describe's TextArea_Field).
        let street = try #require(fields.first { $0["name"] == "MailingStreet" })
        #expect(street["filterable"] == true && street["sortable"] == true && street["groupable"] == true)
    }

    @Test func soqlRefusesALongTextAreaWhereARealOrgDoes() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        _ = try await org.create("Contact", #"{"LastName":"Long","Description":"notes"}"#)
        let cases: [(String, String, String)] = [
            (
                "SELECT Id FROM Contact WHERE Description = 'notes'", "INVALID_FIELD",
                "\nSELECT Id FROM Contact WHERE Description = 'notes'\n                             ^\nERROR at Row:1:Column:30\nfield 'Description' can not be filtered in a query call"
            ),
            ("SELECT Id FROM Contact WHERE Description LIKE '%no%'", "INVALID_FIELD", "field 'Description' can not be filtered in a query call"),
            ("SELECT Id FROM Contact WHERE Description != null", "INVALID_FIELD", "field 'Description' can not be filtered in a query call"),
            ("SELECT Id FROM Contact WHERE Description IN ('a')", "INVALID_FIELD", "field 'Description' can not be filtered in a query call"),
            ("SELECT Id FROM Contact ORDER BY Description", "MALFORMED_QUERY", "field 'Description' can not be sorted in a query call"),
            ("SELECT Description, COUNT(Id) FROM Contact GROUP BY Description", "MALFORMED_QUERY", "field 'Description' can not be grouped in a query call"),
        ]
        for (soql, code, message) in cases {
            let (status, body) = try await org.query(soql)
            #expect(status == 400, "\(soql)")
            #expect(body.firstErrorCode == code, "\(soql)")
            #expect(body.firstErrorMessage?.hasSuffix(message) == true, "\(soql): \(body.firstErrorMessage ?? "")")
        }
        // Selecting it is fine, and SOSL searches it.
        #expect(try await org.query("SELECT Description FROM Contact").body["records"]?.arrayValue?.first?["Description"] == "notes")
        let found = try Self.json(await org.call("GET", "\(Self.v)/search?q=\(Self.encoded("FIND {notes} RETURNING Contact(Id)"))"))
        #expect(found["searchRecords"]?.arrayValue?.count == 1)

        let lenient = try await TestOrg(rules: ProductionRules(off: [.nonFilterableFields]))
        defer { lenient.remove() }
        _ = try await lenient.create("Contact", #"{"LastName":"Long","Description":"notes"}"#)
        #expect(try await lenient.query("SELECT Id FROM Contact WHERE Description = 'notes'").body["totalSize"] == 1)
        let described = try Self.json(await lenient.call("GET", "\(Self.v)/sobjects/Contact/describe"))["fields"]?.arrayValue
        #expect(described?.first { $0["name"] == "Description" }?["filterable"] == true)
    }

    // MARK: Field-level security ("Field-Level Security" help; recorded INVALID_FIELD answers)

    /// An org whose trainer profile hides Department and makes HomePhone read-only.
    static func orgWithFieldSales(rules: ProductionRules? = nil) async throws -> (admin: TestOrg, rep: TestOrg) {
        let admin = try await TestOrg(rules: rules)
        try admin.store.saveAccessDefinition(
            AccessDefinition(
                name: "Field Sales", kind: .profile,
                fields: ["Contact.Department": .hidden, "Contact.HomePhone": .read]))
        try admin.store.setProfile(username: "trainer@localorg.test", "Field Sales")
        return (admin, try await admin.signedIn(as: "trainer@localorg.test", password: "localorg-trainer"))
    }

    @Test func aHiddenFieldDoesNotExistForTheUserAndAReadOnlyOneIsRefusedOnWrites() async throws {
        let (admin, rep) = try await Self.orgWithFieldSales()
        defer { admin.remove() }
        let id = try await admin.create("Contact", #"{"LastName":"Lovelace","Department":"Engines","HomePhone":"1"}"#)

        let fields = try Self.json(await rep.call("GET", "\(Self.v)/sobjects/Contact/describe"))["fields"]?.arrayValue ?? []
        #expect(!fields.contains { $0["name"] == "Department" })
        let home = try #require(fields.first { $0["name"] == "HomePhone" })
        #expect(home["createable"] == false && home["updateable"] == false)
        #expect(fields.first { $0["name"] == "MobilePhone" }?["updateable"] == true)

        // SOQL: the recorded answer, caret and all.
        let (status, body) = try await rep.query("SELECT Id, Department FROM Contact")
        #expect(status == 400)
        #expect(body.firstErrorCode == "INVALID_FIELD")
        #expect(
            body.firstErrorMessage
                == "\nSELECT Id, Department FROM Contact\n           ^\nERROR at Row:1:Column:12\nNo such column 'Department' on entity 'Contact'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names."
        )
        #expect(body.arrayValue?.first?["fields"] == nil)
        #expect(try await rep.query("SELECT Id FROM Contact WHERE Department = 'Engines'").status == 400)
        let all = try await rep.query("SELECT FIELDS(ALL) FROM Contact LIMIT 10").body["records"]?.arrayValue?.first
        #expect(all?["Department"] == nil && all?["HomePhone"] == "1")
        #expect(try await admin.query("SELECT Department FROM Contact").body["records"]?.arrayValue?.first?["Department"] == "Engines")

        // Records: left out of a GET, refused when asked for by name.
        let record = try Self.json(await rep.call("GET", "\(Self.v)/sobjects/Contact/\(id)"))
        #expect(record["Department"] == nil && record["LastName"] == "Lovelace")
        #expect(try Self.json(await rep.call("GET", "\(Self.v)/sobjects/Contact/\(id)?fields=Department")).firstErrorCode == "INVALID_FIELD")

        // Writes: a hidden field is no column; a read-only one is named in `fields`.
        let hidden = await rep.call("POST", "\(Self.v)/sobjects/Contact", body: #"{"LastName":"B","Department":"X"}"#)
        #expect(hidden.status == 400)
        #expect(try Self.json(hidden) == [["message": "No such column 'Department' on sobject of type Contact", "errorCode": "INVALID_FIELD"]])
        let readOnly = await rep.call("PATCH", "\(Self.v)/sobjects/Contact/\(id)", body: #"{"HomePhone":"2","Title":"Countess"}"#)
        #expect(readOnly.status == 400)
        #expect(
            try Self.json(readOnly) == [
                [
                    "message": "Unable to create/update fields: HomePhone. Please check the security settings of this field and verify that it is read/write for your profile or permission set.",
                    "errorCode": "INVALID_FIELD_FOR_INSERT_UPDATE", "fields": ["HomePhone"],
                ]
            ])
        #expect(await rep.call("PATCH", "\(Self.v)/sobjects/Contact/\(id)", body: #"{"Title":"Countess"}"#).status == 204)
        // In a collection the same refusal is the record's own.
        let collection = try Self.json(
            await rep.call(
                "POST", "\(Self.v)/composite/sobjects",
                body: """
                    {"allOrNone":false,"records":[{"attributes":{"type":"Contact"},"LastName":"C","HomePhone":"3"},{"attributes":{"type":"Contact"},"LastName":"D"}]}
                    """))
        #expect(collection.arrayValue?.first?["errors"]?.arrayValue?.first?["statusCode"] == "INVALID_FIELD_FOR_INSERT_UPDATE")
        #expect(collection.arrayValue?.last?["success"] == true)
    }

    @Test func aPermissionSetGrantsMoreThanTheProfileAndRequiredFieldsCannotBeRestricted() async throws {
        let (admin, rep) = try await Self.orgWithFieldSales()
        defer { admin.remove() }
        try admin.store.saveAccessDefinition(AccessDefinition(name: "Phone Editors", kind: .permissionSet, fields: ["Contact.HomePhone": .edit]))
        let trainer = try admin.store.signInUserId(username: "trainer@localorg.test")
        try admin.store.assignPermissionSet("Phone Editors", toUserId: trainer, remove: false)
        #expect(await rep.call("POST", "\(Self.v)/sobjects/Contact", body: #"{"LastName":"E","HomePhone":"4"}"#).status == 201)
        #expect(throws: SchemaError.self) {
            try admin.store.saveAccessDefinition(AccessDefinition(name: "Broken", kind: .profile, fields: ["Contact.LastName": .hidden]))
        }
        #expect(throws: SchemaError.self) {
            try admin.store.saveAccessDefinition(AccessDefinition(name: "Standard User", kind: .profile, fields: [:]))
        }
    }

    @Test func withFieldLevelSecurityOffEveryFieldIsTheUsersAgain() async throws {
        let (admin, rep) = try await Self.orgWithFieldSales(rules: ProductionRules(off: [.fieldLevelSecurity]))
        defer { admin.remove() }
        #expect(try await rep.query("SELECT Id, Department FROM Contact").status == 200)
        // The schema's admin-only field stays read-only for others, as before profiles.
        let fields = try Self.json(await rep.call("GET", "\(Self.v)/sobjects/Account/describe"))["fields"]?.arrayValue ?? []
        #expect(fields.first { $0["name"] == "Rating" }?["updateable"] == false)
    }

    // MARK: Duplicate rules (recorded DUPLICATES_DETECTED answers, v48–v56; "Duplicate Rule Header")

    @Test func aDuplicateContactIsRefusedWithTheRecordedShapeUnlessTheSaveIsAllowed() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let first = try await org.create("Contact", #"{"FirstName":"Ada","LastName":"Lovelace","Email":"ada@example.org"}"#)
        let refused = await org.call("POST", "\(Self.v)/sobjects/Contact", body: #"{"FirstName":"Augusta","LastName":"King","Email":"ADA@example.org"}"#)
        #expect(refused.status == 400)
        #expect(
            refused.bodyText == """
                [{"duplicateResut":{"allowSave":true,"duplicateRule":"Standard_Contact_Duplicate_Rule","duplicateRuleEntityType":"Contact",\
                "errorMessage":"Use one of these records?","matchResults":[{"entityType":"Contact","errors":[],"matchEngine":"FuzzyMatchEngine",\
                "matchRecords":[{"additionalInformation":[],"fieldDiffs":[],"matchConfidence":100.0,"record":{"attributes":{"type":"Contact",\
                "url":"/services/data/v62.0/sobjects/Contact/\(first)"},"Id":"\(first)"}}],"rule":"Standard_Contact_Match_Rule_v1_1","size":1,\
                "success":true}]},"errorCode":"DUPLICATES_DETECTED","message":"Use one of these records?"}]
                """)
        // The same name within the same account, typed differently.
        let account = try await org.create("Account", #"{"Name":"Analytical Engines"}"#)
        _ = try await org.create("Contact", #"{"FirstName":"Charles","LastName":"Babbage","AccountId":"\#(account)"}"#)
        let sameName = await org.call("POST", "\(Self.v)/sobjects/Contact", body: #"{"FirstName":"  charles ","LastName":"BABBAGE","AccountId":"\#(account)"}"#)
        #expect(try Self.json(sameName).firstErrorCode == "DUPLICATES_DETECTED")
        // Another account's Charles Babbage is another person.
        #expect(await org.call("POST", "\(Self.v)/sobjects/Contact", body: #"{"FirstName":"Charles","LastName":"Babbage"}"#).status == 201)

        // allowSave=true lets an alerting rule's duplicate through, from v52.0 on.
        let allowed = await org.call(
            "POST", "\(Self.v)/sobjects/Contact", body: #"{"LastName":"King","Email":"ada@example.org"}"#,
            headers: ["Sforce-Duplicate-Rule-Header": "allowSave=true; includeRecordDetails=false"])
        #expect(allowed.status == 201)
        let old = await org.call(
            "POST", "/services/data/v51.0/sobjects/Contact", body: #"{"LastName":"King","Email":"ada@example.org"}"#,
            headers: ["Sforce-Duplicate-Rule-Header": "allowSave=true"])
        #expect(try Self.json(old).firstErrorCode == "DUPLICATES_DETECTED")
        // includeRecordDetails puts the matching record's fields beside its Id.
        let detailed = try Self.json(
            await org.call(
                "POST", "\(Self.v)/sobjects/Contact", body: #"{"LastName":"X","Email":"ada@example.org"}"#,
                headers: ["Sforce-Duplicate-Rule-Header": "includeRecordDetails=true"]))
        let matched = detailed.arrayValue?.first?["duplicateResut"]?["matchResults"]?.arrayValue?.first?["matchRecords"]?.arrayValue ?? []
        #expect(matched.count == 2)
        #expect(matched.first?["record"]?["LastName"] == "Lovelace")
        // An edit only reports: it saves.
        let allowedId = try #require(try Self.json(allowed)["id"]?.stringValue)
        #expect(await org.call("PATCH", "\(Self.v)/sobjects/Contact/\(allowedId)", body: #"{"Title":"Countess"}"#).status == 204)
    }

    @Test func aCollectionNamesTheRefusalWithoutDetailsAndComparesOnlyWithRecordsAlreadyThere() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        _ = try await org.create("Contact", #"{"LastName":"Lovelace","Email":"ada@example.org"}"#)
        let answer = try Self.json(
            await org.call(
                "POST", "\(Self.v)/composite/sobjects",
                body: """
                    {"allOrNone":false,"records":[{"attributes":{"type":"Contact"},"LastName":"Again","Email":"ada@example.org"},
                     {"attributes":{"type":"Contact"},"LastName":"Twin","Email":"twin@example.org"},
                     {"attributes":{"type":"Contact"},"LastName":"Twin","Email":"twin@example.org"}]}
                    """))
        let results = answer.arrayValue ?? []
        #expect(results.first == ["success": false, "errors": [["statusCode": "DUPLICATES_DETECTED", "message": "Use one of these records?", "fields": []]]])
        // "Records within the same save aren't compared to each other."
        #expect(results.dropFirst().allSatisfy { $0["success"] == true })
    }

    @Test func aBlockingRuleRefusesWhateverTheHeaderAndAnAccountMatchesByItsNormalisedName() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        try org.store.setDuplicateAction(.block, for: "Account")
        try await Task.sleep(for: .seconds(1.1))  // the server reads the org's rules again each second
        let first = try await org.create("Account", #"{"Name":"Acme, Inc.","Phone":"+1 (415) 555-0100"}"#)
        let refused = await org.call(
            "POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"ACME","Phone":"415.555.0100"}"#,
            headers: ["Sforce-Duplicate-Rule-Header": "allowSave=true"])
        let result = try Self.json(refused).arrayValue?.first?["duplicateResut"]
        #expect(result?["allowSave"] == false && result?["duplicateRule"] == "Standard_Account_Duplicate_Rule")
        #expect(result?["matchResults"]?.arrayValue?.first?["matchRecords"]?.arrayValue?.first?["record"]?["Id"] == .string(first))
        // Same name, nothing else alike: another company.
        #expect(await org.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"Acme Corp","Phone":"+44 20 7946 0000"}"#).status == 201)

        let lenient = try await TestOrg(rules: ProductionRules(off: [.duplicateRules]))
        defer { lenient.remove() }
        _ = try await lenient.create("Contact", #"{"LastName":"Lovelace","Email":"ada@example.org"}"#)
        _ = try await lenient.create("Contact", #"{"LastName":"Lovelace","Email":"ada@example.org"}"#)
    }

    @Test func matchingRulesNormaliseAsTheHelpDescribes() {
        #expect(MatchingRules.firstNamesMatch("Bob", "Robert") && MatchingRules.firstNamesMatch("J", "John") && !MatchingRules.firstNamesMatch("Jo", "John"))
        #expect(MatchingRules.companyName("The Acme Company, Ltd.") == "acme")
        #expect(MatchingRules.phonesMatch("+1 415 555 0100", "(415) 555-0100") && !MatchingRules.phonesMatch("555", "555"))
        #expect(MatchingRules.normalised("  Zoë   O'Brien ") == "zoe o brien")
    }

    // MARK: The username-password flow blocked per connected app

    @Test func aBlockedPasswordFlowAnswersAsAWrongPasswordDoes() async throws {
        let directory = NSTemporaryDirectory() + "localorg-flow-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try OrgStore(path: directory + "/org.sqlite", schema: try OrgSchema.bundled())
        var settings = OrgSettings()
        settings.passwordFlowBlocked = [LocalOrgAPI.builtInClientId]
        let api = try LocalOrgAPI(store: store, settings: settings)
        func signIn(_ password: String) async -> APIResponse {
            await api.handle(
                APIRequest(
                    method: "POST", path: "/services/oauth2/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array("grant_type=password&client_id=forceterm&username=demo@localorg.test&password=\(password)".utf8),
                    baseURL: TestOrg.baseURL))
        }
        let blocked = await signIn("localorg-demo")
        let wrong = await signIn("wrong")
        #expect(blocked.status == 400 && wrong.status == 400)
        #expect(blocked.bodyText == #"{"error":"invalid_grant","error_description":"authentication failure"}"#)
        #expect(blocked.bodyText == wrong.bodyText)
    }
}
