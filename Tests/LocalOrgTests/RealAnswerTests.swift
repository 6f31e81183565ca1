import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

@testable import LocalOrg

/// Requests whose real answers were recorded from Salesforce orgs (or documented by Salesforce),
/// sent to localorg: the same status, error codes, headers clients read, and key sets.
@Suite struct RealAnswerTests {
    static let v = "/services/data/v62.0"

    static func json(_ response: APIResponse) throws -> JSONValue { try JSONParser.parse(response.body) }

    /// The first element of a JSON array.
    static func first(_ value: JSONValue?) -> JSONValue? { value?.arrayValue?.first }

    @Test func collectionsUpsertCreatesAndUpdatesByExternalId() async throws {
        let org = try await TestOrg()
        let first = await org.call(
            "PATCH", "\(Self.v)/composite/sobjects/Contact/ExternalKey__c",
            body: #"""
                {"allOrNone": false, "records": [
                  {"attributes": {"type": "Contact"}, "ExternalKey__c": "K-1", "LastName": "One"},
                  {"attributes": {"type": "Contact"}, "ExternalKey__c": "K-2", "LastName": "Two"},
                  {"ExternalKey__c": "K-3", "LastName": "No attributes"}]}
                """#)
        #expect(first.status == 200)
        let results = try Self.json(first).arrayValue ?? []
        #expect(results.count == 3)
        #expect(results[0]["created"] == true && results[0]["success"] == true && results[0]["id"]?.stringValue?.hasPrefix("003") == true)
        #expect(Set(results[0].objectValue?.keys.map { $0 } ?? []) == ["id", "success", "errors", "created"])
        #expect(results[2]["success"] == false && Self.first(results[2]["errors"])?["statusCode"] == "JSON_PARSER_ERROR")

        let second = try Self.json(
            await org.call(
                "PATCH", "\(Self.v)/composite/sobjects/Contact/ExternalKey__c",
                body: #"""
                    {"records": [{"attributes": {"type": "Contact"}, "ExternalKey__c": "K-1", "Title": "Updated"}]}
                    """#))
        #expect(Self.first(second)?["created"] == false && Self.first(second)?["id"] == results[0]["id"])
        let id = try #require(results[0]["id"]?.stringValue)
        #expect(try Self.json(await org.call("GET", "\(Self.v)/sobjects/Contact/\(id)"))["Title"] == "Updated")

        // An idLookup field that is no external id (Contact.Email) works too; Name is neither.
        let byEmail = await org.call(
            "PATCH", "\(Self.v)/composite/sobjects/Contact/Email",
            body: #"""
                {"records": [{"attributes": {"type": "Contact"}, "Email": "new@example.com", "LastName": "Mail"}]}
                """#)
        #expect(Self.first(try Self.json(byEmail))?["created"] == true)
        #expect(await org.call("PATCH", "\(Self.v)/composite/sobjects/Contact/Title", body: #"{"records": []}"#).status == 404)
    }

    @Test func aCollectionUpdateOfAnIdThatDoesNotExistIsAnInvalidCrossReference() async throws {
        let org = try await TestOrg()
        let answer = try Self.json(
            await org.call(
                "PATCH", "\(Self.v)/composite/sobjects",
                body: #"""
                    {"records": [{"attributes": {"type": "Contact"}, "Id": "003Lo0000099999AAA", "Title": "x"}]}
                    """#))
        let result = try #require(Self.first(answer)?.objectValue)
        #expect(result["id"] == nil && result["success"] == false)
        let error = Self.first(result["errors"])
        #expect(error?["statusCode"] == "INVALID_CROSS_REFERENCE_KEY" && error?["fields"] == .array([]))
    }

    @Test func anIdWhoseChecksumIsImpossibleIsMalformed() async throws {
        let org = try await TestOrg()
        let created = try Self.json(await org.call("POST", "\(Self.v)/sobjects/Contact", body: #"{"LastName":"Real"}"#))
        let id = try #require(created["id"]?.stringValue)
        // The suffix's first letter marks every character of the first chunk as uppercase: "003Lo" has digits.
        let impossible = String(id.prefix(15)) + "5" + String(id.suffix(2))
        #expect(SalesforceId.canonical(impossible) == nil)
        let answer = await org.call("PATCH", "\(Self.v)/sobjects/Contact/\(impossible)", body: #"{"Title":"x"}"#)
        #expect(answer.status == 400)
        let error = Self.first(try Self.json(answer))
        #expect(error?["errorCode"] == "MALFORMED_ID" && error?["fields"] == ["Id"])
        #expect(try Self.json(await org.call("GET", "\(Self.v)/sobjects/Contact/\(id)"))["Title"] == .null, "not updated")
    }

    @Test func anUpsertThatUpdatesAnswers200WithTheResultAndALocation() async throws {
        let org = try await TestOrg()
        let created = await org.call("PATCH", "\(Self.v)/sobjects/Contact/ExternalKey__c/U-1", body: #"{"LastName":"Upsert"}"#)
        #expect(created.status == 201 && created.header("Location") != nil)
        let updated = await org.call("PATCH", "\(Self.v)/sobjects/Contact/ExternalKey__c/U-1", body: #"{"Title":"t"}"#)
        #expect(updated.status == 200 && updated.header("Location")?.contains("/sobjects/Contact/003") == true)
        #expect(try Self.json(updated)["created"] == false)
        let updateOnly = await org.call("PATCH", "\(Self.v)/sobjects/Contact/ExternalKey__c/U-1?updateOnly=true", body: #"{"Title":"u"}"#)
        let updateOnlyBody = try Self.json(updateOnly)
        #expect(updateOnly.status == 200 && updateOnlyBody["created"] == false)
        let missing = await org.call("PATCH", "\(Self.v)/sobjects/Contact/ExternalKey__c/U-404?updateOnly=true", body: #"{"Title":"u"}"#)
        #expect(missing.status == 404)
        let byEmail = await org.call("PATCH", "\(Self.v)/sobjects/Contact/Email/upsert@example.com", body: #"{"LastName":"Mail"}"#)
        #expect(byEmail.status == 201, "Contact.Email is an idLookup field: \(byEmail.bodyText)")
    }

    /// The keys a describe recorded from a real org has (restforce's fixture) are all in
    /// localorg's, at the top and on every field; describe revalidates by ETag and date.
    @Test(.enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"))
    func describeHasEveryKeyARealOneHasAndRevalidates() async throws {
        let url = RealSalesforce.directory.appendingPathComponent("restforce-fixtures/sobject/sobject_describe_success_response.json")
        let real = try JSONParser.parse(try Data(contentsOf: url))
        let org = try await TestOrg()
        let answer = await org.call("GET", "\(Self.v)/sobjects/Account/describe")
        let ours = try Self.json(answer)
        let realTop = Set(real.objectValue?.keys.map { $0 } ?? [])
        let ourTop = Set(ours.objectValue?.keys.map { $0 } ?? [])
        #expect(realTop.subtracting(ourTop).isEmpty)
        let realField = Set((real["fields"]?.arrayValue ?? []).flatMap { $0.objectValue?.keys.map { $0 } ?? [] })
        for field in ours["fields"]?.arrayValue ?? [] {
            let missing = realField.subtracting(field.objectValue?.keys.map { $0 } ?? [])
            #expect(missing.isEmpty, "\(field["name"]?.stringValue ?? ""): \(missing.sorted())")
        }
        let realURLs = Set(real["urls"]?.objectValue?.keys.map { $0 } ?? [])
        let ourURLs = Set(ours["urls"]?.objectValue?.keys.map { $0 } ?? [])
        #expect(realURLs.subtracting(ourURLs).isEmpty)
        let etag = try #require(answer.header("ETag"))
        #expect(answer.header("Last-Modified") != nil)
        #expect(await org.call("GET", "\(Self.v)/sobjects/Account/describe", headers: ["If-None-Match": etag]).status == 304)
        #expect(await org.call("GET", "\(Self.v)/sobjects/Account/describe", headers: ["If-None-Match": "\"other\""]).status == 200)
    }

    @Test func limitsListSalesforcesNamesAndRecordCountCountsLiveRecords() async throws {
        let org = try await TestOrg()
        _ = await org.call("POST", "\(Self.v)/sobjects/Account", body: #"{"Name":"Counted"}"#)
        let limits = try Self.json(await org.call("GET", "\(Self.v)/limits"))
        for name in [
            "DailyApiRequests", "DailyBulkApiBatches", "DataStorageMB", "FileStorageMB", "HourlyPublishedPlatformEvents",
            "SingleEmail", "MassEmail", "DailyAsyncApexExecutions", "StreamingApiConcurrentClients",
        ] {
            #expect(limits[name]?["Max"]?.int64Value != nil && limits[name]?["Remaining"]?.int64Value != nil, "\(name)")
        }
        let counts = try Self.json(await org.call("GET", "\(Self.v)/limits/recordCount?sObjects=Account,Nope"))
        #expect(counts["sObjects"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Account"])
        #expect(Self.first(counts["sObjects"])?["count"]?.int64Value == 1)
    }

    @Test func compositeGraphRunsEachGraphAllOrNone() async throws {
        let org = try await TestOrg()
        let answer = try Self.json(
            await org.call(
                "POST", "\(Self.v)/composite/graph",
                body: #"""
                    {"graphs": [
                      {"graphId": "good", "compositeRequest": [
                        {"method": "POST", "url": "/services/data/v62.0/sobjects/Account", "referenceId": "acct", "body": {"Name": "Graph Co"}},
                        {"method": "POST", "url": "/services/data/v62.0/sobjects/Contact", "referenceId": "person",
                         "body": {"LastName": "Graph", "AccountId": "@{acct.id}"}}]},
                      {"graphId": "bad", "compositeRequest": [
                        {"method": "POST", "url": "/services/data/v62.0/sobjects/Account", "referenceId": "kept", "body": {"Name": "Rolled Back"}},
                        {"method": "POST", "url": "/services/data/v62.0/sobjects/Contact", "referenceId": "broken", "body": {"FirstName": "No last name"}}]}]}
                    """#))
        let graphs = answer["graphs"]?.arrayValue ?? []
        #expect(graphs.map { $0["graphId"] } == ["good", "bad"])
        #expect(graphs.map { $0["isSuccessful"] } == [true, false])
        #expect(graphs.first?["graphResponse"]?["compositeResponse"]?.arrayValue?.count == 2)
        let rolledBack = try Self.json(await org.call("GET", "\(Self.v)/query?q=SELECT+Id+FROM+Account+WHERE+Name+=+'Rolled+Back'"))
        #expect(rolledBack["totalSize"] == 0, "the failing graph left nothing behind")
    }

    @Test func aResourceLocalorgDoesNotServeAnswersAsAnOrgWithoutTheFeature() async throws {
        let org = try await TestOrg()
        let listViews = await org.call("GET", "\(Self.v)/sobjects/Account/listviews")
        #expect(listViews.status == 403)
        let listViewError = Self.first(try Self.json(listViews))
        #expect(listViewError?["errorCode"] == "FUNCTIONALITY_NOT_ENABLED")
        let unknown = await org.call("GET", "\(Self.v)/no-such-resource")
        let unknownError = Self.first(try Self.json(unknown))
        #expect(unknown.status == 404 && unknownError?["errorCode"] == "NOT_FOUND")
    }
}
