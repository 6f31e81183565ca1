import ForceJSON
import SalesforceTime
import Testing

@testable import LocalOrg

@Suite struct CompositeTests {
    @Test func batchRunsSubrequestsAndHaltsOnError() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let id = try await org.create("Account", #"{"Name":"Batch"}"#)
        let response = await org.call(
            "POST", "/services/data/v59.0/composite/batch",
            body: """
                {"haltOnError":true,"batchRequests":[
                  {"method":"PATCH","url":"v59.0/sobjects/Account/\(id)","richInput":{"Name":"Renamed"}},
                  {"method":"GET","url":"v59.0/sobjects/Account/\(id)?fields=Name"},
                  {"method":"POST","url":"v59.0/sobjects/Contact","richInput":{"FirstName":"no last name"}},
                  {"method":"GET","url":"v59.0/limits"}]}
                """)
        #expect(response.status == 200)
        let body = try JSONParser.parse(response.body)
        #expect(body["hasErrors"] == true)
        let results = try #require(body["results"]?.arrayValue)
        #expect(results.map { $0["statusCode"] } == [204, 200, 400, 412])
        #expect(results[0]["result"] == .null)
        #expect(results[1]["result"]?["Name"] == "Renamed")
        #expect(results[2]["result"]?.firstErrorCode == "REQUIRED_FIELD_MISSING")
        #expect(results[3]["result"]?.firstErrorCode == "BATCH_PROCESSING_HALTED")
        let nested = await org.call("POST", "/services/data/v59.0/composite/batch", body: #"{"batchRequests":[{"method":"POST","url":"v59.0/composite/batch","richInput":{}}]}"#)
        #expect(try JSONParser.parse(nested.body)["results"]?.arrayValue?.first?["statusCode"] == 400)
    }

    @Test func compositeResolvesReferencesBetweenSubrequests() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let response = await org.call(
            "POST", "/services/data/v59.0/composite",
            body: """
                {"allOrNone":false,"compositeRequest":[
                  {"method":"POST","url":"/services/data/v59.0/sobjects/Account","referenceId":"refAccount","body":{"Name":"Composite"}},
                  {"method":"POST","url":"/services/data/v59.0/sobjects/Contact","referenceId":"refContact","body":{"LastName":"Child","AccountId":"@{refAccount.id}"}},
                  {"method":"GET","url":"/services/data/v59.0/query?q=SELECT+Id,Account.Name+FROM+Contact","referenceId":"refQuery"},
                  {"method":"GET","url":"/services/data/v59.0/sobjects/Contact/@{refQuery.records[0].Id}?fields=LastName","referenceId":"refRead"},
                  {"method":"GET","url":"/services/data/v59.0/sobjects/Account/@{refMissing.id}","referenceId":"refMissing2"}]}
                """)
        #expect(response.status == 200)
        let results = try #require(try JSONParser.parse(response.body)["compositeResponse"]?.arrayValue)
        #expect(results.map { $0["httpStatusCode"] } == [201, 201, 200, 200, 400])
        #expect(results[3]["body"]?["LastName"] == "Child")
        #expect(results[0]["httpHeaders"]?["Location"]?.stringValue?.hasPrefix("/services/data/v59.0/sobjects/Account/001") == true)
        #expect(results[2]["httpHeaders"] == [:])
        #expect(results[2]["body"]?["records"]?.arrayValue?.first?["Account"]?["Name"] == "Composite")
        #expect(results[4]["body"]?.firstErrorCode == "PROCESSING_HALTED")
    }

