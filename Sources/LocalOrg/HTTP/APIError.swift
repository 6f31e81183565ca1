import ForceJSON

/// An error answered the way Salesforce answers it: an HTTP status and a
/// `[{"message":…,"errorCode":…,"fields":[…]}]` body (or, inside collections, `statusCode`).
public struct APIError: Error, Sendable, Equatable {
    public var status: Int
    public var errorCode: String
    public var message: String
    /// Omitted from the body when nil; Salesforce leaves it out for most non-field errors.
    public var fields: [String]?
    /// A duplicate rule's match results, sent as `duplicateResut` (sic) in a single-record answer.
    public var duplicateResult: JSONValue?

    public init(status: Int, errorCode: String, message: String, fields: [String]? = nil) {
        self.status = status
        self.errorCode = errorCode
        self.message = message
        self.fields = fields
    }

    /// The entry in a single-resource error array.
    public var jsonEntry: JSONValue {
        if let duplicateResult {
            // As every recorded answer has it: the key misspelled, keys in alphabetical order, no fields.
            return ["duplicateResut": duplicateResult, "errorCode": .string(errorCode), "message": .string(message)]
        }
        var entry: JSONObject = ["message": .string(message), "errorCode": .string(errorCode)]
        if let fields { entry["fields"] = .array(fields.map { .string($0) }) }
        return .object(entry)
    }

    /// The entry in a collection's `errors` array, which says `statusCode` instead of `errorCode`.
    public var collectionEntry: JSONValue {
        ["statusCode": .string(errorCode), "message": .string(message), "fields": .array((fields ?? []).map { .string($0) })]
    }

    static let resourceNotFound = APIError(status: 404, errorCode: "NOT_FOUND", message: "The requested resource does not exist")
    static let sessionInvalid = APIError(status: 401, errorCode: "INVALID_SESSION_ID", message: "Session expired or invalid")
    static let insufficientAccess = APIError(
        status: 400, errorCode: "INSUFFICIENT_ACCESS_OR_READONLY",
        message: "insufficient access rights on object id", fields: [])
    static let entityIsDeleted = APIError(status: 404, errorCode: "ENTITY_IS_DELETED", message: "entity is deleted", fields: [])

    static func externalIdFieldMissing(_ segment: String) -> APIError {
        APIError(status: 404, errorCode: "NOT_FOUND", message: "Provided external ID field does not exist or is not accessible: \(segment)")
    }

    /// A field name an object does not have, in a `fields` list.
    static func noSuchColumn(_ name: String, on object: ObjectDefinition) -> APIError {
        APIError(
            status: 400, errorCode: "INVALID_FIELD",
            message:
                "No such column '\(name)' on entity '\(object.name)'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names."
        )
    }

    static func jsonParser(_ detail: String) -> APIError {
        APIError(status: 400, errorCode: "JSON_PARSER_ERROR", message: detail)
    }

    static func malformedQuery(_ message: String) -> APIError {
        APIError(status: 400, errorCode: "MALFORMED_QUERY", message: message)
    }
}
