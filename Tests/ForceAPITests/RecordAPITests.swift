import ForceAPI
import ForceJSON
import Foundation
import LocalOrgProcess
import SalesforceTime
import Testing

@Suite("The REST resources against a real localorg", .serialized)
struct RecordAPITests {
    @Test("Create, retrieve, update, upsert, delete; not found, deleted and validation errors")
    func recordLifecycle() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let client = org.client
        let id = try await client.create("Contact", fields: ["LastName": "Lindqvist", "FirstName": "Åsa"])
        #expect(id.hasPrefix("003") && id.count == 18)
        var record = try await client.retrieve("Contact", id: id, fields: ["LastName", "FirstName", "LastModifiedDate"])
        #expect(record["FirstName"] == .string("Åsa"))
        let modified = try #require(record["LastModifiedDate"]?.stringValue.flatMap(SalesforceDate.parse))

        try await client.update("Contact", id: id, fields: ["Title": "Buyer"], ifUnmodifiedSince: modified)
        record = try await client.retrieve("Contact", id: id, fields: ["Title"])
        #expect(record["Title"] == .string("Buyer"))
        // A change the client has not seen: the conditional update is a conflict.
        try await Task.sleep(for: .milliseconds(1100))
        try await org.server.command(["edit", "Contact", id, "Title=Changed elsewhere"])
        let conflict = await forceError { try await client.update("Contact", id: id, fields: ["Title": "Mine"], ifUnmodifiedSince: modified) }
        guard case .preconditionFailed = conflict else {
            Issue.record("expected 412, got \(String(describing: conflict))")
            return
        }

        let missingField = await forceError { try await client.create("Contact", fields: ["FirstName": "NoLastName"]) }
        guard case let .validation(status, errors) = missingField else {
            Issue.record("expected validation, got \(String(describing: missingField))")
            return
        }
        #expect(status == 400)
        #expect(errors.first?.errorCode == "REQUIRED_FIELD_MISSING")
        #expect(errors.first?.fields == ["LastName"])

        let created = try await client.upsert("Contact", externalIdField: "ExternalKey__c", value: "K-1", fields: ["LastName": "Upserted"])
        #expect(created.created == true)
        let updated = try await client.upsert("Contact", externalIdField: "ExternalKey__c", value: "K-1", fields: ["LastName": "Upserted again"])
        #expect(updated.created == false)
        #expect(updated.id == created.id)

