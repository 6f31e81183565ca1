import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

@Suite("Named syncs from usersyncs.json")
struct SyncsConfigTests {
    /// MobileSyncExplorer's file, as the SDK's templates ship it.
    static let explorerConfig = """
        {
          "syncs": [
            {
              "syncName": "syncDownContacts",
              "syncType": "syncDown",
              "soupName": "contacts",
              "target": {"type":"soql", "query":"SELECT FirstName, LastName, Title, MobilePhone, Email, Department, HomePhone FROM Contact LIMIT 10000"},
              "options": {"mergeMode":"OVERWRITE"}
            },
            {
              "syncName": "syncUpContacts",
              "syncType": "syncUp",
              "soupName": "contacts",
              "target": {"createFieldlist":["FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone"]},
              "options": {"fieldlist":["Id", "FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone"], "mergeMode":"LEAVE_IF_CHANGED"}
            }
          ]
        }
        """

    @Test func theExplorerConfigWorksUnchanged() throws {
        let config = try SyncsConfig(json: Self.explorerConfig)
        #expect(config.entries.map(\.name) == ["syncDownContacts", "syncUpContacts"])
        guard case let .down(down) = config.entries[0].target, case let .soql(query, batch) = down.kind else {
            Issue.record("syncDownContacts is not a soql sync down")
            return
        }
        #expect(query.hasPrefix("SELECT FirstName") && batch == 2000)
        #expect(config.entries[0].options.mergeMode == .overwrite)
        guard case let .up(up) = config.entries[1].target else {
            Issue.record("syncUpContacts is not a sync up")
            return
        }
        #expect(up.mode == .collection, "no impl class: the collection target, the SDK's default")
        #expect(up.createFieldlist?.count == 7 && up.updateFieldlist == nil)
        #expect(config.entries[1].options.fieldlist?.first == "Id")
    }

