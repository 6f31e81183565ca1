import ForceJSON

/// What a sync does with records changed on both sides.
public enum MergeMode: String, Sendable, Equatable, CaseIterable {
    /// Down: server values replace local ones, dirty or not. Up: writes go unconditionally.
    case overwrite = "OVERWRITE"
    /// Down: records with local changes are left alone. Up: each update or delete carries the last
    /// known modification time as a precondition, so a concurrent server edit becomes a conflict.
    case leaveIfChanged = "LEAVE_IF_CHANGED"
}

/// The `options` of a sync: `{"mergeMode": …, "fieldlist": […]}`, as the SDK writes them.
public struct SyncOptions: Sendable, Equatable {
    public var mergeMode: MergeMode
    /// The fields sync up sends when the target has no create/update field list.
    public var fieldlist: [String]?

    public init(mergeMode: MergeMode = .overwrite, fieldlist: [String]? = nil) {
        self.mergeMode = mergeMode
        self.fieldlist = fieldlist
    }

    public var json: JSONValue {
        var object: JSONObject = [:]
        if let fieldlist { object["fieldlist"] = .array(fieldlist.map { .string($0) }) }
        object["mergeMode"] = .string(mergeMode.rawValue)
        return .object(object)
    }

    /// Reads the SDK's options; a missing mergeMode means OVERWRITE (as on iOS), an unknown one is refused.
    public init(json: JSONValue?) throws(MobileSyncError) {
        guard let json, !json.isNull else {
            self.init()
            return
        }
        guard json.objectValue != nil else { throw .invalidConfig("options must be an object: \(json)") }
        var mode = MergeMode.overwrite
        if let raw = json["mergeMode"], !raw.isNull {
            guard let name = raw.stringValue, let parsed = MergeMode(rawValue: name) else {
                throw .invalidConfig("unknown mergeMode \(raw); use OVERWRITE or LEAVE_IF_CHANGED")
            }
            mode = parsed
        }
        self.init(mergeMode: mode, fieldlist: try JSONFields.stringList(json["fieldlist"], key: "fieldlist"))
    }
}

/// Small readers for the SDK's JSON shapes, with errors that name the key.
enum JSONFields {
    static func stringList(_ value: JSONValue?, key: String) throws(MobileSyncError) -> [String]? {
        guard let value, !value.isNull else { return nil }
        guard let items = value.arrayValue else { throw .invalidConfig("\"\(key)\" must be a list of field names") }
        var names: [String] = []
        for item in items {
            guard let name = item.stringValue else { throw .invalidConfig("\"\(key)\" must hold strings, found \(item)") }
            names.append(name)
        }
        return names
    }

    static func string(_ value: JSONValue?, key: String) throws(MobileSyncError) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalidConfig("\"\(key)\" must be a string, found \(value)") }
        return text
    }

    static func requiredString(_ value: JSONValue?, key: String, in what: String) throws(MobileSyncError) -> String {
        guard let text = try string(value, key: key), !text.isEmpty else {
            throw .invalidConfig("\(what) needs a \"\(key)\"")
        }
        return text
    }

    static func int(_ value: JSONValue?, key: String) throws(MobileSyncError) -> Int? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.int64Value else { throw .invalidConfig("\"\(key)\" must be a whole number, found \(value)") }
        return Int(number)
    }

    static func strings(_ names: [String]) -> JSONValue { .array(names.map { .string($0) }) }
}
