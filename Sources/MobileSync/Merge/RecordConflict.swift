import ForceJSON

/// A record's `__conflict__`, as stored: the server's copy when the conflict was found (`nil`: the
/// server had deleted the record), the fields both sides changed to different values with their
/// earlier base, and when. A conflict without fields is about the whole record: deleted on one
/// side and changed on the other (or one stored by a forceterm that kept no fields; its fields are
/// then the ones that differ).
public struct RecordConflict: Sendable, Equatable {
    public var server: JSONObject?
    /// `nil`: the whole record.
    public var fields: [String]?
    /// The base each conflicting field had before the server's change was seen; a field missing
    /// here had no known base.
    public var base: JSONObject
    public var detectedAt: Int64

    public init(server: JSONObject?, fields: [String]? = nil, base: JSONObject? = nil, detectedAt: Int64) {
        self.server = server
        self.fields = fields
        self.base = base ?? [:]
        self.detectedAt = detectedAt
    }

    public init?(_ value: JSONValue?) {
        guard let value, !value.isNull else { return nil }
        server = value["server"]?.objectValue
        fields = value["fields"]?.arrayValue?.compactMap(\.stringValue)
        base = value["base"]?.objectValue ?? [:]
        detectedAt = value["detectedAt"]?.int64Value ?? 0
    }

    public var json: JSONValue {
        var object: JSONObject = ["server": server.map { .object($0) } ?? .null, "detectedAt": .int(detectedAt)]
        if let fields {
            object["fields"] = JSONFields.strings(fields)
            object["base"] = .object(base)
        }
        return .object(object)
    }
}
