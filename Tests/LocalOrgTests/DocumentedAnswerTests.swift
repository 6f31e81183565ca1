import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

/// What Salesforce's REST API documentation states about answers no recording covers —
/// composite, batch, tree, sObject Collections, nested and aggregate queries, search and
/// relationship traversal — checked against localorg over HTTPS: statuses, key sets and error
/// codes. The facts are the documentation's; the requests and names are this project's.
@Suite(.enabled(if: HTTPSOrg.curlIsInstalled, "needs curl"))
struct DocumentedAnswerTests {
    static let data = "/services/data/v62.0"

    static func keys(_ value: JSONValue?) -> Set<String> { Set(value?.objectValue?.keys.map { $0 } ?? []) }

    func create(_ org: HTTPSOrg, _ object: String, _ json: String) async throws -> String {
        let answer = try await org.send("POST", "\(Self.data)/sobjects/\(object)", body: json)
        return try #require(answer.json["id"]?.stringValue, "create \(object): \(answer.status) \(answer.text)")
    }

    func query(_ org: HTTPSOrg, _ soql: String, version: String = data) async throws -> WireAnswer {
        try await org.send("GET", "\(version)/query?q=\(soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? soql)")
    }

    // MARK: Composite

    /// Each subrequest answers `body`, `httpHeaders`, `httpStatusCode` and `referenceId`; a
    /// create carries `Location`; an error's body is the usual error array and its headers are
    /// empty. The request itself answers 200.
    @Test func compositeSubrequestResults() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send(
                "POST", "\(Self.data)/composite",
                body: #"""
                    {"allOrNone": false, "compositeRequest": [
                      {"method": "POST", "url": "\#(Self.data)/sobjects/Account", "referenceId": "newAccount", "body": {"Name": "Composite"}},
                      {"method": "GET", "url": "\#(Self.data)/sobjects/Account/@{newAccount.id}?fields=Name", "referenceId": "readBack"},
                      {"method": "POST", "url": "\#(Self.data)/sobjects/Contact", "referenceId": "badContact",
                       "body": {"LastName": "Mail", "Email": "not an address"}}]}
                    """#)
            #expect(answer.status == 200)
            let entries = answer.json["compositeResponse"]?.arrayValue ?? []
            #expect(entries.count == 3)
            for entry in entries { #expect(Self.keys(entry) == ["body", "httpHeaders", "httpStatusCode", "referenceId"]) }
            #expect(entries.map { $0["httpStatusCode"]?.int64Value } == [201, 200, 400])
            #expect(Self.keys(entries.first?["body"]) == ["id", "success", "errors"])
            #expect(entries.first?["httpHeaders"]?["Location"]?.stringValue?.hasPrefix("\(Self.data)/sobjects/Account/") == true)
            #expect(entries[1]["body"]?["attributes"]?["type"] == "Account")
            let error = entries.last?["body"]?.arrayValue?.first
            #expect(Self.keys(error) == ["message", "errorCode", "fields"] && error?["errorCode"] == "INVALID_EMAIL_ADDRESS")
            #expect(entries.last?["httpHeaders"] == .object([:]))
        }
    }

    /// With allOrNone, one failing subrequest rolls back all; the others answer 400 with
    /// PROCESSING_HALTED.
    @Test func compositeAllOrNoneRollsBackAndHaltsTheOthers() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send(
                "POST", "\(Self.data)/composite",
                body: #"""
                    {"allOrNone": true, "compositeRequest": [
                      {"method": "POST", "url": "\#(Self.data)/sobjects/Account", "referenceId": "kept", "body": {"Name": "Rolled back"}},
                      {"method": "POST", "url": "\#(Self.data)/sobjects/Contact", "referenceId": "broken", "body": {"FirstName": "No last name"}}]}
                    """#)
            #expect(answer.status == 200)
            let entries = answer.json["compositeResponse"]?.arrayValue ?? []
            #expect(entries.map { $0["httpStatusCode"]?.int64Value } == [400, 400])
            #expect(entries.first?["body"]?.firstErrorCode == "PROCESSING_HALTED")
            #expect(entries.last?["body"]?.firstErrorCode == "REQUIRED_FIELD_MISSING")
            #expect(try await query(org, "SELECT Id FROM Account WHERE Name = 'Rolled back'").json["totalSize"] == 0)
        }
    }

    /// `hasErrors` and one `{statusCode, result}` per subrequest; a 204 has a null result.
    @Test func compositeBatchResults() async throws {
        try await HTTPSOrg.with { org in
            let id = try await create(org, "Account", #"{"Name":"Batch"}"#)
            let answer = try await org.send(
                "POST", "\(Self.data)/composite/batch",
                body: #"""
                    {"batchRequests": [
                      {"method": "PATCH", "url": "v62.0/sobjects/Account/\#(id)", "richInput": {"Name": "NewName"}},
                      {"method": "GET", "url": "v62.0/sobjects/Account/\#(id)?fields=Name,BillingPostalCode"},
                      {"method": "GET", "url": "v62.0/sobjects/Account/001000000000000AAA"}]}
                    """#)
            #expect(answer.status == 200)
            #expect(Self.keys(answer.json) == ["hasErrors", "results"])
            #expect(answer.json["hasErrors"] == true)
            let results = answer.json["results"]?.arrayValue ?? []
            for result in results { #expect(Self.keys(result) == ["statusCode", "result"]) }
            #expect(results.map { $0["statusCode"]?.int64Value } == [204, 200, 404])
            #expect(results.first?["result"] == .null)
            #expect(results[1]["result"]?["Name"] == "NewName" && results[1]["result"]?["attributes"]?["type"] == "Account")
            #expect(results.last?["result"]?.firstErrorCode == "NOT_FOUND")
        }
    }

    /// 201 with `{hasErrors: false, results: [{referenceId, id}]}`; a failure is 400 with the
    /// failing records' `{referenceId, errors}` and nothing saved.
    @Test func compositeTreeResults() async throws {
        try await HTTPSOrg.with { org in
            let created = try await org.send(
                "POST", "\(Self.data)/composite/tree/Account",
                body: #"""
                    {"records": [{"attributes": {"type": "Account", "referenceId": "ref1"}, "Name": "Tree",
                      "Contacts": {"records": [{"attributes": {"type": "Contact", "referenceId": "ref2"}, "LastName": "Leaf"}]}}]}
                    """#)
            #expect(created.status == 201)
            #expect(created.json["hasErrors"] == false)
            let results = created.json["results"]?.arrayValue ?? []
            #expect(results.map { Self.keys($0) } == [["referenceId", "id"], ["referenceId", "id"]])
            let failed = try await org.send(
                "POST", "\(Self.data)/composite/tree/Account",
                body: #"""
                    {"records": [{"attributes": {"type": "Account", "referenceId": "ok"}, "Name": "Tree 2",
                      "Contacts": {"records": [{"attributes": {"type": "Contact", "referenceId": "bad"}, "LastName": "Leaf", "Email": "123"}]}}]}
                    """#)
            #expect(failed.status == 400)
            #expect(failed.json["hasErrors"] == true)
            let failure = failed.json["results"]?.arrayValue?.first
            #expect(Self.keys(failure) == ["referenceId", "errors"] && failure?["referenceId"] == "bad")
            #expect(Self.keys(failure?["errors"]?.arrayValue?.first) == ["statusCode", "message", "fields"])
            #expect(try await query(org, "SELECT Id FROM Account WHERE Name = 'Tree 2'").json["totalSize"] == 0)
        }
    }

    // MARK: sObject Collections

    /// Create answers one result per record in order: `{id, success, errors}`, a failure
    /// `{success: false, errors: [{statusCode, message, fields}]}` with no id; retrieve answers
    /// records (null for an id without one); delete answers results like create's.
    @Test func collectionsCreateRetrieveDelete() async throws {
        try await HTTPSOrg.with { org in
            let created = try await org.send(
                "POST", "\(Self.data)/composite/sobjects",
                body: #"""
                    {"allOrNone": false, "records": [
                      {"attributes": {"type": "Account"}, "Name": "Collected"},
                      {"attributes": {"type": "Contact"}, "FirstName": "No last name"}]}
                    """#)
            #expect(created.status == 200)
            let results = created.json.arrayValue ?? []
            #expect(Self.keys(results.first) == ["id", "success", "errors"] && results.first?["errors"] == .array([]))
            #expect(Self.keys(results.last) == ["success", "errors"] && results.last?["success"] == false)
            #expect(Self.keys(results.last?["errors"]?.arrayValue?.first) == ["statusCode", "message", "fields"])
            let id = try #require(results.first?["id"]?.stringValue)

            let retrieved = try await org.send("GET", "\(Self.data)/composite/sobjects/Account?ids=\(id),001000000000000AAA&fields=Id,Name")
            #expect(retrieved.status == 200)
            let records = retrieved.json.arrayValue ?? []
            #expect(records.count == 2 && records.last == .null)
            #expect(Self.keys(records.first) == ["attributes", "Id", "Name"])

            let deleted = try await org.send("DELETE", "\(Self.data)/composite/sobjects?ids=\(id)&allOrNone=false")
            #expect(deleted.status == 200)
            #expect(deleted.json.arrayValue?.map { Self.keys($0) } == [["id", "success", "errors"]])
        }
    }

    /// With allOrNone, the records that would have saved answer ALL_OR_NONE_OPERATION_ROLLED_BACK.
    @Test func collectionsAllOrNoneRollsBack() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send(
                "POST", "\(Self.data)/composite/sobjects",
                body: #"""
                    {"allOrNone": true, "records": [
                      {"attributes": {"type": "Account"}, "Name": "Rolled back"},
                      {"attributes": {"type": "Contact"}, "FirstName": "No last name"}]}
                    """#)
            #expect(answer.status == 200)
            let results = answer.json.arrayValue ?? []
            #expect(results.map { $0["errors"]?.arrayValue?.first?["statusCode"] } == ["ALL_OR_NONE_OPERATION_ROLLED_BACK", "REQUIRED_FIELD_MISSING"])
            #expect(try await query(org, "SELECT Id FROM Account WHERE Name = 'Rolled back'").json["totalSize"] == 0)
        }
    }

    // MARK: Queries

    /// A child subquery answers a query result inside each parent (`totalSize`, `done`,
    /// `records`), and null for a parent without children.
    @Test func nestedSubqueries() async throws {
        try await HTTPSOrg.with { org in
            let parent = try await create(org, "Account", #"{"Name":"With children"}"#)
            _ = try await create(org, "Account", #"{"Name":"Without children"}"#)
            _ = try await create(org, "Contact", #"{"LastName":"Kid","AccountId":"\#(parent)"}"#)
            let answer = try await query(org, "SELECT Name, (SELECT LastName, Account.Name FROM Contacts) FROM Account ORDER BY Name")
            #expect(answer.status == 200)
            let records = answer.json["records"]?.arrayValue ?? []
            #expect(records.map { $0["Name"] } == ["With children", "Without children"])
            let contacts = records.first?["Contacts"]
            #expect(Self.keys(contacts) == ["totalSize", "done", "records"])
            let child = contacts?["records"]?.arrayValue?.first
            #expect(Self.keys(child) == ["attributes", "LastName", "Account"])
            #expect(Self.keys(child?["attributes"]) == ["type", "url"] && child?["Account"]?["Name"] == "With children")
            #expect(records.last?["Contacts"] == .null)
        }
    }

    /// `COUNT()` answers the count as totalSize and no records; aggregates are named by their
    /// alias, unnamed ones `expr0`, `expr1`, … in order.
    @Test func aggregateQueries() async throws {
        try await HTTPSOrg.with { org in
            for name in ["A", "B", "C"] { _ = try await create(org, "Contact", #"{"LastName":"\#(name)"}"#) }
            let count = try await query(org, "SELECT COUNT() FROM Contact")
            #expect(count.json["totalSize"] == 3 && count.json["records"] == .array([]))
            let named = try await query(org, "SELECT COUNT(Id) total, MAX(LastName) FROM Contact")
            let row = named.json["records"]?.arrayValue?.first
            #expect(Self.keys(row) == ["attributes", "total", "expr0"])
            #expect(Self.keys(row?["attributes"]) == ["type"] && row?["total"] == 3)
            let unnamed = try await query(org, "SELECT MIN(LastName), MAX(LastName) FROM Contact")
            #expect(Self.keys(unnamed.json["records"]?.arrayValue?.first) == ["attributes", "expr0", "expr1"])
        }
    }

    // MARK: Search

    /// From v36.0 a search answers `{searchRecords: […]}`; RETURNING names the fields.
    @Test func searchAnswersSearchRecords() async throws {
        try await HTTPSOrg.with { org in
            _ = try await create(org, "Account", #"{"Name":"Searchable Co"}"#)
            let answer = try await org.send("GET", "\(Self.data)/search?q=FIND%20%7BSearchable%7D%20RETURNING%20Account(Name)")
            #expect(answer.status == 200)
            #expect(Self.keys(answer.json) == ["searchRecords"])
            let record = answer.json["searchRecords"]?.arrayValue?.first
            #expect(record?["attributes"]?["type"] == "Account" && record?["Name"] == "Searchable Co")
        }
    }

    // MARK: Relationship traversal

    /// To the parent (`Contact/{id}/Account`): the parent record as its own GET answers it
    /// (`?fields=` too); PATCH changes the parent. An empty lookup or a relationship the object
    /// lacks is 404 NOT_FOUND.
    @Test func traversingToTheParent() async throws {
        try await HTTPSOrg.with { org in
            let account = try await create(org, "Account", #"{"Name":"Parent Co"}"#)
            let contact = try await create(org, "Contact", #"{"LastName":"Child","AccountId":"\#(account)"}"#)
            let orphan = try await create(org, "Contact", #"{"LastName":"Orphan"}"#)
            let traversed = try await org.send("GET", "\(Self.data)/sobjects/Contact/\(contact)/Account")
            let direct = try await org.send("GET", "\(Self.data)/sobjects/Account/\(account)")
            #expect(traversed.status == 200)
            #expect(traversed.json == direct.json)
            let some = try await org.send("GET", "\(Self.data)/sobjects/Contact/\(contact)/Account?fields=Name")
            #expect(Self.keys(some.json) == ["attributes", "Id", "Name"])

            let changed = try await org.send("PATCH", "\(Self.data)/sobjects/Contact/\(contact)/Account", body: #"{"Name":"Renamed Co"}"#)
            #expect(changed.status == 204)
            #expect(try await org.send("GET", "\(Self.data)/sobjects/Account/\(account)").json["Name"] == "Renamed Co")

            // System lookups are relationships too.
            let owner = try await org.send("GET", "\(Self.data)/sobjects/Account/\(account)/Owner")
            #expect(owner.status == 200 && owner.json["attributes"]?["type"] == "User")

            for path in ["Contact/\(orphan)/Account", "Contact/\(contact)/NoSuchRelationship", "Account/\(account)/Parent"] {
                let missing = try await org.send("GET", "\(Self.data)/sobjects/\(path)")
                #expect(missing.status == 404, "\(path)")
                #expect(missing.json.firstErrorCode == "NOT_FOUND", "\(path)")
            }

            // DELETE through the lookup deletes the parent (and, by cascade, its contacts).
            #expect(try await org.send("DELETE", "\(Self.data)/sobjects/Contact/\(contact)/Account").status == 204)
            #expect(try await org.send("GET", "\(Self.data)/sobjects/Account/\(account)").json.firstErrorCode == "ENTITY_IS_DELETED")
        }
    }

    /// To the children (`Account/{id}/Contacts`): a query result; an account without any
    /// answers 200 with none. Only GET: children are not changed through a friendly URL.
    @Test func traversingToTheChildren() async throws {
        try await HTTPSOrg.with { org in
            let account = try await create(org, "Account", #"{"Name":"Family"}"#)
            let empty = try await create(org, "Account", #"{"Name":"Empty"}"#)
            for name in ["One", "Two"] { _ = try await create(org, "Contact", #"{"LastName":"\#(name)","AccountId":"\#(account)"}"#) }
            let answer = try await org.send("GET", "\(Self.data)/sobjects/Account/\(account)/Contacts")
            #expect(answer.status == 200)
            #expect(Self.keys(answer.json) == ["totalSize", "done", "records"])
            #expect(answer.json["totalSize"] == 2 && answer.json["done"] == true)
            #expect(answer.json["records"]?.arrayValue?.allSatisfy { $0["attributes"]?["type"] == "Contact" && $0["AccountId"] == .string(account) } == true)
            let some = try await org.send("GET", "\(Self.data)/sobjects/Account/\(account)/contacts?fields=LastName")
            #expect(some.json["records"]?.arrayValue?.map { Self.keys($0) } == [["attributes", "LastName"], ["attributes", "LastName"]])
            let none = try await org.send("GET", "\(Self.data)/sobjects/Account/\(empty)/Contacts")
            #expect(none.status == 200 && none.json["totalSize"] == 0 && none.json["records"] == .array([]))
            let delete = try await org.send("DELETE", "\(Self.data)/sobjects/Account/\(account)/Contacts")
            #expect(delete.status == 405 && delete.json.firstErrorCode == "METHOD_NOT_ALLOWED")
            let badField = try await org.send("GET", "\(Self.data)/sobjects/Account/\(account)/Contacts?fields=Nope")
            #expect(badField.status == 400 && badField.json.firstErrorCode == "INVALID_FIELD")
            // Friendly URLs came with v36.0.
            #expect(try await org.send("GET", "/services/data/v35.0/sobjects/Account/\(account)/Contacts").status == 404)
        }
    }
}
