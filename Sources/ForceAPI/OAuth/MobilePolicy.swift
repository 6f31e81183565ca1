import ForceJSON

/// The connected app's mobile policy, as the identity service sends it (`mobile_policy`) when the
/// org's admin set one: how long a passcode must be, and after how many idle minutes the app locks.
public struct MobilePolicy: Sendable, Equatable {
    public var pinLength: Int?
    public var screenLockMinutes: Int?

    public init(pinLength: Int? = nil, screenLockMinutes: Int? = nil) {
        self.pinLength = pinLength
        self.screenLockMinutes = screenLockMinutes
    }

    /// From the identity answer's `mobile_policy` object; numbers may come as numbers or as text.
    /// nil when it is absent or says nothing usable.
    public init?(json: JSONValue?) {
        guard let json, case .object = json else { return nil }
        func positive(_ key: String) -> Int? {
            let number = json[key]?.int64Value.map { Int(clamping: $0) } ?? json[key]?.stringValue.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return number.flatMap { $0 > 0 ? $0 : nil }
        }
        pinLength = positive("pin_length")
        screenLockMinutes = positive("screen_lock")
        if pinLength == nil && screenLockMinutes == nil { return nil }
    }

    /// The identity service's form, also kept in `credentials.json`.
    public var json: JSONValue {
        var object: JSONObject = [:]
        if let pinLength { object["pin_length"] = .int(Int64(pinLength)) }
        if let screenLockMinutes { object["screen_lock"] = .int(Int64(screenLockMinutes)) }
        return .object(object)
    }
}
