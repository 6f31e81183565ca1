import ForceJSON
import Testing

@testable import ForceAPI

@Suite("The connected app's mobile policy from the identity answer")
struct MobilePolicyTests {
    @Test func numbersOrTextAreReadAndNothingUsableIsNoPolicy() throws {
        #expect(MobilePolicy(json: ["pin_length": 6, "screen_lock": 10]) == MobilePolicy(pinLength: 6, screenLockMinutes: 10))
        #expect(MobilePolicy(json: ["pin_length": "4", "screen_lock": " 15"]) == MobilePolicy(pinLength: 4, screenLockMinutes: 15))
        #expect(MobilePolicy(json: ["screen_lock": 1]) == MobilePolicy(screenLockMinutes: 1))
        #expect(MobilePolicy(json: nil) == nil)
        #expect(MobilePolicy(json: .null) == nil)
        #expect(MobilePolicy(json: ["pin_length": 0, "screen_lock": "never"]) == nil)
        #expect(MobilePolicy(json: "10") == nil)
    }

    @Test func thePolicyIsKeptWithTheSavedSession() throws {
        let identity = UserIdentity(
            userId: "005A", organizationId: "00DA", username: "rep@example.com",
            mobilePolicy: MobilePolicy(pinLength: 8, screenLockMinutes: 5))
        let token = OAuthToken(accessToken: Secret("a"), refreshToken: Secret("r"), instanceURL: "https://x", identityURL: "https://x/id/00DA/005A")
        let credentials = OAuthCredentials(loginURL: "https://x", clientId: "forceterm", token: token, identity: identity)
        let again = try #require(OAuthCredentials(json: credentials.json))
        #expect(again.mobilePolicy == MobilePolicy(pinLength: 8, screenLockMinutes: 5))
        #expect(again == credentials)
    }
}
