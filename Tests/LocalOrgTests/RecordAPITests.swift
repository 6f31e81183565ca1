import ForceJSON
import Foundation
import SalesforceTime
import Testing

@testable import LocalOrg

@Suite struct RecordAPITests {
    @Test func createReadUpdateDeleteWithSystemFields() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let id = try await org.create("Contact", #"{"FirstName":"Zoë","LastName":"Dvořák","Email":"zoe@example.com"}"#)
        #expect(id.hasPrefix("003") && id.count == 18)
        var response = await org.call("GET", "/services/data/v59.0/sobjects/contact/\(id)")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json;charset=UTF-8")
        #expect(response.header("Sforce-Limit-Info")?.hasPrefix("api-usage=") == true)
        var record = try JSONParser.parse(response.body)
        #expect(record["Name"] == "Zoë Dvořák")
        #expect(record["IsDeleted"] == false)
        let created = try #require(record["CreatedDate"]?.stringValue)
        #expect(created.hasSuffix(".000+0000") && created.count == 28)
        #expect(record["OwnerId"] == record["CreatedById"])

        response = await org.call("GET", "/services/data/v59.0/sobjects/Contact/\(id.prefix(15))?fields=LastName,Email")
        record = try JSONParser.parse(response.body)
        // The Id follows the listed fields, as in restforce's recorded answer.
        #expect(record.objectValue?.keys.elements == ["attributes", "LastName", "Email", "Id"])

        response = await org.call("PATCH", "/services/data/v59.0/sobjects/Contact/\(id)", body: #"{"FirstName":null,"Title":"Chef"}"#)
        #expect(response.status == 204)
        record = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/sobjects/Contact/\(id)").body)
        #expect(record["Name"] == "Dvořák")
        #expect(record["Title"] == "Chef")

        #expect(await org.call("DELETE", "/services/data/v59.0/sobjects/Contact/\(id)").status == 204)
        response = await org.call("GET", "/services/data/v59.0/sobjects/Contact/\(id)")
        #expect(response.status == 404)
        #expect(try JSONParser.parse(response.body) == [["message": "entity is deleted", "errorCode": "ENTITY_IS_DELETED", "fields": []]])
        #expect(await org.call("DELETE", "/services/data/v59.0/sobjects/Contact/\(id)").status == 404)
    }

    @Test(
        arguments: [
            (#"{"FirstName":"No last name"}"#, "REQUIRED_FIELD_MISSING", "Required fields are missing: [LastName]"),
            (#"{"LastName":"\#(String(repeating: "x", count: 81))"}"#, "STRING_TOO_LONG", "Last Name: data value too large: \(String(repeating: "x", count: 81)) (max length=80)"),
            (#"{"LastName":"A","Email":"not an email"}"#, "INVALID_EMAIL_ADDRESS", "Email: invalid email address: not an email"),
            (#"{"LastName":"A","AccountId":"garbage"}"#, "MALFORMED_ID", "Account ID: id value of incorrect type: garbage"),
            (#"{"LastName":"A","AccountId":"001Lo0000000zzzAAA"}"#, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id"),
            (
                #"{"LastName":"A","Name":"B"}"#, "INVALID_FIELD_FOR_INSERT_UPDATE",
                "Unable to create/update fields: Name. Please check the security settings of this field and verify that it is read/write for your profile or permission set."
            ),
            (#"{"LastName":"A","Nope":"B"}"#, "INVALID_FIELD", "No such column 'Nope' on sobject of type Contact"),
            (#"{"LastName":5.5,"Birthdate":"yesterday"}"#, "JSON_PARSER_ERROR", nil),
            (#"{"LastName":"A""#, "JSON_PARSER_ERROR", nil),
        ] as [(String, String, String?)])
    func invalidRecordsGetSalesforceErrors(body: String, code: String, message: String?) async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let response = await org.call("POST", "/services/data/v59.0/sobjects/Contact", body: body)
        #expect(response.status == 400)
        let errors = try JSONParser.parse(response.body)
        #expect(errors.firstErrorCode == code)
        if let message { #expect(errors.firstErrorMessage == message) }
        #expect(try await org.query("SELECT COUNT() FROM Contact").body["totalSize"] == 0)
    }

    @Test func badPathsAnswerLikeSalesforce() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        var response = await org.call("GET", "/services/data/v59.0/sobjects/Contact/abc")
        #expect(response.status == 404)
        #expect(try JSONParser.parse(response.body).firstErrorMessage == "Provided external ID field does not exist or is not accessible: abc")
        response = await org.call("GET", "/services/data/v59.0/sobjects/Widget/")
        #expect(response.status == 404)
        #expect(try JSONParser.parse(response.body).firstErrorCode == "NOT_FOUND")
        response = await org.call("GET", "/services/data/v59.0/sobjects/Contact/003Lo0000000zzzAAA")
        #expect(response.status == 404)
    }

    @Test func upsertByExternalIdCreatesThenUpdates() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        var response = await org.call("PATCH", "/services/data/v59.0/sobjects/Contact/ExternalKey__c/k-1", body: #"{"LastName":"First"}"#)
        #expect(response.status == 201)
        let created = try JSONParser.parse(response.body)
        #expect(created["created"] == true)
        response = await org.call("PATCH", "/services/data/v59.0/sobjects/Contact/ExternalKey__c/k-1", body: #"{"LastName":"Second"}"#)
        #expect(response.status == 200)
        #expect(try JSONParser.parse(response.body) == ["id": created["id"]!, "success": true, "errors": [], "created": false])
        response = await org.call("PATCH", "/services/data/v45.0/sobjects/Contact/ExternalKey__c/k-1", body: #"{"LastName":"Old API"}"#)
        #expect(response.status == 204)
        response = await org.call("GET", "/services/data/v59.0/sobjects/Contact/ExternalKey__c/k-1")
        #expect(try JSONParser.parse(response.body)["LastName"] == "Old API")
        response = await org.call("GET", "/services/data/v59.0/sobjects/Contact/NoSuchField__c/k-1")
        #expect(try JSONParser.parse(response.body).firstErrorMessage == "Provided external ID field does not exist or is not accessible: NoSuchField__c")
    }

    @Test func aDeleteIgnoresConditionalHeadersAsSalesforceDocumentsIt() async throws {
        // "Conditional Request Headers": "DELETE requests aren't supported".
        let org = try await TestOrg()
        defer { org.remove() }
        let id = try await org.create("Contact", #"{"LastName":"Gone"}"#)
        let before = SalesforceDate.formatHTTPDate(OrgStore.now() - 3600)
        let response = await org.call(
            "DELETE", "/services/data/v59.0/sobjects/Contact/\(id)",
            headers: ["If-Unmodified-Since": before, "If-Match": "\"no-such-tag\""])
        #expect(response.status == 204)
        #expect(try await org.query("SELECT COUNT() FROM Contact").body["totalSize"] == 0)
    }

    @Test func aLenientOrgRefusesAConditionalDeleteOfARecordChangedSince() async throws {
        let org = try await TestOrg(rules: ProductionRules(off: [.deleteIgnoresPreconditions]))
        defer { org.remove() }
        let id = try await org.create("Contact", #"{"LastName":"Kept"}"#)
        let before = SalesforceDate.formatHTTPDate(OrgStore.now() - 3600)
        let stale = await org.call("DELETE", "/services/data/v59.0/sobjects/Contact/\(id)", headers: ["If-Unmodified-Since": before])
        #expect(stale.status == 412)
        #expect(try JSONParser.parse(stale.body).firstErrorCode == "PRECONDITION_FAILED")
        #expect(try await org.query("SELECT COUNT() FROM Contact").body["totalSize"] == 1)
        let lastModified = try #require(await org.call("GET", "/services/data/v59.0/sobjects/Contact/\(id)").header("Last-Modified"))
        #expect(await org.call("DELETE", "/services/data/v59.0/sobjects/Contact/\(id)", headers: ["If-Unmodified-Since": lastModified]).status == 204)
        #expect(try await org.query("SELECT COUNT() FROM Contact").body["totalSize"] == 0)
    }

    @Test func conditionalRequestsUseLastModifiedDate() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let id = try await org.create("Account", #"{"Name":"Conditional"}"#)
        let read = await org.call("GET", "/services/data/v59.0/sobjects/Account/\(id)")
        let lastModified = try #require(read.header("Last-Modified"))
        #expect(await org.call("GET", "/services/data/v59.0/sobjects/Account/\(id)", headers: ["If-Modified-Since": lastModified]).status == 304)
        let before = SalesforceDate.formatHTTPDate(OrgStore.now() - 3600)
        #expect(await org.call("GET", "/services/data/v59.0/sobjects/Account/\(id)", headers: ["If-Modified-Since": before]).status == 200)
        let stale = await org.call("PATCH", "/services/data/v59.0/sobjects/Account/\(id)", body: #"{"Phone":"1"}"#, headers: ["If-Unmodified-Since": before])
        #expect(stale.status == 412)
        #expect(try JSONParser.parse(stale.body).firstErrorCode == "PRECONDITION_FAILED")
        let fresh = await org.call("PATCH", "/services/data/v59.0/sobjects/Account/\(id)", body: #"{"Phone":"2"}"#, headers: ["If-Unmodified-Since": lastModified])
        #expect(fresh.status == 204)

        // Accounts also carry entity tags.
        let tagged = await org.call("GET", "/services/data/v59.0/sobjects/Account/\(id)")
        let etag = try #require(tagged.header("ETag"))
        #expect(await org.call("GET", "/services/data/v59.0/sobjects/Account/\(id)", headers: ["If-None-Match": etag]).status == 304)
        #expect(await org.call("PATCH", "/services/data/v59.0/sobjects/Account/\(id)", body: #"{"Phone":"3"}"#, headers: ["If-Match": "\"stale\""]).status == 412)
        #expect(await org.call("PATCH", "/services/data/v59.0/sobjects/Account/\(id)", body: #"{"Phone":"3"}"#, headers: ["If-None-Match": etag]).status == 412)
        #expect(await org.call("PATCH", "/services/data/v59.0/sobjects/Account/\(id)", body: #"{"Phone":"3"}"#, headers: ["If-Match": etag]).status == 204)
        let retagged = await org.call("GET", "/services/data/v59.0/sobjects/Account/\(id)", headers: ["If-None-Match": etag])
        #expect(retagged.status == 200)  // the change gave the record a new tag, even within the same second
        #expect(retagged.header("ETag") != etag)
        let contact = try await org.create("Contact", #"{"LastName":"Untagged"}"#)
        #expect(await org.call("GET", "/services/data/v59.0/sobjects/Contact/\(contact)").header("ETag") == nil)
    }

    @Test func updatedAndDeletedWindowsListChanges() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let keep = try await org.create("Account", #"{"Name":"Keep"}"#)
        let drop = try await org.create("Account", #"{"Name":"Drop"}"#)
        #expect(await org.call("DELETE", "/services/data/v59.0/sobjects/Account/\(drop)").status == 204)
        // Move the changes five minutes into the past, so they lie inside a window that ends
        // at the last whole minute (windows ignore seconds, as Salesforce's do).
        let fiveMinutesAgo = OrgStore.now() - 300
        try org.store.writeNow { db in
            try db.execute(
                sql: "UPDATE sobject_Account SET SystemModstamp = ?, localorg_deleted_at = CASE WHEN IsDeleted = 1 THEN ? END",
                arguments: [fiveMinutesAgo, fiveMinutesAgo])
        }
        let start = SalesforceDate.formatDateTime(OrgStore.now() - 3600).replacingOccurrences(of: ".000+0000", with: "+00:00")
        let end = SalesforceDate.formatDateTime(OrgStore.now()).replacingOccurrences(of: ".000+0000", with: "+00:00")
        let query = "start=\(start.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: ":", with: "%3A"))&end=\(end.replacingOccurrences(of: "+", with: "%2B"))"
        let updated = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/sobjects/Account/updated/?\(query)").body)
        #expect(updated["ids"] == [.string(keep)])
        #expect(updated["latestDateCovered"]?.stringValue?.hasSuffix(":00.000+0000") == true)
        let deleted = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/sobjects/Account/deleted?\(query)").body)
        #expect(deleted["deletedRecords"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [drop])
        #expect(deleted["deletedRecords"]?.arrayValue?.first?["deletedDate"] == .string(SalesforceDate.formatDateTime(fiveMinutesAgo)))
        #expect(deleted["earliestDateAvailable"]?.stringValue != nil)
        let bad = await org.call("GET", "/services/data/v59.0/sobjects/Account/deleted/?start=yesterday&end=now")
        #expect(bad.status == 400)
    }

    @Test func describeListsFieldsWithSalesforceProperties() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let describe = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/sobjects/Contact/describe/").body)
        #expect(describe["keyPrefix"] == "003")
        let fields = try #require(describe["fields"]?.arrayValue)
        let lastName = try #require(fields.first { $0["name"] == "LastName" })
        #expect(lastName["nillable"] == false && lastName["createable"] == true && lastName["defaultedOnCreate"] == false)
        #expect(lastName["length"] == 80)
        let accountId = try #require(fields.first { $0["name"] == "AccountId" })
        #expect(accountId["referenceTo"] == ["Account"] && accountId["relationshipName"] == "Account")
        for name in ["FirstName", "Title", "MobilePhone", "Email", "Department", "HomePhone", "AccountId"] {
            #expect(fields.contains { $0["name"] == .string(name) }, "missing \(name)")
        }
        let latest = try JSONParser.parse(await org.call("GET", "/services/data/latest/sobjects/Contact/describe").body)
        #expect(latest["name"] == "Contact")
        #expect(await org.call("GET", "/services/data/v20.0/sobjects").status == 404)
        let global = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/sobjects").body)
        #expect(global["sobjects"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Account", "Contact", "User", "RecordType", "Organization"])
        let account = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/sobjects/Account/describe").body)
        #expect(account["childRelationships"]?.arrayValue?.first?["relationshipName"] == "Contacts")
    }

    @Test func compositeCollectionsHonourAllOrNone() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        var response = await org.call(
            "POST", "/services/data/v59.0/composite/sobjects",
            body: """
                {"allOrNone":false,"records":[{"attributes":{"type":"Contact"},"LastName":"One"},{"attributes":{"type":"Contact"},"FirstName":"NoLast"},
                 {"attributes":{"type":"Account"},"Name":"Acc"}]}
                """)
        #expect(response.status == 200)
        var results = try #require(try JSONParser.parse(response.body).arrayValue)
        #expect(results.map { $0["success"] } == [true, false, true])
        #expect(results[1]["errors"]?.arrayValue?.first?["statusCode"] == "REQUIRED_FIELD_MISSING")
        let first = try #require(results[0]["id"]?.stringValue)

        response = await org.call(
            "PATCH", "/services/data/v59.0/composite/sobjects",
            body: """
                {"allOrNone":true,"records":[{"attributes":{"type":"Contact"},"id":"\(first)","LastName":"Changed"},{"attributes":{"type":"Contact"},"id":"\(first)","Email":"bad"}]}
                """)
        results = try #require(try JSONParser.parse(response.body).arrayValue)
        #expect(results[0]["errors"]?.arrayValue?.first?["statusCode"] == "ALL_OR_NONE_OPERATION_ROLLED_BACK")
        #expect(results[1]["errors"]?.arrayValue?.first?["statusCode"] == "INVALID_EMAIL_ADDRESS")
        #expect(try await org.query("SELECT LastName FROM Contact").body["records"]?.arrayValue?.first?["LastName"] == "One")

        response = await org.call("POST", "/services/data/v59.0/composite/sobjects/Contact", body: #"{"ids":["\#(first)","003Lo0000000zzzAAA"],"fields":["LastName"]}"#)
        results = try #require(try JSONParser.parse(response.body).arrayValue)
        #expect(results[0]["LastName"] == "One" && results[1] == .null)

        response = await org.call("DELETE", "/services/data/v59.0/composite/sobjects?ids=\(first),003Lo0000000zzzAAA")
        results = try #require(try JSONParser.parse(response.body).arrayValue)
        #expect(results.map { $0["success"] } == [true, false])

        let tooMany = (0...200).map { _ in #"{"attributes":{"type":"Contact"},"LastName":"x"}"# }.joined(separator: ",")
        response = await org.call("POST", "/services/data/v59.0/composite/sobjects", body: #"{"records":[\#(tooMany)]}"#)
        #expect(response.status == 400)
    }

    @Test func recentItemsListTheUsersLatestChanges() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let account = try await org.create("Account", #"{"Name":"Recent Account"}"#)
        let contact = try await org.create("Contact", #"{"FirstName":"Rae","LastName":"Recent"}"#)
        let recent = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/recent/?limit=10").body)
        #expect(Set(recent.arrayValue?.compactMap { $0["Id"]?.stringValue } ?? []) == [account, contact])
        let basic = try JSONParser.parse(await org.call("GET", "/services/data/v59.0/sobjects/Contact/").body)
        #expect(
            basic["recentItems"] == [
                [
                    "attributes": ["type": "Contact", "url": .string("/services/data/v59.0/sobjects/Contact/\(contact)")],
                    "Id": .string(contact), "Name": "Rae Recent",
                ]
            ])
        #expect(basic["objectDescribe"]?["keyPrefix"] == "003")
    }

    @Test func faultInjectionRefusesBeforeDoingAnythingAndDelays() async throws {
        let failing = try await TestOrg(failureRate: 1)
        defer { failing.remove() }
        let refused = await failing.call("POST", "/services/data/v59.0/sobjects/Contact", body: #"{"LastName":"Never"}"#)
        #expect(refused.status == 503)
        #expect(try JSONParser.parse(refused.body).firstErrorCode == "SERVER_UNAVAILABLE")
        #expect(try failing.store.counts().first { $0.object == "Contact" }?.live == 0)
        let slow = try await TestOrg(latencyMilliseconds: 300)
        defer { slow.remove() }
        let started = ContinuousClock.now
        #expect(await slow.call("GET", "/services/data/v59.0/limits").status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }
}
