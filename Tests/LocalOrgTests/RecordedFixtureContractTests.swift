import ForceJSON
import Foundation
import LocalOrgProcess
import SalesforceTime
import Testing

@testable import LocalOrg

/// One test per response body restforce recorded from Salesforce (`restforce-fixtures/`, read in
/// place): localorg, served over HTTPS and asked with curl, gets the request that produced the
/// recording (restforce's specs name it) and must answer with the same status, error codes,
/// `Content-Type`, and every key of the recording, recursively (`JSONShape`). Keys only localorg
/// sends are listed in each test with the reason they are there.
///
/// The recordings are of API v20–v26 and of an object restforce made up (`Whizbang`, with fields
/// such as `Text_Label`); requests go to v31.0, the oldest version localorg serves, and the
/// made-up fields are mapped to fields of the org's objects that stand in for them.
@Suite(.enabled(if: RealSalesforce.isAvailable && HTTPSOrg.curlIsInstalled, "needs ../shared/real-salesforce and curl"))
struct RecordedFixtureContractTests {
    static let data = "/services/data/v31.0"

    static func recorded(_ name: String) throws -> JSONValue {
        try JSONParser.parse(try Data(contentsOf: RealSalesforce.restforceFixture(name)))
    }

    /// The answer has every key the recording has; its other keys are exactly `justifiedExtras`;
    /// it is JSON as Salesforce labels it.
    func expectShape(
        of answer: WireAnswer, like fixture: String, renaming: [String: String] = [:], justifiedExtras: Set<String> = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let difference = JSONShape.compare(recorded: try Self.recorded(fixture), ours: answer.json, renaming: renaming)
        #expect(difference.missing.isEmpty, "\(fixture): localorg lacks \(difference.missing)", sourceLocation: sourceLocation)
        #expect(Set(difference.extra) == justifiedExtras, "\(fixture): extra keys \(difference.extra)", sourceLocation: sourceLocation)
        #expect(answer.header("Content-Type") == "application/json;charset=UTF-8", sourceLocation: sourceLocation)
    }

    /// The error codes of the answer are the recording's.
    func expectErrors(of answer: WireAnswer, like fixture: String, status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(answer.status == status, "\(fixture): \(answer.status) \(answer.text)", sourceLocation: sourceLocation)
        #expect(JSONShape.errorCodes(answer.json) == JSONShape.errorCodes(try Self.recorded(fixture)), "\(answer.text)", sourceLocation: sourceLocation)
        try expectShape(of: answer, like: fixture, sourceLocation: sourceLocation)
    }

    func create(_ org: HTTPSOrg, _ object: String, _ json: String) async throws -> String {
        let answer = try await org.send("POST", "\(Self.data)/sobjects/\(object)", body: json)
        return try #require(answer.json["id"]?.stringValue, "create \(object): \(answer.status) \(answer.text)")
    }

    // MARK: OAuth

    /// Keys every token answer of localorg has beyond restforce's recordings: `token_type` and
    /// `scope` are in every current Salesforce token answer (docs); the built-in public client
    /// gets a `refresh_token` with the password grant too (a documented localorg difference).
    static let tokenExtras: Set<String> = ["token_type", "scope"]

    func passwordGrant(_ org: HTTPSOrg, password: String = "localorg-demo") async throws -> WireAnswer {
        try await org.postForm(
            "/services/oauth2/token",
            [
                ("grant_type", "password"), ("client_id", "forceterm"),
                ("username", "demo@localorg.test"), ("password", password),
            ])
    }

