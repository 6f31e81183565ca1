import ForceJSON
import Foundation
import LocalOrgProcess
import SalesforceTime
import Testing

@testable import LocalOrg

/// The recorded answers of queries, recent items and search.
extension RecordedFixtureContractTests {
    // MARK: Queries

    @Test func orgId() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "\(Self.data)/query?q=select%20id%20from%20Organization")
            #expect(answer.status == 200)
            try expectShape(of: answer, like: "sobject/org_query_response")
        }
    }

    /// A parent relationship and the scalar fields of the recording stand in as Contact's (the
    /// made-up object's self-relationships have no counterpart in one object here); its child
    /// relationship is compared with Account's Contacts.
    @Test func querySuccess() async throws {
        try await HTTPSOrg.with { org in
            let account = try await create(org, "Account", #"{"Name":"Parent","Phone":"555"}"#)
            _ = try await create(org, "Contact", #"{"LastName":"Child","Phone":"556","Birthdate":"2010-01-01","LeadSource":"Phone Inquiry","AccountId":"\#(account)"}"#)
            let recorded = try Self.recorded("sobject/query_success_response")
            var recordedRecord = try #require(recorded["records"]?.arrayValue?.first?.objectValue)
            let recordedChildren = recordedRecord.removeValue(forKey: "Whizbangs__r") ?? .null
            #expect(recordedChildren != .null)
            var recordedWithoutChildren = try #require(recorded.objectValue)
            recordedWithoutChildren["records"] = [.object(recordedRecord)]

            let soql = "SELECT IsDeleted, Phone, Birthdate, CreatedDate, LeadSource, Account.Name, Account.Phone FROM Contact"
            let parents = try await org.send("GET", "\(Self.data)/query?q=\(soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            #expect(parents.status == 200)
            let renaming = [
                "Checkbox_Label": "IsDeleted", "Text_Label": "Phone", "Date_Label": "Birthdate", "DateTime_Label": "CreatedDate",
                "Picklist_Multiselect_Label": "LeadSource", "ParentWhizbang__r": "Account",
            ]
            #expect(JSONShape.compare(recorded: .object(recordedWithoutChildren), ours: parents.json, renaming: renaming) == JSONShape.Difference())

            let withChildren = "SELECT Name, (SELECT Name FROM Contacts) FROM Account WHERE Id = '\(account)'"
            let children = try await org.send("GET", "\(Self.data)/query?q=\(withChildren.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            let contacts = try #require(children.json["records"]?.arrayValue?.first?["Contacts"])
            #expect(JSONShape.compare(recorded: recordedChildren, ours: contacts) == JSONShape.Difference())
        }
    }

    @Test func queryEmpty() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "\(Self.data)/query?q=SELECT+Id+FROM+Account+WHERE+Name+=+'nobody'")
            #expect(answer.status == 200)
            try expectShape(of: answer, like: "sobject/query_empty_response")
        }
    }

    @Test func queryError() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "\(Self.data)/query?q=SELECT+NoSuchField__c+FROM+Account")
            try expectErrors(of: answer, like: "sobject/query_error_response", status: 400)
        }
    }

    /// Grouped rows are AggregateResult records: `attributes` with a type and no url, the group
    /// field, and unnamed aggregates as `expr0`; a group of records without the field is null.
    @Test func queryAggregate() async throws {
        try await HTTPSOrg.with { org in
            let first = try await create(org, "Account", #"{"Name":"A"}"#)
            let second = try await create(org, "Account", #"{"Name":"B"}"#)
            for (name, account) in [("One", first), ("Two", first), ("Three", second)] {
                _ = try await create(org, "Contact", #"{"LastName":"\#(name)","AccountId":"\#(account)"}"#)
            }
            _ = try await create(org, "Contact", #"{"LastName":"Alone"}"#)
            let answer = try await org.send("GET", "\(Self.data)/query?q=SELECT+AccountId,+COUNT(Id)+FROM+Contact+GROUP+BY+AccountId")
            #expect(answer.status == 200)
            try expectShape(of: answer, like: "sobject/query_aggregate_success_response", renaming: ["CampaignId": "AccountId"])
            #expect(answer.json["records"]?.arrayValue?.contains { $0["AccountId"] == .null } == true)
        }
    }

    /// 201 records, 200 a page: the first page points at the next (`nextRecordsUrl`, under
    /// `/query/`), the last has no pointer and says done.
    @Test func queryPaginated() async throws {
        try await HTTPSOrg.with { org in
            let records = (1...200).map { #"{"attributes":{"type":"Account"},"Name":"Paged \#($0)"}"# }.joined(separator: ",")
            // sObject Collections came with v42.0.
            #expect(try await org.send("POST", "\(Self.data)/composite/sobjects", body: #"{"records":[]}"#).status == 404)
            let created = try await org.send("POST", "/services/data/v42.0/composite/sobjects", body: #"{"records":[\#(records)]}"#)
            #expect(created.status == 200)
            _ = try await create(org, "Account", #"{"Name":"Paged 201"}"#)
            let first = try await org.send("GET", "\(Self.data)/query?q=SELECT+Name+FROM+Account", headers: ["Sforce-Query-Options": "batchSize=200"])
            #expect(first.status == 200 && first.json["done"] == false && first.json["totalSize"] == 201)
            try expectShape(of: first, like: "sobject/query_paginated_first_page_response", renaming: ["Text_Label": "Name"])
            let next = try #require(first.json["nextRecordsUrl"]?.stringValue)
            #expect(next.hasPrefix("\(Self.data)/query/"))
            let last = try await org.send("GET", next)
            #expect(last.status == 200 && last.json["done"] == true && last.json["records"]?.arrayValue?.count == 1)
            try expectShape(of: last, like: "sobject/query_paginated_last_page_response", renaming: ["Text_Label": "Name"])
        }
    }

    // MARK: Recent items and search

    @Test func recent() async throws {
        try await HTTPSOrg.with { org in
            _ = try await create(org, "Account", #"{"Name":"Recent Account"}"#)
            _ = try await create(org, "Contact", #"{"LastName":"Recent Contact"}"#)
            let answer = try await org.send("GET", "\(Self.data)/recent")
            #expect(answer.status == 200)
            try expectShape(of: answer, like: "sobject/recent_success_response")
        }
    }

    /// Before v36.0 a search answers a bare array; without RETURNING each record is its
    /// attributes and Id.
    @Test func searchSuccess() async throws {
        try await HTTPSOrg.with { org in
            _ = try await create(org, "Account", #"{"Name":"bar account"}"#)
            _ = try await create(org, "Contact", #"{"LastName":"bar"}"#)
            let answer = try await org.send("GET", "/services/data/v35.0/search?q=FIND%20%7Bbar%7D")
            #expect(answer.status == 200)
            try expectShape(of: answer, like: "sobject/search_success_response")
            #expect(answer.json.arrayValue?.count == 2)
        }
    }

    @Test func searchError() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "\(Self.data)/search?q=FIND%20bar")
            try expectErrors(of: answer, like: "sobject/search_error_response", status: 400)
        }
    }

    // MARK: A feature localorg does not serve

    /// List views (the recording is a list view's results) are a feature localorg lacks: it
    /// answers as an org without the feature, an error array naming it.
    @Test func listViewResults() async throws {
        try await HTTPSOrg.with { org in
            #expect(try Self.recorded("sobject/list_view_results_success_response")["columns"] != nil)
            for path in ["sobjects/Account/listviews/00BD0000005WcBeMAK/results", "sobjects/Account/listviews"] {
                let answer = try await org.send("GET", "\(Self.data)/\(path)")
                #expect(answer.status == 403)
                #expect(JSONShape.errorCodes(answer.json) == ["FUNCTIONALITY_NOT_ENABLED"])
                let keys = Set(answer.json.arrayValue?.first?.objectValue?.keys.map { $0 } ?? [])
                #expect(keys == ["message", "errorCode"])
                #expect(answer.header("Content-Type") == "application/json;charset=UTF-8")
            }
        }
    }
}