    @Test func theRepoConfigLoadsAndApplyingIsIdempotent() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        let config = try SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json"))
        let first = try syncs.apply(config)
        #expect(first == config.entries.map { .created(name: $0.name) })
        let second = try syncs.apply(config)
        #expect(second == config.entries.map { .unchanged(name: $0.name) })
        #expect(try syncs.all().count == config.entries.count)
    }

    @Test func aChangedQueryRestartsFromScratchChangedOptionsKeepTheHighWaterMark() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        var config = try SyncsConfig(json: Self.explorerConfig)
        try syncs.apply(config)
        for name in ["syncDownContacts", "syncUpContacts"] {
            var state = try #require(try syncs.state(name: name))
            state.maxTimeStamp = 1_700_000_000_000
            state.status = .done
            try syncs.save(state)
        }

        config.entries[1].options.mergeMode = .overwrite
        config.entries[0].target = .down(.soql("SELECT FirstName, LastName, AccountId FROM Contact"))
        let changes = try syncs.apply(config)
        #expect(
            changes == [
                .updated(name: "syncDownContacts", restarted: true, differences: ["target query"]),
                .updated(name: "syncUpContacts", restarted: false, differences: ["mergeMode LEAVE_IF_CHANGED → OVERWRITE"]),
            ])
        #expect(
            changes.compactMap(\.notice) == [
                "sync syncDownContacts changed in usersyncs.json (target query): it starts over and fetches every record again",
                "sync syncUpContacts changed in usersyncs.json (mergeMode LEAVE_IF_CHANGED → OVERWRITE): it keeps its place",
            ])

        let down = try #require(try syncs.state(name: "syncDownContacts"))
        #expect(down.maxTimeStamp == -1, "a new query starts from scratch")
        #expect(down.target == .down(.soql("SELECT FirstName, LastName, AccountId FROM Contact")))
        #expect(down.status == .done, "the status of the last run is kept")
        let up = try #require(try syncs.state(name: "syncUpContacts"))
        #expect(up.maxTimeStamp == 1_700_000_000_000)
        #expect(up.options.mergeMode == .overwrite)
    }

    @Test func syncsMissingFromTheFileAreLeftAlone() throws {
        let fixture = try SyncStore()
        let syncs = try SyncsSoup(store: fixture.store)
        _ = try syncs.create(SyncState(name: "mine", target: .down(.soql("SELECT Name FROM Account")), options: SyncOptions(), soupName: "accounts"))
        try syncs.apply(SyncsConfig(json: Self.explorerConfig))
        #expect(try syncs.hasSync(name: "mine"))
    }

    @Test("Every problem of a file is reported at once, each naming its sync")
    func everyProblemAtOnce() {
        let json = #"""
            {"syncs": [
              {"syncName": "good", "syncType": "syncDown", "soupName": "s", "target": {"type": "soql", "query": "SELECT Name FROM Account"}},
              {"syncName": "noQuery", "syncType": "syncDown", "soupName": "s", "target": {"type": "soql"}},
              {"syncName": "badMode", "syncType": "syncUp", "soupName": "s", "options": {"mergeMode": "SOMETIMES"}},
              {"syncType": "syncUp", "soupName": "s"}
            ]}
            """#
        do {
            _ = try SyncsConfig(json: json)
            Issue.record("accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains("3 problems:"), "\(text)")
            for part in ["sync \"noQuery\": ", "a soql target needs a \"query\"", "sync \"badMode\": ", "OVERWRITE or LEAVE_IF_CHANGED", "sync #4 needs a \"syncName\""] {
                #expect(text.contains(part), "\(part) in \(text)")
            }
            #expect(!text.contains("\"good\""))
        }
    }

    @Test("An app's own target class is set aside with its reason; the file's other syncs load")
    func unsupportedTargetsAreSetAside() throws {
        let config = try SyncsConfig(
            json: #"""
                {"syncs": [
                  {"syncName": "down", "syncType": "syncDown", "soupName": "accounts", "target": {"type": "soql", "query": "SELECT Name FROM Account"}},
                  {"syncName": "mine", "syncType": "syncUp", "soupName": "accounts",
                   "target": {"iOSImpl": "MyAppSyncUpTarget", "androidImpl": "com.example.app.MyAppSyncUpTarget"}}
                ]}
                """#)
        #expect(config.entries.map(\.name) == ["down"])
        #expect(config.unsupported.map(\.name) == ["mine"] && config.unsupported.first?.type == .syncUp)
        #expect(config.unsupported.first?.reason.contains("not supported by forceterm yet: the custom sync up target com.example.app.MyAppSyncUpTarget") == true)
    }

    @Test("A sync whose soup userstore.json lacks is named at load")
    func soupsTheStoreLacks() throws {
        let config = try SyncsConfig(json: Self.explorerConfig)
        #expect(config.soupProblems(soups: ["contacts"]).isEmpty)
        #expect(
            config.soupProblems(soups: ["accounts"]) == [
                "sync \"syncDownContacts\" uses the soup \"contacts\", which userstore.json does not define; add it there or change the sync's soupName",
                "sync \"syncUpContacts\" uses the soup \"contacts\", which userstore.json does not define; add it there or change the sync's soupName",
            ])
    }

    @Test(arguments: [
        (#"{"sync": []}"#, "expected {\"syncs\": [...]}"),
        (#"{"syncs": [{"syncType": "syncDown"}]}"#, "sync #1 needs a \"syncName\""),
        (#"{"syncs": [{"syncName": "a", "syncType": "sideways", "soupName": "s"}]}"#, "needs \"syncType\": \"syncDown\" or \"syncUp\""),
        (#"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "layout"}}]}"#, "a layout target needs a \"sobjectType\""),
        (
            #"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "picklist"}}]}"#,
            "\"picklist\" is not supported; use soql, sosl, mru, refresh, parent_children, briefcase, metadata or layout"
        ),
        (#"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "soql"}}]}"#, "a soql target needs a \"query\""),
        (#"{"syncs": [{"syncName": "a", "syncType": "syncUp", "soupName": "s", "target": {"createFieldlist": "Name"}}]}"#, "\"createFieldlist\" must be a list"),
        (#"{"syncs": [{"syncName": "a", "syncType": "syncUp", "soupName": "s"}, {"syncName": "a", "syncType": "syncUp", "soupName": "s"}]}"#, "appears twice"),
    ])
    func badConfigsGetAClearError(json: String, expected: String) {
        do {
            _ = try SyncsConfig(json: json)
            Issue.record("accepted \(json)")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }

    @Test func everyTargetTypeRoundTripsThroughJSON() throws {
        let downs: [JSONValue] = [
            ["type": "soql", "query": "SELECT Name FROM Account", "maxBatchSize": 500],
            ["type": "sosl", "query": "FIND {Joe} RETURNING Contact(Id, LastName)"],
            ["type": "metadata", "sobjectType": "Account"],
            ["type": "layout", "sobjectType": "Account", "formFactor": "Medium", "layoutType": "Compact", "mode": "Edit"],
            ["type": "mru", "sobjectType": "Contact", "fieldlist": ["LastName"]],
            ["type": "refresh", "sobjectType": "Contact", "fieldlist": ["LastName"], "soupName": "contacts", "countIdsPerSoql": 100],
            [
                "type": "parent_children", "parent": ["sobjectType": "Account", "soupName": "accounts"],
                "children": ["sobjectType": "Contact", "sobjectTypePlural": "Contacts", "soupName": "contacts", "parentIdFieldName": "AccountId"],
                "parentFieldlist": ["Name"], "childrenFieldlist": ["LastName"], "relationshipType": "LOOKUP",
            ],
            ["type": "briefcase", "infos": [["sobjectType": "Account", "fieldlist": ["Name"], "soupName": "accounts"]], "countIdsPerRetrieve": 100],
        ]
        for json in downs {
            let target = try SyncDownTarget(json: json)
            #expect(try SyncDownTarget(json: target.json) == target)
            #expect(target.json["type"] == json["type"])
        }
        for mode in SyncUpTarget.Mode.allCases {
            let target = SyncUpTarget(mode: mode, createFieldlist: ["Name"], updateFieldlist: ["Phone"], externalIdFieldName: "Ext__c")
            #expect(try SyncUpTarget(json: target.json) == target)
        }
    }

    @Test func syncUpImplClassesPickTheModeAndBatchSizesAreClamped() throws {
        #expect(try SyncUpTarget(json: ["androidImpl": "com.salesforce.androidsdk.mobilesync.target.BatchSyncUpTarget", "maxBatchSize": 500]).maxBatchSize == 25)
        #expect(try SyncUpTarget(json: ["iOSImpl": "SFBatchSyncUpTarget"]).mode == .batch)
        #expect(try SyncUpTarget(json: ["iOSImpl": "SFSyncUpTarget"]).mode == .singleRecord)
        #expect(try SyncUpTarget(json: ["maxBatchSize": 1000]).maxBatchSize == 200)
        #expect(try SyncUpTarget(json: nil).mode == .collection)
    }

    @Test func theParentChildrenQueryIsTheSDKs() throws {
        let target = try SyncDownTarget(json: [
            "type": "parent_children", "parent": ["sobjectType": "Account", "soupName": "accounts"],
            "children": ["sobjectType": "Contact", "sobjectTypePlural": "Contacts", "soupName": "contacts", "parentIdFieldName": "AccountId"],
            "parentFieldlist": ["Name"], "childrenFieldlist": ["LastName"], "parentSoqlFilter": "Industry = 'Tech' or Name = 'x'",
        ])
        guard case let .parentChildren(spec) = target.kind else { throw MobileSyncError.invalidTarget("not parent_children") }
        #expect(
            spec.query(after: nil)
                == "select Id, LastModifiedDate, Name, (select Id, LastModifiedDate, LastName from Contacts) from Account where (Industry = 'Tech' or Name = 'x') order by LastModifiedDate")
        #expect(
            spec.query(after: "2024-01-01T00:00:00.000Z")
                == "select Id, LastModifiedDate, Name, (select Id, LastModifiedDate, LastName from Contacts where LastModifiedDate > 2024-01-01T00:00:00.000Z) from Account where LastModifiedDate > 2024-01-01T00:00:00.000Z and (Industry = 'Tech' or Name = 'x') order by LastModifiedDate"
        )
    }
}