        try await client.delete("Contact", id: id)
        let deleted = await forceError { try await client.delete("Contact", id: id) }
        guard case .entityDeleted = deleted else {
            Issue.record("expected ENTITY_IS_DELETED, got \(String(describing: deleted))")
            return
        }
        let missing = await forceError { try await client.retrieve("Contact", id: "003Lo00000009zzAAA") }
        guard case .notFound = missing else {
            Issue.record("expected not found, got \(String(describing: missing))")
            return
        }
        let all = try await client.queryAll("SELECT Id, IsDeleted FROM Contact WHERE Id = '\(id)'")
        #expect(all.records.first?["IsDeleted"] == .bool(true))
    }

    @Test("Query pages follow nextRecordsUrl with Sforce-Query-Options batchSize")
    func queryPaging() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let records: [JSONObject] = (0..<200).map { ["attributes": ["type": "Contact"], "LastName": .string("Page \($0)")] }
        for result in try await org.client.createRecords(records) + (try await org.client.createRecords(Array(records.prefix(50)))) {
            #expect(result.success)
        }
        var page = try await org.client.query("SELECT Id, LastName FROM Contact WHERE LastName LIKE 'Page %'", batchSize: 200)
        #expect(page.totalSize == 250)
        #expect(page.records.count == 200)
        #expect(!page.done)
        let next = try #require(page.nextRecordsURL)
        #expect(next.hasPrefix("/services/data/"))
        page = try await org.client.queryMore(next, batchSize: 200)
        #expect(page.records.count == 50)
        #expect(page.done)
        #expect(await org.client.lastAPIUsage?.limit == 100_000)
    }

    @Test("Describe, versions, limits, search, updated and deleted windows")
    func discoveryAndWindows() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let client = org.client
        #expect(try await client.versions().contains { $0.version == client.apiVersion })
        #expect(try await client.describeGlobal()["sobjects"]?.arrayValue?.contains { $0["name"] == .string("Account") } == true)
        #expect(try await client.describe("Account")["keyPrefix"] == .string("001"))
        #expect(try await client.basicInfo("Contact")["objectDescribe"]?["name"] == .string("Contact"))
        #expect(try await client.limits()["DailyApiRequests"]?["Max"] != nil)

        let start = Date().addingTimeInterval(-60)
        let kept = try await client.create("Contact", fields: ["LastName": "Zephyrine"])
        let gone = try await client.create("Contact", fields: ["LastName": "Zephyrine Gone"])
        try await client.delete("Contact", id: gone)
        let found = try await client.search("FIND {Zephyrine} RETURNING Contact(Id, LastName)")
        #expect(found.contains { $0["Id"] == .string(kept) })
        let end = Date().addingTimeInterval(60)
        // Windows cover whole minutes up to the last one that ended, as Salesforce's do, so
        // changes made this minute are not in them yet; check the shape and the coverage.
        let updated = try await client.updated("Contact", start: start, end: end)
        let covered = try #require(updated.latestDateCovered)
        #expect(covered <= Date())
        #expect(covered.timeIntervalSince1970.truncatingRemainder(dividingBy: 60) == 0)
        #expect(!updated.ids.contains(gone))
        let deleted = try await client.deleted("Contact", start: start, end: end)
        #expect(deleted.latestDateCovered == covered || deleted.latestDateCovered.map { $0 > covered } == true)
        #expect(deleted.earliestDateAvailable != nil)
    }

    @Test("Collections, composite with references, and batch")
    func compositeFamily() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let client = org.client
        let results = try await client.createRecords([["attributes": ["type": "Account"], "Name": "Collected"], ["attributes": ["type": "Contact"]]])
        #expect(results.map(\.success) == [true, false])
        #expect(results[1].errors.first?.errorCode == "REQUIRED_FIELD_MISSING")
        let accountId = try #require(results[0].id)
        let updates = try await client.updateRecords([["attributes": ["type": "Account"], "id": .string(accountId), "Industry": "Energy"]])
        #expect(updates.first?.success == true)
        let retrieved = try await client.retrieveRecords("Account", ids: [accountId, "001Lo0000000zzzAAA"], fields: ["Name", "Industry"])
        #expect(retrieved.count == 2)
        #expect(retrieved[0]?["Industry"] == .string("Energy"))
        #expect(retrieved[1] == nil)

        let base = client.dataPath
        let composite = try await client.composite(
            [
                CompositeSubrequest(method: "POST", url: "\(base)/sobjects/Account", referenceId: "account", body: ["Name": "Composite Co"]),
                CompositeSubrequest(method: "POST", url: "\(base)/sobjects/Contact", referenceId: "contact", body: ["LastName": "Ref", "AccountId": "@{account.id}"]),
            ], allOrNone: true)
        #expect(composite.map(\.httpStatusCode) == [201, 201])
        #expect(composite.allSatisfy { $0.error == nil })

        let batch = try await client.batch([
            BatchSubrequest(method: "GET", url: "v\(client.apiVersion)/sobjects/Account/\(accountId)?fields=Name"),
            BatchSubrequest(method: "GET", url: "v\(client.apiVersion)/sobjects/Account/001Lo0000000zzzAAA"),
        ])
        #expect(batch.hasErrors)
        #expect(batch.results.map(\.statusCode) == [200, 404])

        let removed = try await client.deleteRecords(ids: [accountId])
        #expect(removed.first?.success == true)
    }

    /// restforce recorded these shapes from v20–v26 orgs, and localorg answers them so at v31.0:
    /// an upsert without `created` (201 when it creates, 204 with no body when it updates), a
    /// search as a bare array, the Id after a `fields` list, and one page then the rest.
    @Test("An older API version's answers (no created, bare search arrays) read the same")
    func olderVersionAnswers() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let client = ForceClient(credentials: await org.client.credentials, transport: org.transport, apiVersion: "31.0")
        let created = try await client.upsert("Account", externalIdField: "AccountNumber", value: "OLD-1", fields: ["Name": "Older Co"])
        #expect(created.created == true && created.success && created.id?.hasPrefix("001") == true)
        let updated = try await client.upsert("Account", externalIdField: "AccountNumber", value: "OLD-1", fields: ["Name": "Older Co 2"])
        #expect(updated.created == false && updated.success)
        let id = try #require(created.id)
        let record = try await client.retrieve("Account", id: id, fields: ["Name"])
        #expect(record["Name"] == "Older Co 2" && record["Id"] == .string(id))
        let found = try await client.search("FIND {Older}")
        #expect(found.compactMap { $0["Id"]?.stringValue } == [id])
        let page = try await client.query("SELECT Name FROM Account")
        #expect(page.done && page.records.count == 1)
    }

    @Test("The API limit is reported as apiLimit")
    func apiLimit() async throws {
        let org = try await SignedInOrg(serverArguments: ["--api-limit", "1"])
        defer { org.remove() }
        _ = try await org.client.limits()
        let error = await forceError { try await org.client.limits() }
        guard case let .apiLimit(detail) = error else {
            Issue.record("expected apiLimit, got \(String(describing: error))")
            return
        }
        #expect(detail.errorCode == "REQUEST_LIMIT_EXCEEDED")
        #expect(await org.client.lastAPIUsage == APIUsage(header: "api-usage=1/1"))
    }
}
