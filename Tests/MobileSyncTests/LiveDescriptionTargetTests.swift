import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import Testing

@testable import MobileSync

/// The SDK's metadata and layout sync downs against localorg: each stores one description of an
/// sObject (its describe, a UI API record layout) as a record of its soup, replaced by each run.
@Suite("metadata and layout sync downs against a real localorg", .serialized)
struct LiveDescriptionTargetTests {
    @Test("metadata: the describe of Account stored with Id \"Account\", in the SDK's keys; a rerun replaces it, no ghosts")
    func metadata() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let target = try SyncDownTarget(json: ["type": "metadata", "sobjectType": "Account"])
        #expect(target.json["type"] == "metadata" && target.json["sobjectType"] == "Account")
        let first = try await live.manager.syncDown(target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "accountMetadata")
        #expect(first.status == .done && first.totalSize == 1, "\(first.error)")
        let stored = try #require(try live.local.document("accounts", id: "Account"))
        #expect(stored["name"] == "Account" && stored["keyPrefix"] == "001")
        let fields = stored["fields"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(fields.contains("Name") && fields.contains("Industry"), "\(fields)")
        #expect(stored["__local__"] == false, "stored clean, as a downloaded record")
        // Which values each record type offers, one UI API request per record type the user may pick.
        let byRecordType = stored[SObjectDescribeKeys.picklistsByRecordType]?.objectValue ?? [:]
        let partnerId = stored["recordTypeInfos"]?.arrayValue?.first { $0["developerName"] == "Partner" }?["recordTypeId"]?.stringValue ?? ""
        #expect(byRecordType.count == 2, "Customer and Partner, not Master: \(byRecordType.keys)")
        #expect(byRecordType[partnerId]?["Type"] == ["Channel Partner / Reseller", "Installation Partner", "Technology Partner"])

        #expect(stored[SObjectDescribeKeys.eTag]?.stringValue?.isEmpty == false, "the describe's tag is kept for the next run")
        #expect(stored[SObjectDescribeKeys.picklistETags]?.objectValue?.count == 2)

        // The rerun asks with the tags: three 304s, a few bytes, and the same description.
        let before = live.client.transferStatistics
        let again = try await live.manager.reSync(name: "accountMetadata")
        let after = live.client.transferStatistics
        #expect(again.status == .done)
        #expect(after.requests - before.requests == 3)
        #expect(after.bytesReceived - before.bytesReceived == 0, "304s have no body: \(after.bytesReceived - before.bytesReceived) bytes")
        #expect(try live.local.documents("accounts").count == 1, "replaced, not added")
        let kept = try #require(try live.local.document("accounts", id: "Account"))
        #expect(kept["fields"] == stored["fields"])
        #expect(kept[SObjectDescribeKeys.picklistsByRecordType] == stored[SObjectDescribeKeys.picklistsByRecordType])
        #expect(kept[SObjectDescribeKeys.eTag] == stored[SObjectDescribeKeys.eTag])
        #expect(try await live.manager.cleanResyncGhosts(name: "accountMetadata") == 0)
    }

    @Test("metadata: a record type gone since the last run (its picklists asked alongside the describe answer 404) leaves the others' values stored")
    func metadataAfterARecordTypeWent() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let target = try SyncDownTarget(json: ["type": "metadata", "sobjectType": "Account"])
        _ = try await live.manager.syncDown(target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "accountMetadata")
        var stored = try #require(try live.local.document("accounts", id: "Account"))
        // As the last run saw the org: a third record type, deleted since, and a describe that has changed.
        let retired = "012000000000099AAA"
        stored["recordTypeInfos"] = .array(
            (stored["recordTypeInfos"]?.arrayValue ?? [])
                + [["available": true, "master": false, "recordTypeId": .string(retired), "developerName": "Retired"]])
        var values = stored[SObjectDescribeKeys.picklistsByRecordType]?.objectValue ?? [:]
        values[retired] = ["Type": ["Old"]]
        stored[SObjectDescribeKeys.picklistsByRecordType] = .object(values)
        var tags = stored[SObjectDescribeKeys.picklistETags]?.objectValue ?? [:]
        tags[retired] = "\"retired\""
        stored[SObjectDescribeKeys.picklistETags] = .object(tags)
        stored[SObjectDescribeKeys.eTag] = nil
        try live.saveLocally(stored, in: "accounts")