    @Test func authSuccess() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await passwordGrant(org)
            #expect(answer.status == 200)
            try expectShape(of: answer, like: "auth_success_response", justifiedExtras: Self.tokenExtras.union(["refresh_token"]))
            #expect(answer.json["instance_url"] == .string(org.baseURL))
        }
    }

    @Test func authError() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await passwordGrant(org, password: "wrong")
            #expect(answer.status == 400)
            #expect(answer.json["error"] == "invalid_grant")
            try expectShape(of: answer, like: "auth_error_response")
        }
    }

    /// A session that ended (here revoked) answers 401 INVALID_SESSION_ID; signing in again (what
    /// restforce does on that 401) gives a token that works.
    @Test func expiredSessionThenReauthentication() async throws {
        try await HTTPSOrg.with { org in
            let first = try await passwordGrant(org)
            let token = try #require(first.json["access_token"]?.stringValue)
            let revoked = try await org.postForm("/services/oauth2/revoke", [("token", token)])
            #expect(revoked.status == 200)
            let expired = try await org.send("GET", "\(Self.data)/query?q=SELECT+Id+FROM+Account", token: token)
            try expectErrors(of: expired, like: "expired_session_response", status: 401)

            let again = try await passwordGrant(org)
            #expect(again.status == 200)
            try expectShape(of: again, like: "reauth_success_response", justifiedExtras: Self.tokenExtras.union(["refresh_token"]))
            let newToken = try #require(again.json["access_token"]?.stringValue)
            #expect(try await org.send("GET", "\(Self.data)/query?q=SELECT+Id+FROM+Account", token: newToken).status == 200)
        }
    }

    @Test func refreshSuccess() async throws {
        try await HTTPSOrg.with { org in
            let refreshToken = try #require(try await passwordGrant(org).json["refresh_token"]?.stringValue)
            let answer = try await org.postForm(
                "/services/oauth2/token",
                [
                    ("grant_type", "refresh_token"), ("client_id", "forceterm"),
                    ("refresh_token", refreshToken),
                ])
            #expect(answer.status == 200)
            try expectShape(of: answer, like: "refresh_success_response", justifiedExtras: Self.tokenExtras)
        }
    }

    @Test func refreshError() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.postForm(
                "/services/oauth2/token",
                [
                    ("grant_type", "refresh_token"), ("client_id", "forceterm"),
                    ("refresh_token", "5Aep861-no-such-token"),
                ])
            #expect(answer.status == 400)
            #expect(answer.json["error"] == "invalid_grant")
            try expectShape(of: answer, like: "refresh_error_response")
        }
    }

    @Test func servicesData() async throws {
        try await HTTPSOrg.with { org in
            // Salesforce lists the versions to anyone: no token.
            let answer = try await org.send("GET", "/services/data", authorized: false)
            #expect(answer.status == 200)
            try expectShape(of: answer, like: "services_data_success_response")
        }
    }

    // MARK: Records

    @Test func createSuccess() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("POST", "\(Self.data)/sobjects/Account", body: #"{"Name":"Foobar"}"#)
            #expect(answer.status == 201)
            try expectShape(of: answer, like: "sobject/create_success_response")
        }
    }

    /// restforce answers an update and a delete of an id that names no record with this
    /// recording (404 NOT_FOUND).
    @Test func deleteOrUpdateOfAnIdWithoutARecord() async throws {
        try await HTTPSOrg.with { org in
            let delete = try await org.send("DELETE", "\(Self.data)/sobjects/Account/001D000000INjVe")
            try expectErrors(of: delete, like: "sobject/delete_error_response", status: 404)
            let update = try await org.send("PATCH", "\(Self.data)/sobjects/Account/001D000000INjVe", body: #"{"Name":"Foobar"}"#)
            try expectErrors(of: update, like: "sobject/delete_error_response", status: 404)
        }
    }

    @Test func writeError() async throws {
        try await HTTPSOrg.with { org in
            let id = try await create(org, "Account", #"{"Name":"Written"}"#)
            let answer = try await org.send("PATCH", "\(Self.data)/sobjects/Account/\(id)", body: #"{"foo":"bar"}"#)
            try expectErrors(of: answer, like: "sobject/write_error_response", status: 400)
        }
    }

    /// A record GET answers every field of the object: the recording's own fields are its
    /// made-up object's (left out here); the system fields must all be there.
    @Test func findSuccess() async throws {
        try await HTTPSOrg.with { org in
            let id = try await create(org, "Account", #"{"Name":"My First Account"}"#)
            let answer = try await org.send("GET", "\(Self.data)/sobjects/Account/\(id)")
            #expect(answer.status == 200)
            let recorded = try Self.recorded("sobject/sobject_find_success_response")
            var systemPart = try #require(recorded.objectValue)
            for key in systemPart.keys where key.hasSuffix("_Label") || key == "Auto_Number" { systemPart.removeValue(forKey: key) }
            let difference = JSONShape.compare(recorded: .object(systemPart), ours: answer.json)
            #expect(difference.missing.isEmpty, "\(difference.missing)")
            let account = try #require(org.server.org.store.schema.object(named: "Account"))
            #expect(difference.extra.filter { account.field(named: $0) == nil }.isEmpty, "only the record's own fields are extra: \(difference.extra)")
        }
    }

    @Test func findByAnExternalIdFieldTheObjectLacks() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "\(Self.data)/sobjects/Account/External_Field__c/1234")
            try expectErrors(of: answer, like: "sobject/sobject_find_error_response", status: 404)
            #expect(answer.json.firstErrorMessage == "Provided external ID field does not exist or is not accessible: External_Field__c")
        }
    }

    /// `?fields=` answers those fields and the Id.
    @Test func selectSomeFields() async throws {
        try await HTTPSOrg.with { org in
            let id = try await create(org, "Account", #"{"Name":"Selected","AccountNumber":"1234"}"#)
            let byId = try await org.send("GET", "\(Self.data)/sobjects/Account/\(id)?fields=AccountNumber")
            #expect(byId.status == 200)
            try expectShape(of: byId, like: "sobject/sobject_select_success_response", renaming: ["External_Field__c": "AccountNumber"])
            let byExternalId = try await org.send("GET", "\(Self.data)/sobjects/Account/AccountNumber/1234?fields=AccountNumber")
            try expectShape(of: byExternalId, like: "sobject/sobject_select_success_response", renaming: ["External_Field__c": "AccountNumber"])
        }
    }

    @Test func upsertCreatesThenUpdates() async throws {
        try await HTTPSOrg.with { org in
            let created = try await org.send("PATCH", "\(Self.data)/sobjects/Account/AccountNumber/foobar", body: #"{"Name":"Foobar"}"#)
            #expect(created.status == 201)
            try expectShape(of: created, like: "sobject/upsert_created_success_response")
            // Before v46.0 an upsert that updates answers 204 with no body (the recording is empty).
            let updated = try await org.send("PATCH", "\(Self.data)/sobjects/Account/AccountNumber/foobar", body: #"{"Name":"Foobar"}"#)
            #expect(updated.status == 204 && updated.body.isEmpty)
            #expect(try Data(contentsOf: RealSalesforce.restforceFixture("sobject/upsert_updated_success_response")).isEmpty)
        }
    }

    @Test func upsertByAFieldTheObjectLacks() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("PATCH", "\(Self.data)/sobjects/Account/Namez/foo", body: #"{"Name":"Foobar"}"#)
            try expectErrors(of: answer, like: "sobject/upsert_error_response", status: 404)
        }
    }

    /// An external id two records share: 300 and the URLs of both, and neither changes.
    @Test func upsertOfAnExternalIdTwoRecordsShare() async throws {
        try await HTTPSOrg.with { org in
            let first = try await create(org, "Account", #"{"Name":"One","AccountNumber":"shared"}"#)
            let second = try await create(org, "Account", #"{"Name":"Two","AccountNumber":"shared"}"#)
            let answer = try await org.send("PATCH", "\(Self.data)/sobjects/Account/AccountNumber/shared", body: #"{"Name":"Foobar"}"#)
            #expect(answer.status == 300)
            try expectShape(of: answer, like: "sobject/upsert_multiple_error_response")
            #expect(Set(answer.json.arrayValue?.compactMap(\.stringValue) ?? []) == ["\(Self.data)/sobjects/Account/\(first)", "\(Self.data)/sobjects/Account/\(second)"])
        }
    }

    // MARK: Describe

    /// Keys of the describe answers that API versions after the recording's (v23) added, which
    /// localorg sends at every version (docs: the current describe has them all).
    static let newerSObjectSummaryKeys: Set<String> = [
        "associateEntityType", "associateParentEntity", "deepCloneable", "hasSubtypes",
        "isInterface", "isSubtype", "mruEnabled",
    ]

    @Test func describeGlobal() async throws {
        try await HTTPSOrg.with { org in
            for fixture in ["sobject/describe_sobjects_success_response", "sobject/list_sobjects_success_response"] {
                let answer = try await org.send("GET", "\(Self.data)/sobjects")
                #expect(answer.status == 200)
                try expectShape(of: answer, like: fixture, justifiedExtras: Set(Self.newerSObjectSummaryKeys.map { "sobjects[].\($0)" }))
            }
        }
    }

    @Test func describeOfAnObjectTheOrgLacks() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "\(Self.data)/sobjects/Whizbang/describe")
            try expectErrors(of: answer, like: "sobject/sobject_describe_error_response", status: 404)
        }
    }

    /// Every key of the recorded describe, at every depth (fields, picklist values, child
    /// relationships, record types, urls).
    @Test func describe() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "\(Self.data)/sobjects/Account/describe")
            #expect(answer.status == 200)
            let newerDescribeKeys: Set<String> = [
                "actionOverrides", "compactLayoutable", "defaultImplementation", "extendedBy", "extendsInterfaces", "implementedBy",
                "implementsInterfaces", "namedLayoutInfos", "networkScopeFieldName", "sobjectDescribeOption", "supportedScopes",
                "childRelationships[].junctionIdListNames", "childRelationships[].junctionReferenceTo", "childRelationships[].restrictedDelete",
                "fields[].aggregatable", "fields[].aiPredictionField", "fields[].cascadeDelete", "fields[].compoundFieldName",
                "fields[].displayLocationInDecimal", "fields[].encrypted", "fields[].extraTypeInfo", "fields[].filteredLookupInfo",
                "fields[].formulaTreatNullNumberAsZero", "fields[].highScaleNumber", "fields[].mask", "fields[].maskType",
                "fields[].permissionable", "fields[].polymorphicForeignKey", "fields[].queryByDistance", "fields[].referenceTargetField",
                "fields[].restrictedDelete", "fields[].searchPrefilterable",
                "recordTypeInfos[].active", "recordTypeInfos[].developerName", "recordTypeInfos[].master", "recordTypeInfos[].urls",
                "urls.approvalLayouts", "urls.compactLayouts", "urls.defaultValues", "urls.layouts", "urls.listviews", "urls.quickActions",
            ]
            try expectShape(
                of: answer, like: "sobject/sobject_describe_success_response",
                justifiedExtras: newerDescribeKeys.union(Self.newerSObjectSummaryKeys))
            #expect(answer.header("ETag") != nil && answer.header("Last-Modified") != nil)
        }
    }

    /// Values, not only keys: each kind of text field the recorded describe has answers with the
    /// recording's flags. Its long and rich text areas (32,768 characters) cannot be filtered,
    /// sorted or grouped on; its text area of 255 can. localorg's long text area is Description
    /// (32,000), its short one BillingStreet.
    @Test func describeFlagsOfTextAreasAreTheRecordings() async throws {
        let recorded = try Self.recorded("sobject/sobject_describe_success_response")["fields"]?.arrayValue ?? []
        func flags(_ field: JSONValue?) -> [JSONValue?] { ["filterable", "sortable", "groupable", "type"].map { field?[$0] } }
        let recordedLong = recorded.first { $0["name"] == "TextAreaLong_Field" }
        let recordedShort = recorded.first { $0["name"] == "TextArea_Field" }
        #expect(
            flags(recordedLong) == [false, false, false, "textarea"] && flags(recordedShort) == [true, true, true, "textarea"],
            "the recording as read")
        try await HTTPSOrg.with { org in
            let fields = try await org.send("GET", "\(Self.data)/sobjects/Account/describe").json["fields"]?.arrayValue ?? []
            #expect(flags(fields.first { $0["name"] == "Description" }) == flags(recordedLong))
            #expect(flags(fields.first { $0["name"] == "BillingStreet" }) == flags(recordedShort))
            #expect(fields.first { $0["name"] == "Description" }?["htmlFormatted"] == recordedLong?["htmlFormatted"])
        }
    }

    // MARK: Replication

    /// Moves a record's change (and deletion) two minutes back: the replication windows cover
    /// whole minutes that have passed, so a change made now is not in any yet.
    func backdate(_ org: HTTPSOrg, _ objectName: String, id: String) async throws {
        let store = org.server.org.store
        let object = try #require(store.schema.object(named: objectName))
        let earlier = OrgStore.now() - 120
        try await store.write { db in
            try db.execute(
                sql: "UPDATE \(quoted(object.tableName)) SET SystemModstamp = ?, \(quoted(OrgStore.deletedAtColumn)) = CASE WHEN IsDeleted = 1 THEN ? ELSE NULL END WHERE Id = ?",
                arguments: [earlier, earlier, id])
        }
    }

    @Test func getUpdatedAndDeleted() async throws {
        try await HTTPSOrg.with { org in
            let kept = try await create(org, "Account", #"{"Name":"Kept"}"#)
            let removed = try await create(org, "Account", #"{"Name":"Removed"}"#)
            #expect(try await org.send("DELETE", "\(Self.data)/sobjects/Account/\(removed)").status == 204)
            try await backdate(org, "Account", id: kept)
            try await backdate(org, "Account", id: removed)
            let start = SalesforceDate.formatDateTime(OrgStore.now() - 3600).replacingOccurrences(of: "+0000", with: "Z").replacingOccurrences(of: ".000", with: "")
            let end = SalesforceDate.formatDateTime(OrgStore.now()).replacingOccurrences(of: "+0000", with: "Z").replacingOccurrences(of: ".000", with: "")
            // restforce asks with a slash after the resource.
            let updated = try await org.send("GET", "\(Self.data)/sobjects/Account/updated/?end=\(end)&start=\(start)")
            #expect(updated.status == 200, "\(updated.text)")
            try expectShape(of: updated, like: "sobject/get_updated_success_response")
            #expect(updated.json["ids"] == [.string(kept)])
            let deleted = try await org.send("GET", "\(Self.data)/sobjects/Account/deleted/?end=\(end)&start=\(start)")
            #expect(deleted.status == 200, "\(deleted.text)")
            try expectShape(of: deleted, like: "sobject/get_deleted_success_response")
            #expect(deleted.json["deletedRecords"]?.arrayValue?.first?["id"] == .string(removed))
        }
    }
}
