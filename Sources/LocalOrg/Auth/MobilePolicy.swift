import ForceJSON

extension OrgSettings {
    /// A connected app's mobile policy, as Salesforce sends it with the identity of a user signed in
    /// through that app: the passcode's least length and the idle minutes before the app locks.
    public struct MobilePolicy: Sendable, Equatable {
        public var pinLength: Int?
        public var screenLockMinutes: Int?
        public init(pinLength: Int? = nil, screenLockMinutes: Int? = nil) {
            self.pinLength = pinLength
            self.screenLockMinutes = screenLockMinutes
        }

        /// What a connected app's policy may say, as Salesforce's setup allows: for the error messages.
        public static let pinLengths = 4...64

        /// Nil when it is within what a policy may say, else what is wrong.
        public var problem: String? {
            if let pinLength, !Self.pinLengths.contains(pinLength) { return "the pin length is between 4 and 64 characters" }
            if let screenLockMinutes, screenLockMinutes < 1 { return "the screen lock is a number of minutes, at least 1" }
            return nil
        }

        /// nil when neither is set: the identity answer then has no `mobile_policy`.
        var json: JSONValue? {
            var object: JSONObject = [:]
            if let pinLength { object["pin_length"] = .int(Int64(pinLength)) }
            if let screenLockMinutes { object["screen_lock"] = .int(Int64(screenLockMinutes)) }
            return object.isEmpty ? nil : .object(object)
        }
    }

    /// The policy sent with the identity of a session signed in through `clientId`.
    func mobilePolicy(forClient clientId: String) -> MobilePolicy { connectedAppPolicies[clientId] ?? mobilePolicy }
}