        let again = try await live.manager.reSync(name: "accountMetadata")
        #expect(again.status == .done, "\(again.error)")
        let kept = try #require(try live.local.document("accounts", id: "Account"))
        let byRecordType = kept[SObjectDescribeKeys.picklistsByRecordType]?.objectValue ?? [:]
        #expect(byRecordType.count == 2 && byRecordType[retired] == nil, "Customer and Partner still: \(byRecordType.keys)")
    }

    @Test("layout: a UI API record layout stored with Id object-formFactor-layoutType-mode-recordTypeId, sections of the org's fields")
    func layout() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let target = try SyncDownTarget(json: ["type": "layout", "sobjectType": "Contact", "formFactor": "Medium", "layoutType": "Compact", "mode": "Edit"])
        let compact = try await live.manager.syncDown(target, options: SyncOptions(), soupName: "contacts", name: "contactLayout")
        #expect(compact.status == .done, "\(compact.error)")
        let stored = try #require(try live.local.document("contacts", id: "Contact-Medium-Compact-Edit-null"))
        #expect(stored["objectApiName"] == "Contact" && stored["layoutType"] == "Compact" && stored["mode"] == "Edit")
        #expect(stored["recordTypeId"] == "012000000000000AAA")
        let components = (stored["sections"]?.arrayValue ?? []).flatMap { $0["layoutRows"]?.arrayValue ?? [] }
            .flatMap { $0["layoutItems"]?.arrayValue ?? [] }.flatMap { $0["layoutComponents"]?.arrayValue ?? [] }
        #expect(components.compactMap { $0["apiName"]?.stringValue } == ["Name", "Title", "AccountId", "Phone", "Email"])

        let full = try await live.manager.syncDown(
            try SyncDownTarget(json: ["type": "layout", "sobjectType": "Account"]), options: SyncOptions(),
            soupName: "accounts", name: "accountLayout")
        #expect(full.status == .done, "\(full.error)")
        let page = try #require(try live.local.document("accounts", id: "Account-null-null-null-null"))
        #expect(page["layoutType"] == "Full" && page["mode"] == "View", "the UI API's defaults")
        let headings = page["sections"]?.arrayValue?.compactMap { $0["heading"]?.stringValue }
        #expect(headings == ["Account Information", "Address Information", "System Information"])
        let nameItem = page["sections"]?.arrayValue?.first?["layoutRows"]?.arrayValue?.first?["layoutItems"]?.arrayValue?.first
        #expect(nameItem?["required"] == true && nameItem?["uiBehavior"] == "Required" && nameItem?["label"] == "Account Name")
    }

    @Test("layout of an object the org lacks fails that sync with the org's error")
    func layoutOfUnknownObject() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        let target = try SyncDownTarget(json: ["type": "layout", "sobjectType": "Nope__c"])
        do {
            let state = try await live.manager.syncDown(target, options: SyncOptions(), soupName: "accounts", name: "nope")
            Issue.record("ran: \(state.status)")
        } catch {
            #expect("\(error)".contains("INVALID_TYPE"), "\(error)")
        }
    }

    @Test("metadata and mru of an object the org lacks fail with the object named, not only the org's 404 text")
    func unknownObjectNamed() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        for json: JSONValue in [["type": "metadata", "sobjectType": "Lead"], ["type": "mru", "sobjectType": "Lead", "fieldlist": ["Id"]]] {
            let target = try SyncDownTarget(json: json)
            do {
                let state = try await live.manager.syncDown(target, options: SyncOptions(), soupName: "accounts")
                Issue.record("ran: \(state.status)")
            } catch {
                #expect("\(error)".contains("NOT_FOUND") && "\(error)".contains("(is Lead an object of this org?)"), "\(error)")
                #expect(SyncRun.failsAlone(error), "the other syncs still run")
            }
        }
    }
}
