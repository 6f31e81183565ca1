import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

@testable import LocalOrg

@Suite struct SOAPLoginTests {
    func envelope(username: String, password: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8" ?><env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/">
        <env:Body><n1:login xmlns:n1="urn:partner.soap.sforce.com"><n1:username>\(username)</n1:username>
        <n1:password>\(password)</n1:password></n1:login></env:Body></env:Envelope>
        """
    }

    func login(_ org: TestOrg, _ body: String, version: String = "59.0") async -> APIResponse {
        await org.api.handle(
            APIRequest(
                method: "POST", path: "/services/Soap/u/\(version)", headers: ["Content-Type": "text/xml", "SOAPAction": "login"],
                body: Array(body.utf8), baseURL: TestOrg.baseURL))
    }

    @Test func loginAnswersWithASessionTheRESTAPIAccepts() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let response = await login(org, envelope(username: "demo@localorg.test", password: "localorg-demo"))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/xml;charset=UTF-8")
        let session = try #require(LocalOrgAPI.xmlElementText(response.bodyText, named: "sessionId"))
        #expect(LocalOrgAPI.xmlElementText(response.bodyText, named: "serverUrl")?.hasPrefix("https://localhost:8443/services/Soap/u/59.0/00D") == true)
        #expect(LocalOrgAPI.xmlElementText(response.bodyText, named: "userName") == "demo@localorg.test")
        let rest = await org.api.handle(APIRequest(method: "GET", path: "/services/data/v59.0/limits", headers: ["Authorization": "Bearer \(session)"], baseURL: TestOrg.baseURL))
        #expect(rest.status == 200)
    }

    @Test func badCredentialsAndRetiredVersionsGetFaults() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let wrong = await login(org, envelope(username: "demo@localorg.test", password: "nope"))
        #expect(wrong.status == 500)
        #expect(LocalOrgAPI.xmlElementText(wrong.bodyText, named: "exceptionCode") == "INVALID_LOGIN")
        #expect(wrong.bodyText.contains("<sf:exceptionCode>INVALID_LOGIN</sf:exceptionCode>"))
        let retired = await login(org, envelope(username: "demo@localorg.test", password: "localorg-demo"), version: "65.0")
        #expect(LocalOrgAPI.xmlElementText(retired.bodyText, named: "exceptionCode") == "INVALID_OPERATION")
        #expect(await login(org, "not xml at all").status == 500)
    }

    @Test func xmlTextIsUnescaped() {
        #expect(LocalOrgAPI.xmlElementText("<a:password>p&amp;ss&lt;&#233;&#x41;</a:password>", named: "password") == "p&ss<éA")
        #expect(LocalOrgAPI.xmlElementText("<usernameX>x</usernameX><username/>", named: "username") == nil)
    }
}

extension SOAPLoginTests {
    /// The local names of the elements inside `<userInfo>`.
    static func userInfoElements(_ xml: String) -> Set<String> {
        guard let start = xml.range(of: "<userInfo>"), let end = xml.range(of: "</userInfo>") else { return [] }
        var names = Set<String>()
        for piece in xml[start.upperBound..<end.lowerBound].split(separator: "<") where !piece.hasPrefix("/") {
            let name = piece.prefix { $0.isLetter || $0.isNumber }
            if !name.isEmpty { names.insert(String(name)) }
        }
        return names
    }

    @Test(
        "The Postman collection's own SOAP login (values in CDATA) signs in, and userInfo has every element of Salesforce's recorded answer",
        .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"))
    func postmansSOAPLoginAsPublished() async throws {
        let collection = try JSONParser.parse(try Data(contentsOf: PostmanReplayTests.collection))
        var found: JSONValue?
        func walk(_ items: [JSONValue]) {
            for item in items {
                if let children = item["item"]?.arrayValue { walk(children) } else if item["name"]?.stringValue == "SOAP Login" { found = item }
            }
        }
        walk(collection["item"]?.arrayValue ?? [])
        let item = try #require(found, "the collection has its SOAP Login request")
        let body = try #require(item["request"]?["body"]?["raw"]?.stringValue)
        #expect(body.contains("<![CDATA["))
        let recorded = try #require(item["response"]?.arrayValue?.first?["body"]?.stringValue)
        let org = try await TestOrg()
        defer { org.remove() }
        let filled = body.replacingOccurrences(of: "{{username}}", with: "demo@localorg.test")
            .replacingOccurrences(of: "{{password}}", with: "localorg-demo").replacingOccurrences(of: "{{secretToken}}", with: "")
        let response = await login(org, filled, version: "53.0")
        #expect(response.status == 200, "\(response.bodyText)")
        let missing = Self.userInfoElements(recorded).subtracting(Self.userInfoElements(response.bodyText))
        #expect(Self.userInfoElements(recorded).count > 20 && missing.isEmpty, "missing from userInfo: \(missing.sorted())")
        #expect(LocalOrgAPI.xmlElementText("<p><![CDATA[a<b]]>&amp;<![CDATA[]]>c</p>", named: "p") == "a<b&c")
    }
}
