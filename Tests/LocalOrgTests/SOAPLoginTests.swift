import ForceJSON
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
        await org.api.handle(APIRequest(method: "POST", path: "/services/Soap/u/\(version)", headers: ["Content-Type": "text/xml", "SOAPAction": "login"],
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