    /// A composite of record subrequests only runs in one transaction (one commit): each failing
    /// subrequest must still undo only itself, and later ones must see earlier ones' writes.
    @Test func compositeOfRecordsKeepsEachSubrequestsOwnOutcome() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let kept = try await org.create("Contact", #"{"LastName":"Kept","Title":"Before"}"#)
        let changed = try await org.create("Contact", #"{"LastName":"Changed","Title":"Before"}"#)
        let removed = try await org.create("Contact", #"{"LastName":"Removed"}"#)
        let stale = SalesforceDate.formatHTTPDate(OrgStore.now() - 3600)
        let response = await org.call(
            "POST", "/services/data/v59.0/composite",
            body: """
                {"allOrNone":false,"compositeRequest":[
                  {"method":"POST","url":"/services/data/v59.0/sobjects/Account","referenceId":"account","body":{"Name":"One commit"}},
                  {"method":"PATCH","url":"/services/data/v59.0/sobjects/Contact/\(kept)","referenceId":"refused","body":{"Title":"Mine"},
                   "httpHeaders":{"If-Unmodified-Since":"\(stale)"}},
                  {"method":"POST","url":"/services/data/v59.0/sobjects/Contact","referenceId":"invalid","body":{"LastName":"Bad","Email":"nope"}},
                  {"method":"PATCH","url":"/services/data/v59.0/sobjects/Contact/\(changed)","referenceId":"update","body":{"Title":"After","AccountId":"@{account.id}"}},
                  {"method":"GET","url":"/services/data/v59.0/sobjects/Contact/\(changed)?fields=Title,AccountId","referenceId":"read"},
                  {"method":"DELETE","url":"/services/data/v59.0/sobjects/Contact/\(removed)","referenceId":"delete"},
                  {"method":"DELETE","url":"/services/data/v59.0/sobjects/Contact/\(removed)","referenceId":"again"},
                  {"method":"PATCH","url":"/services/data/v59.0/sobjects/Contact/\(kept)","referenceId":"missing","body":{"AccountId":"@{invalid.id}"}}]}
                """)
        #expect(response.status == 200)
        let results = try #require(try JSONParser.parse(response.body)["compositeResponse"]?.arrayValue)
        #expect(results.map { $0["httpStatusCode"] } == [201, 412, 400, 204, 200, 204, 404, 400])
        #expect(results[1]["body"]?.firstErrorCode == "PRECONDITION_FAILED")
        #expect(results[2]["body"]?.firstErrorCode == "INVALID_EMAIL_ADDRESS")
        #expect(results[4]["body"]?["AccountId"] == results[0]["body"]?["id"])  // a later subrequest sees an earlier one's write
        #expect(results[6]["body"]?.firstErrorCode == "ENTITY_IS_DELETED")
        #expect(results[7]["body"]?.firstErrorCode == "PROCESSING_HALTED")
        let rows = try await org.query("SELECT LastName, Title, Account.Name FROM Contact ORDER BY LastName")
        #expect(rows.body["records"]?.arrayValue?.map { $0["LastName"] } == ["Changed", "Kept"])
        #expect(rows.body["records"]?.arrayValue?.map { $0["Title"] } == ["After", "Before"])
        #expect(rows.body["records"]?.arrayValue?.first?["Account"]?["Name"] == "One commit")
        #expect(try await org.query("SELECT COUNT() FROM Account").body["totalSize"] == 1)
    }

    @Test func compositeAllOrNoneCommitsEverythingOrNothing() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        func composite(_ lastContactBody: String) -> String {
            """
            {"allOrNone":true,"compositeRequest":[
              {"method":"POST","url":"/services/data/v59.0/sobjects/Account","referenceId":"refAccount","body":{"Name":"All or none"}},
              {"method":"POST","url":"/services/data/v59.0/sobjects/Contact","referenceId":"refContact","body":{"LastName":"First","AccountId":"@{refAccount.id}"}},
              {"method":"GET","url":"/services/data/v59.0/sobjects/Contact/@{refContact.id}?fields=LastName,AccountId","referenceId":"refRead"},
              {"method":"PATCH","url":"/services/data/v59.0/sobjects/Contact/ExternalKey__c/aon-1","referenceId":"refUpsert","body":\(lastContactBody)}]}
            """
        }
        let failed = await org.call("POST", "/services/data/v59.0/composite", body: composite(#"{"LastName":"Bad","Email":"nope"}"#))
        #expect(failed.status == 200)
        let failedResults = try #require(try JSONParser.parse(failed.body)["compositeResponse"]?.arrayValue)
        #expect(failedResults.map { $0["httpStatusCode"] } == [400, 400, 400, 400])
        #expect(failedResults[0]["body"]?.firstErrorCode == "PROCESSING_HALTED")
        #expect(failedResults[3]["body"]?.firstErrorCode == "INVALID_EMAIL_ADDRESS")
        #expect(try await org.query("SELECT COUNT() FROM Account").body["totalSize"] == 0)  // the account was rolled back
        #expect(try await org.query("SELECT COUNT() FROM Contact").body["totalSize"] == 0)

        let succeeded = await org.call("POST", "/services/data/v59.0/composite", body: composite(#"{"LastName":"Upserted"}"#))
        let results = try #require(try JSONParser.parse(succeeded.body)["compositeResponse"]?.arrayValue)
        #expect(results.map { $0["httpStatusCode"] } == [201, 201, 200, 201])
        #expect(results[2]["body"]?["AccountId"] == results[0]["body"]?["id"])  // reads see the transaction's own writes
        #expect(try await org.query("SELECT COUNT() FROM Contact").body["totalSize"] == 2)

        let unsupported = await org.call(
            "POST", "/services/data/v59.0/composite", body: #"{"allOrNone":true,"compositeRequest":[{"method":"GET","url":"/services/data/v59.0/limits","referenceId":"a"}]}"#)
        #expect(try JSONParser.parse(unsupported.body)["compositeResponse"]?.arrayValue?.first?["httpStatusCode"] == 400)
    }

    @Test func subrequestsCarryConditionalHeaders() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let id = try await org.create("Contact", #"{"LastName":"Conditional"}"#)
        let stale = SalesforceDate.formatHTTPDate(OrgStore.now() - 3600)
        for allOrNone in [false, true] {
            let response = await org.call(
                "POST", "/services/data/v59.0/composite",
                body: """
                    {"allOrNone":\(allOrNone),"compositeRequest":[{"method":"PATCH","url":"/services/data/v59.0/sobjects/Contact/\(id)","referenceId":"update",
                      "body":{"Title":"Mine"},"httpHeaders":{"If-Unmodified-Since":"\(stale)"}}]}
                    """)
            let result = try JSONParser.parse(response.body)["compositeResponse"]?.arrayValue?.first
            #expect(result?["httpStatusCode"] == 412)
            #expect(result?["body"]?.firstErrorCode == "PRECONDITION_FAILED")
        }
    }

    @Test func deleteSubrequestsIgnoreConditionalHeadersInAStrictOrg() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let id = try await org.create("Contact", #"{"LastName":"Conditional"}"#)
        let stale = SalesforceDate.formatHTTPDate(OrgStore.now() - 3600)
        let response = await org.call(
            "POST", "/services/data/v59.0/composite",
            body: """
                {"allOrNone":false,"compositeRequest":[{"method":"DELETE","url":"/services/data/v59.0/sobjects/Contact/\(id)","referenceId":"delete",
                  "httpHeaders":{"If-Unmodified-Since":"\(stale)"}}]}
                """)
        #expect(try JSONParser.parse(response.body)["compositeResponse"]?.arrayValue?.first?["httpStatusCode"] == 204)
        #expect(try await org.query("SELECT COUNT() FROM Contact").body["totalSize"] == 0)
    }

    @Test func deleteSubrequestsCarryConditionalHeadersInALenientOrg() async throws {
        let org = try await TestOrg(rules: ProductionRules(off: [.deleteIgnoresPreconditions]))
        defer { org.remove() }
        let id = try await org.create("Contact", #"{"LastName":"Conditional"}"#)
        let stale = SalesforceDate.formatHTTPDate(OrgStore.now() - 3600)
        let response = await org.call(
            "POST", "/services/data/v59.0/composite",
            body: """
                {"allOrNone":false,"compositeRequest":[{"method":"DELETE","url":"/services/data/v59.0/sobjects/Contact/\(id)","referenceId":"delete",
                  "httpHeaders":{"If-Unmodified-Since":"\(stale)"}}]}
                """)
        let result = try JSONParser.parse(response.body)["compositeResponse"]?.arrayValue?.first
        #expect(result?["httpStatusCode"] == 412)
        #expect(result?["body"]?.firstErrorCode == "PRECONDITION_FAILED")
        #expect(try await org.query("SELECT COUNT() FROM Contact").body["totalSize"] == 1)
    }

    @Test func treeCreatesNestedRecordsAllOrNothing() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let tree = """
            {"records":[{"attributes":{"type":"Account","referenceId":"acc1"},"Name":"Tree Co",
              "Contacts":{"records":[{"attributes":{"type":"Contact","referenceId":"c1"},"LastName":"Leaf"},
                                     {"attributes":{"type":"Contact","referenceId":"c2"},"LastName":"Leaf Two"}]}}]}
            """
        let created = await org.call("POST", "/services/data/v59.0/composite/tree/Account", body: tree)
        #expect(created.status == 201)
        let results = try #require(try JSONParser.parse(created.body)["results"]?.arrayValue)
        #expect(results.map { $0["referenceId"] } == ["acc1", "c1", "c2"])
        let rows = try await org.query("SELECT LastName, Account.Name FROM Contact ORDER BY LastName")
        #expect(rows.body["records"]?.arrayValue?.map { $0["Account"]?["Name"] } == ["Tree Co", "Tree Co"])

        let invalid = tree.replacingOccurrences(of: #""LastName":"Leaf Two""#, with: #""LastName":"Leaf Two","Email":"123""#)
        let rejected = await org.call("POST", "/services/data/v59.0/composite/tree/Account", body: invalid)
        #expect(rejected.status == 400)
        let failure = try JSONParser.parse(rejected.body)
        #expect(failure["hasErrors"] == true)
        #expect(failure["results"]?.arrayValue?.first?["referenceId"] == "c2")
        #expect(failure["results"]?.arrayValue?.first?["errors"]?.arrayValue?.first?["statusCode"] == "INVALID_EMAIL_ADDRESS")
        #expect(try await org.query("SELECT COUNT() FROM Account").body["totalSize"] == 1)  // nothing of the second tree was kept
    }
}
