import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

/// Random and malformed input never crashes the server, never gets a 500, and always gets
/// Salesforce's error format.
@Suite struct RobustnessTests {
    static let soqlPieces = [
        "SELECT", "Id", "Name", "LastName", "Account.Name", "Owner.Name", "COUNT()", ",", "FROM", "Contact",
        "Account", "WHERE", "AND", "OR", "NOT", "(", ")", "=", "!=", "<", ">=", "LIKE", "IN", "NOT IN",
        "'x'", "'a\\'b'", "'%'", "null", "true", "42", "-3.5", "2024-01-02", "2024-01-02T03:04:05Z",
        "TODAY", "LAST_N_DAYS:3", "ORDER BY", "ASC", "DESC", "NULLS FIRST", "LIMIT", "OFFSET", "5",
        "'", "\\", ";", "--", "/*", "\u{0}", "é", "陈", "..", ":", "Contact.LastName", "IsDeleted",
        "(SELECT Id FROM Contacts)", "(SELECT", "Contacts", "GROUP BY", "COUNT(Id)", "FIELDS(ALL)",
        "SUM(", "MAX(Name)", "AVG(NumberOfEmployees)", "COUNT_DISTINCT(Title)", "total",
        "IN (SELECT AccountId FROM Contact)", "Id IN (SELECT", "AccountId", "HAVING", "COUNT(Id) > 1",
    ]

    func checkErrorShape(_ response: APIResponse, context: String) throws {
        #expect(response.status != 500, "\(context) → \(response.bodyText)")
        guard response.status >= 400 else { return }
        let body = try JSONParser.parse(response.body)
        #expect(body.firstErrorCode != nil, "\(context) → \(response.bodyText)")
        #expect(response.header("Content-Type") == "application/json;charset=UTF-8")
    }

    @Test func randomSOQLGetsResultsOrSalesforceErrors() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        _ = try await org.create("Contact", #"{"LastName":"Someone"}"#)
        var random = SeededGenerator(seed: 20_241_102)
        for round in 0..<400 {
            var words: [String] = round % 2 == 0 ? ["SELECT", "Id", "FROM", "Contact"] : []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                words.append(Self.soqlPieces.randomElement(using: &random) ?? "")
            }
            let soql = words.joined(separator: Int.random(in: 0...3, using: &random) == 0 ? "" : " ")
            let encoded = soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            try checkErrorShape(await org.call("GET", "/services/data/v59.0/query?q=\(encoded)"), context: soql)
        }
    }

    @Test func malformedBodiesGetSalesforceErrors() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        var random = SeededGenerator(seed: 7)
        let samples = [
            "", "{", "[]", "null", "\"text\"", #"{"LastName":}"#, #"{"LastName":["a"]}"#, #"{"LastName":{"a":1}}"#,
            #"{"LastName":"a","Birthdate":"2024-13-45"}"#, #"{"LastName":"a","AccountId":12}"#, #"{"LastName":true}"#,
            #"{"attributes":{"type":"Nope"},"LastName":"x"}"#, String(repeating: "[", count: 10_000),
        ]
        var bodies = samples
        for _ in 0..<150 {
            let length = Int.random(in: 0...40, using: &random)
            bodies.append(String((0..<length).map { _ in Character(UnicodeScalar(UInt8.random(in: 32...126, using: &random))) }))
        }
        for body in bodies {
            try checkErrorShape(await org.call("POST", "/services/data/v59.0/sobjects/Contact/", body: body), context: body)
            try checkErrorShape(await org.call("POST", "/services/data/v59.0/composite/sobjects", body: body), context: body)
            try checkErrorShape(await org.call("PATCH", "/services/data/v59.0/sobjects/Contact/ExternalKey__c/k", body: body), context: body)
        }
    }

    @Test func oddPathsAndMethodsGetSalesforceErrors() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        for (method, path) in [
            ("GET", "/"), ("GET", "/services/data/v20.0/"), ("GET", "/services/data/vX/"), ("PUT", "/services/data/v59.0/sobjects/Contact/"),
            ("DELETE", "/services/data/v59.0/query"), ("GET", "/services/data/v59.0/sobjects/Contact/%ZZ"),
            ("GET", "/services/data/v59.0/composite/sobjects/Contact?ids=&fields="), ("POST", "/services/data/v59.0/sobjects/Organization/"),
            ("DELETE", "/services/data/v59.0/composite/sobjects?ids=nonsense"),
        ] {
            try checkErrorShape(await org.call(method, path), context: "\(method) \(path)")
        }
    }

    /// `make fuzz` found the first: a version number too large for an Int trapped the server.
    @Test(arguments: ["v" + String(repeating: "1", count: 120) + "60.0", "vnan", "vinf", "v-inf", "v1e400"])
    func apiVersionsNoIntHoldsAreNotFound(version: String) async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let direct = await org.call("GET", "/services/data/\(version)/sobjects/Account/deleted/?start=2020-01-01T00:00:00Z&end=2030-01-01T00:00:00Z")
        #expect(direct.status == 404)
        try checkErrorShape(direct, context: version)
        let composite = await org.call(
            "POST", "/services/data/v59.0/composite",
            body: #"{"compositeRequest":[{"method":"GET","url":"/services/data/\#(version)/limits","referenceId":"a"}]}"#)
        #expect(composite.status == 200 && composite.bodyText.contains(#""httpStatusCode":404"#), "\(composite.bodyText)")
        let soap = await org.api.handle(
            APIRequest(
                method: "POST", path: "/services/Soap/u/\(version.dropFirst())", body: Array("<x/>".utf8),
                baseURL: TestOrg.baseURL))
        #expect(soap.status == 500 && soap.bodyText.contains("UNSUPPORTED_API_VERSION"))
    }
}
