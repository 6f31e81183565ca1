import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

@Suite struct SearchTests {
    func search(_ org: TestOrg, _ sosl: String, version: String = "59.0") async throws -> (Int, JSONValue) {
        let encoded = sosl.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let response = await org.call("GET", "/services/data/v\(version)/search/?q=\(encoded)")
        return (response.status, try JSONParser.parse(response.body))
    }

    func names(_ body: JSONValue) -> [String] {
        body["searchRecords"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } ?? []
    }

    @Test func findsWordsInTheScopeAndReturnsTheListedObjects() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let acme = try await org.create("Account", #"{"Name":"Acme Müller","Phone":"+49 30 1234"}"#)
        _ = try await org.create("Contact", #"{"FirstName":"Anna","LastName":"Müller","Email":"anna@acme.example","AccountId":"\#(acme)"}"#)
        _ = try await org.create("Contact", #"{"FirstName":"Bo","LastName":"Berg","Title":"Müller fan"}"#)
        _ = try await org.create("Contact", #"{"FirstName":"Cy","LastName":"100% Berg"}"#)

        var (status, body) = try await search(org, "FIND {Müller} IN NAME FIELDS RETURNING Account(Name), Contact(Name ORDER BY Name)")
        #expect(status == 200)
        #expect(names(body) == ["Acme Müller", "Anna Müller"])
        #expect(body["searchRecords"]?.arrayValue?.first?["attributes"]?["type"] == "Account")
        (_, body) = try await search(org, "FIND {Müller} IN ALL FIELDS RETURNING Contact(Name ORDER BY Name)")
        #expect(names(body) == ["Anna Müller", "Bo Berg"])
        (_, body) = try await search(org, "FIND {MÜLLER} IN NAME FIELDS RETURNING Contact(Name)")
        #expect(names(body) == ["Anna Müller"])  // case folded beyond ASCII
        (_, body) = try await search(org, "FIND {acme.example} IN EMAIL FIELDS RETURNING Contact(Name), Account(Name)")
        #expect(names(body) == ["Anna Müller"])
        (_, body) = try await search(org, "FIND {Ber*} RETURNING Contact(Name WHERE FirstName = 'Bo')")
        #expect(names(body) == ["Bo Berg"])
        (_, body) = try await search(org, "FIND {100%} RETURNING Contact(Name)")
        #expect(names(body) == ["Cy 100% Berg"])  // % is literal in a search term
        (_, body) = try await search(org, "FIND {\"Anna Müller\" OR Cy} RETURNING Contact(Name ORDER BY Name)")
        #expect(names(body) == ["Anna Müller", "Cy 100% Berg"])
        (_, body) = try await search(org, "FIND {\"Müller Anna\"} RETURNING Contact(Name)")
        #expect(names(body).isEmpty)  // a phrase keeps its word order
        (_, body) = try await search(org, "FIND {Müller Anna} RETURNING Contact(Name)")
        #expect(names(body) == ["Anna Müller"])  // words in any order
        (_, body) = try await search(org, "FIND {Berg} RETURNING Contact(Name ORDER BY Name) LIMIT 1")
        #expect(names(body).count == 1)
        (_, body) = try await search(org, "FIND {Müller}")
        #expect(body["searchRecords"]?.arrayValue?.count == 3)  // every object, Id only
        (_, body) = try await search(org, "FIND {Müller} RETURNING Contact(Name)", version: "35.0")
        #expect(body.arrayValue?.count == 2)

        let parameterized = await org.call("GET", "/services/data/v59.0/parameterizedSearch/?q=Berg&sobject=Contact&Contact.fields=Name,Email&Contact.limit=5")
        #expect(try JSONParser.parse(parameterized.body)["searchRecords"]?.arrayValue?.count == 2)
    }

    @Test(arguments: [
        "FIND Müller", "FIND {Müller", "FIND {a}", "FIND {ab} IN NOWHERE FIELDS", "FIND {ab} RETURNING Widget(Name)",
        "FIND {ab} RETURNING Contact(Bogus)", "FIND {ab} RETURNING Contact(Name WHERE)", "SELECT Id FROM Contact",
    ])
    func badSearchesGetSalesforceErrors(sosl: String) async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let (status, body) = try await search(org, sosl)
        #expect(status == 400)
        #expect(body.firstErrorCode != nil)
    }
}
