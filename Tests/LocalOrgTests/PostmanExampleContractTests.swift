import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

@testable import LocalOrg

/// The answers Salesforce's published Postman collection saved with its requests (recorded from
/// a Developer Edition org, read in place), against localorg's answers to the same requests over
/// HTTPS: status, the headers a client reads, and every key, recursively (`JSONShape`).
@Suite(.enabled(if: RealSalesforce.isAvailable && HTTPSOrg.curlIsInstalled, "needs ../shared/real-salesforce and curl"))
struct PostmanExampleContractTests {
    /// The saved answer of the request named `name`: its status, header names and JSON body.
    static func savedAnswer(_ name: String) throws -> (status: Int, headerNames: Set<String>, body: JSONValue) {
        let document = try JSONParser.parse(try Data(contentsOf: PostmanReplayTests.collection))
        func find(_ items: [JSONValue]) -> JSONValue? {
            for item in items {
                if let children = item["item"]?.arrayValue, let found = find(children) { return found }
                if item["name"]?.stringValue == name, let saved = item["response"]?.arrayValue?.first { return saved }
            }
            return nil
        }
        guard let saved = find(document["item"]?.arrayValue ?? []) else { throw TestFailure("no saved answer for \(name)") }
        let headerNames = Set((saved["header"]?.arrayValue ?? []).compactMap { $0["key"]?.stringValue?.lowercased() })
        return (Int(saved["code"]?.int64Value ?? 0), headerNames, try JSONParser.parse(Array((saved["body"]?.stringValue ?? "").utf8)))
    }

    func expectShape(of answer: WireAnswer, like name: String, justifiedExtras: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let saved = try Self.savedAnswer(name)
        #expect(answer.status == saved.status, "\(name): \(answer.status) \(answer.text)", sourceLocation: sourceLocation)
        let difference = JSONShape.compare(recorded: saved.body, ours: answer.json)
        #expect(difference.missing.isEmpty, "\(name): localorg lacks \(difference.missing)", sourceLocation: sourceLocation)
        #expect(Set(difference.extra) == justifiedExtras, "\(name): extra keys \(difference.extra)", sourceLocation: sourceLocation)
        #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
    }

    @Test func passwordToken() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.postForm(
                "/services/oauth2/token",
                [
                    ("grant_type", "password"), ("client_id", "forceterm"),
                    ("username", "demo@localorg.test"), ("password", "localorg-demo"),
                ])
            // The built-in public client also gets a refresh token (a documented localorg
            // difference); `scope` is in Salesforce's answers of the other flows (docs).
            try expectShape(of: answer, like: "OAuth Username Password", justifiedExtras: ["refresh_token", "scope"])
            #expect(try Self.savedAnswer("OAuth Username Password").headerNames.contains("cache-control"))
            #expect(answer.header("Cache-Control")?.contains("no-store") == true, "token answers must not be cached: \(answer.headers)")
        }
    }

    @Test func versions() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "/services/data", authorized: false)
            let saved = try Self.savedAnswer("Versions")
            let difference = JSONShape.compare(recorded: saved.body, ours: answer.json)
            #expect(answer.status == 200 && difference == JSONShape.Difference(), "\(difference)")
            // The labels follow Salesforce's release names.
            let savedLabels = Dictionary(
                (saved.body.arrayValue ?? []).compactMap { entry in
                    entry["version"]?.stringValue.flatMap { version in entry["label"]?.stringValue.map { (version, $0) } }
                }, uniquingKeysWith: { first, _ in first })
            for entry in answer.json.arrayValue ?? [] {
                guard let version = entry["version"]?.stringValue, let label = savedLabels[version] else { continue }
                #expect(entry["label"]?.stringValue == label, "\(version)")
            }
        }
    }

    @Test func compositeGraph() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send(
                "POST", "/services/data/v53.0/composite/graph",
                body: #"""
                    {"graphs": [{"graphId": "graph1", "compositeRequest": [
                      {"method": "POST", "url": "/services/data/v53.0/sobjects/Account/", "referenceId": "newAccount", "body": {"Name": "Graph Co"}},
                      {"method": "POST", "url": "/services/data/v53.0/sobjects/Contact/", "referenceId": "newContact",
                       "body": {"LastName": "Graph", "AccountId": "@{newAccount.id}"}}]}]}
                    """#)
            try expectShape(of: answer, like: "Composite Graph")
        }
    }

    @Test func picklistValues() async throws {
        try await HTTPSOrg.with { org in
            let answer = try await org.send("GET", "/services/data/v53.0/ui-api/object-info/Account/picklist-values/012000000000000AAA/Industry")
            try expectShape(of: answer, like: "Get Values for a Picklist Field")
            #expect(try Self.savedAnswer("Get Values for a Picklist Field").headerNames.contains("etag"))
            #expect(answer.header("ETag") != nil, "\(answer.headers)")
        }
    }
}
