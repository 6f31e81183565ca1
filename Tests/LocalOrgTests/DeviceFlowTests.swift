import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

@Suite struct DeviceFlowTests {
    func post(_ org: TestOrg, _ path: String, form: String) async -> APIResponse {
        await org.api.handle(
            APIRequest(
                method: "POST", path: path, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(form.utf8), baseURL: TestOrg.baseURL))
    }

    @Test func salesforceDialectFromStartToTokens() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        // sfdx-core starts the flow with a multipart body.
        let boundary = "----localorgtest"
        let multipart =
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"response_type\"\r\n\r\ndevice_code\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"client_id\"\r\n\r\nforceterm\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"scope\"\r\n\r\nrefresh_token web api\r\n--\(boundary)--\r\n"
        let start = await org.api.handle(
            APIRequest(
                method: "POST", path: "/services/oauth2/token",
                headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"],
                body: Array(multipart.utf8), baseURL: TestOrg.baseURL))
        #expect(start.status == 200)
        let started = try JSONParser.parse(start.body)
        let deviceCode = try #require(started["device_code"]?.stringValue)
        let userCode = try #require(started["user_code"]?.stringValue)
        #expect(userCode.count == 8)
        #expect(started["verification_uri"] == "https://localhost:8443/setup/connect")
        #expect(started["interval"] == 5)

        let poll = "grant_type=device&client_id=forceterm&code=\(deviceCode)"
        let firstPoll = ContinuousClock.now
        var answer = try JSONParser.parse(await post(org, "/services/oauth2/token", form: poll).body)
        #expect(answer["error"] == "authorization_pending")
        answer = try JSONParser.parse(await post(org, "/services/oauth2/token", form: poll).body)
        // Polling again within the 5-second interval is slow_down. localorg counts whole seconds,
        // so only polls under 4 s apart are surely too fast; on a machine so loaded that they came
        // further apart, authorization_pending is right too.
        if ContinuousClock.now - firstPoll < .seconds(4) {
            #expect(answer["error"] == "slow_down")
        } else {
            #expect(answer["error"] == "slow_down" || answer["error"] == "authorization_pending")
        }

        // The verification page refuses a wrong password, then approves.
        let page = await org.api.handle(APIRequest(method: "GET", path: "/setup/connect", query: "user_code=\(userCode)", baseURL: TestOrg.baseURL))
        #expect(page.header("Content-Type") == "text/html;charset=UTF-8")
        #expect(page.bodyText.contains("value=\"\(userCode)\""))
        let wrong = await post(org, "/setup/connect", form: "user_code=\(userCode)&username=demo%40localorg.test&password=nope&action=approve")
        #expect(wrong.bodyText.contains("Wrong username or password."))
        let approved = await post(org, "/setup/connect", form: "user_code=\(userCode.lowercased())&username=demo%40localorg.test&password=localorg-demo&action=approve")
        #expect(approved.bodyText.contains("Device connected"))

        let tokens = await post(org, "/services/oauth2/token", form: "grant_type=urn:ietf:params:oauth:grant-type:device_code&client_id=forceterm&device_code=\(deviceCode)")
        #expect(tokens.status == 200)
        let body = try JSONParser.parse(tokens.body)
        #expect(body["refresh_token"]?.stringValue != nil)
        let accessToken = try #require(body["access_token"]?.stringValue)
        let use = await org.api.handle(APIRequest(method: "GET", path: "/services/data/v59.0/sobjects", headers: ["Authorization": "Bearer \(accessToken)"], baseURL: TestOrg.baseURL))
        #expect(use.status == 200)
        // A device code works once.
        answer = try JSONParser.parse(await post(org, "/services/oauth2/token", form: poll).body)
        #expect(answer["error"] == "invalid_grant")
    }

    @Test func deniedAndUnknownCodes() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let flow = DeviceAuthorization(store: org.store)
        let started = try await flow.start(clientId: "forceterm", scope: "api")
        let userId = try #require(try org.store.userId(username: "trainer@localorg.test"))
        #expect(try await flow.decide(userCode: "NOPE2345", userId: userId, approve: true) == false)
        #expect(try await flow.decide(userCode: started.userCode, userId: userId, approve: false))
        #expect(try await flow.decide(userCode: started.userCode, userId: userId, approve: true) == false)
        #expect(try await flow.poll(deviceCode: started.deviceCode, clientId: "forceterm") == .denied)
        #expect(try await flow.poll(deviceCode: "made-up", clientId: "forceterm") == .invalid)
        #expect(try await flow.poll(deviceCode: started.deviceCode, clientId: "other") == .invalid)
    }
}
