import ForceJSON
import Foundation
import LocalOrgProcess
import SalesforceTime
import Testing

@testable import LocalOrg

/// Every request of the REST and Composite folders of Salesforce's published Postman collection
/// (`../shared/real-salesforce/postman/`), sent to localorg as a client would send it, path
/// variables filled with records of the org. None may go unrouted: each is answered, or refused
/// the way Salesforce refuses (an error array with `errorCode` and `message`; a feature localorg
/// does not have as `FUNCTIONALITY_NOT_ENABLED`; `NOT_FOUND` only for sObjects the org lacks).
@Suite(.enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"))
struct PostmanReplayTests {
    static let collection = RealSalesforce.directory.appendingPathComponent("postman/salesforce-apis.postman_collection.v53.json")

    /// sObjects the collection names that localorg's org does not have (a real org without them
    /// answers NOT_FOUND too).
    static let absentObjects = [
        "PlatformAction", "LightningToggleMetrics", "LightningUsageByBrowserMetrics", "LightningUsageByAppTypeMetrics",
        "LightningUsageByFlexiPageMetrics", "LightningExitByPageMetrics", "EventLogFile", "OpportunityLineItem",
        "SelfServiceUser", "Product__c",
    ]

    /// Fields the collection's requests name that the org's Account lacks: `Body`, the blob of
    /// "SObject Blob Retrieve" (a real Account has no blob field either, and answers NOT_FOUND).
    static let absentFields = ["Body"]

    struct Replay: CustomStringConvertible {
        var folder: String
        var name: String
        var method: String
        var path: String
        var variables: [String]
        var query: [(String, String)]
        var body: String?
        var description: String { "\(folder) / \(name): \(method) \(path)" }
    }

    static func replays() throws -> [Replay] {
        let document = try JSONParser.parse(try Data(contentsOf: collection))
        var found: [Replay] = []
        func walk(_ items: [JSONValue], folder: [String]) {
            for item in items {
                if let children = item["item"]?.arrayValue {
                    walk(children, folder: folder + [item["name"]?.stringValue ?? ""])
                    continue
                }
                guard let top = folder.first, top == "REST" || top == "Composite", let request = item["request"],
                    let raw = request["url"]?["raw"]?.stringValue, let method = request["method"]?.stringValue
                else { continue }
                let pathPart = raw.split(separator: "?", maxSplits: 1).first.map(String.init) ?? raw
                let query = (request["url"]?["query"]?.arrayValue ?? []).compactMap { entry -> (String, String)? in
                    guard entry["disabled"]?.boolValue != true, let key = entry["key"]?.stringValue else { return nil }
                    return (key, entry["value"]?.stringValue ?? "")
                }
                let variables = (request["url"]?["variable"]?.arrayValue ?? []).compactMap { $0["key"]?.stringValue }
                let body = request["body"]?["raw"]?.stringValue
                found.append(
                    Replay(
                        folder: folder.joined(separator: "/"), name: item["name"]?.stringValue ?? "", method: method,
                        path: pathPart, variables: variables, query: query, body: body?.isEmpty == true ? nil : body))
            }
        }
        walk(document["items"]?.arrayValue ?? document["item"]?.arrayValue ?? [], folder: [])
        return found
    }

    @Test func everyRESTAndCompositeRequestIsAnsweredAsSalesforceWould() async throws {
        let replays = try Self.replays()
        #expect(replays.count >= 80, "the REST and Composite folders: \(replays.count)")
        let org = try await TestOrg()
        let me = try JSONParser.parse(await org.call("GET", "/services/oauth2/userinfo").body)["user_id"]?.stringValue ?? ""
        var unrouted: [String] = []
        var serverErrors: [String] = []
        var misshapen: [String] = []
        var statusByName: [String: Int] = [:]
        for (index, replay) in replays.enumerated() {
            // A fresh account per request, so a DELETE replayed earlier leaves the next one a record.
            let number = "PM-\(index)"
            let account =
                try JSONParser.parse(
                    await org.call(
                        "POST", "/services/data/v53.0/sobjects/Account",
                        body: #"{"Name":"Postman \#(index)","AccountNumber":"\#(number)"}"#
                    ).body)["id"]?.stringValue ?? ""
            let values: [String: String] = [
                "SOBJECT_API_NAME": "Account", "RECORD_ID": account, "FIELD_NAME": "AccountNumber", "FIELD_VALUE": number,
                "USER_ID": me, "RECORD_TYPE_ID": "012000000000000AAA", "LAYOUT_NAME": "Default", "BLOB_FIELD": "Body",
                "RELATIONSHIP_FIELD_NAME": "Contacts", "id": "0AT000000000001AAA",
            ]
            var path = replay.path.replacingOccurrences(of: "{{_endpoint}}", with: "").replacingOccurrences(of: "{{version}}", with: "53.0")
            for variable in replay.variables { path = path.replacingOccurrences(of: ":\(variable)", with: values[variable] ?? "x1") }
            let query = replay.query.map { key, value -> String in
                var filled = value
                if filled.isEmpty {
                    switch key {
                    case "ids": filled = account
                    case "fields": filled = "Name,AccountNumber"
                    case "q": filled = path.contains("parameterizedSearch") ? "Postman" : path.hasSuffix("/search") ? "FIND {Postman}" : "Account"
                    case "start": filled = "2020-01-01T00:00:00Z"
                    case "end": filled = SalesforceDate.formatDateTime(OrgStore.now() + 60)
                    case "sObjects", "sobject": filled = "Account"
                    case "allOrNone": filled = "false"
                    default: break
                    }
                }
                let encoded = filled.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+&="))) ?? filled
                return "\(key)=\(encoded)"
            }.joined(separator: "&")
            let body = replay.body?.replacingOccurrences(of: "{{version}}", with: "53.0")
            let target = (path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path) + (query.isEmpty ? "" : "?" + query)
            let response = await org.call(replay.method, target, body: body)
            statusByName[replay.name] = response.status
            if response.status >= 500 { serverErrors.append("\(replay) → \(response.status) \(response.bodyText.prefix(200))") }
            guard response.status >= 400 else { continue }
            let error = (try? JSONParser.parse(response.body))?.arrayValue?.first
            guard let code = error?["errorCode"]?.stringValue, error?["message"]?.stringValue != nil else {
                misshapen.append("\(replay) → \(response.status) \(response.bodyText.prefix(200))")
                continue
            }
            if code == "NOT_FOUND", !Self.absentObjects.contains(where: { path.contains("/sobjects/\($0)") || path.contains("/\($0)/") }),
                !Self.absentFields.contains(where: { path.hasSuffix("/\($0)") })
            {
                unrouted.append("\(replay) → \(response.status) \(response.bodyText.prefix(160))")
            }
        }
        #expect(serverErrors.isEmpty, "\(serverErrors.joined(separator: "\n"))")
        #expect(misshapen.isEmpty, "answers not shaped as Salesforce errors:\n\(misshapen.joined(separator: "\n"))")
        // Relationship traversal is served: the account's (empty) Contacts.
        #expect(statusByName["SObject Relationships"] == 200)
        #expect(unrouted.isEmpty, "answered NOT_FOUND though Salesforce has the resource:\n\(unrouted.joined(separator: "\n"))")
    }
}
