import ForceJSON

/// What the sync engine needs from Salesforce, and nothing more. ForceAPI's REST client adapts to
/// it; the engine never sees HTTP. Methods throw only for failures of the whole call (network,
/// session, limits, a refused envelope); a single record's refusal is a `RecordOutcome`.
public protocol SyncRemote: Sendable {
    /// `GET query?q=`: the first page. `batchSize` other than nil asks for that page size.
    func query(_ soql: String, batchSize: Int?) async throws(SyncRemoteError) -> RemoteQueryPage
    /// `GET <nextRecordsUrl>`: the following page.
    func queryMore(_ nextRecordsUrl: String) async throws(SyncRemoteError) -> RemoteQueryPage
    /// `GET search?q=`: the `searchRecords`.
    func search(_ sosl: String) async throws(SyncRemoteError) -> [JSONObject]
    /// `GET sobjects/<type>/`: the ids of `recentItems`, most recent first.
    func recentItemIds(sobjectType: String) async throws(SyncRemoteError) -> [String]
    /// `POST composite/sobjects/<type>` with `{ids, fields}` (at most 2000 ids): one entry per id,
    /// `nil` where the record does not exist.
    func retrieve(sobjectType: String, ids: [String], fields: [String]) async throws(SyncRemoteError) -> [JSONObject?]
    /// `GET connect/briefcase/priming-records`: one page of typed ids.
    func primingRecords(relayToken: String?, changedAfter: Int64?) async throws(SyncRemoteError) -> BriefcasePrimingPage
    /// `GET <path>` under the API version (`sobjects/Account/describe`, `ui-api/layout/Account`):
    /// a resource that is one JSON object, for the metadata and layout targets.
    func resource(_ path: String, query: [(String, String)]) async throws(SyncRemoteError) -> JSONObject
    /// As `resource`, asking the server to answer 304 when the resource still has tag `etag`
    /// (`If-None-Match`): a describe or a picklist answer unchanged since the last sync costs a
    /// header, not its body.
    func resource(_ path: String, query: [(String, String)], unlessTagged etag: String?) async throws(SyncRemoteError) -> RemoteResource
    /// Sends record writes the way `route` says and returns one outcome per write, in order.
    /// `.single` carries one write; `.composite` up to 25 (allOrNone false, preconditions as
    /// subrequest headers); `.collection` up to 200 writes of one kind (and one type for upserts).
    func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome]
    /// As `send`, telling the org's duplicate rules to let the records save (the user chose "save
    /// anyway" for them): `Sforce-Duplicate-Rule-Header: allowSave=true`.
    func send(_ writes: [RecordWrite], route: WriteRoute, allowingDuplicates: Bool) async throws(SyncRemoteError) -> [RecordOutcome]
    /// The signed-in user's id, when known: a lost create is looked for among the records this
    /// user created, not another user's with the same values.
    var signedInUserId: String? { get async }
}

/// A resource fetched on condition: its object and tag, or word that the tag asked about is still current.
public enum RemoteResource: Sendable, Equatable {
    case unchanged
    case object(JSONObject, etag: String?)
}

extension SyncRemote {
    /// For remotes that cannot ask conditionally: always the whole resource, untagged.
    public func resource(_ path: String, query: [(String, String)], unlessTagged etag: String?) async throws(SyncRemoteError) -> RemoteResource {
        .object(try await resource(path, query: query), etag: nil)
    }

    public var signedInUserId: String? { get async { nil } }

    /// For remotes without duplicate rules: the writes as they are.
    public func send(_ writes: [RecordWrite], route: WriteRoute, allowingDuplicates: Bool) async throws(SyncRemoteError) -> [RecordOutcome] {
        try await send(writes, route: route)
    }
}

/// A record named by its id, with its name when known: a duplicate rule's match, a candidate for
/// a lost create.
public struct RecordReference: Sendable, Equatable {
    public var id: String
    public var name: String?

    public init(id: String, name: String? = nil) {
        self.id = id
        self.name = name
    }

    public init?(_ json: JSONValue) {
        guard let id = json["Id"]?.stringValue else { return nil }
        self.init(id: id, name: json["Name"]?.stringValue)
    }

    public var json: JSONValue { ["Id": .string(id), "Name": name.map(JSONValue.string) ?? .null] }

    /// "Ada Lovelace (003…)", or the id alone.
    public var label: String { name.map { "\($0) (\(id))" } ?? id }
}

/// One page of a SOQL query.
public struct RemoteQueryPage: Sendable, Equatable {
    public var totalSize: Int
    public var records: [JSONObject]
    public var nextRecordsUrl: String?

    public init(totalSize: Int, records: [JSONObject], nextRecordsUrl: String?) {
        self.totalSize = totalSize
        self.records = records
        self.nextRecordsUrl = nextRecordsUrl
    }
}

/// One page of briefcase priming records: ids by sObject type.
public struct BriefcasePrimingPage: Sendable, Equatable {
    public var idsByType: [String: [String]]
    public var relayToken: String?

    public init(idsByType: [String: [String]], relayToken: String?) {
        self.idsByType = idsByType
        self.relayToken = relayToken
    }
}

/// How a group of writes travels.
public enum WriteRoute: String, Sendable, Equatable {
    /// sObject Rows: one request per record.
    case single
    /// `POST composite`, up to 25 subrequests, each may carry If-Unmodified-Since.
    case composite
    /// sObject Collections, up to 200 records of one kind per request.
    case collection
}

/// One write of a sync up. `ifUnmodifiedSince` (epoch ms) makes it conditional: the server refuses
/// it (412) when the record changed after that time.
public enum RecordWrite: Sendable, Equatable {
    case create(sobjectType: String, fields: JSONObject)
    case upsert(sobjectType: String, externalIdField: String, externalId: String, fields: JSONObject)
    case update(sobjectType: String, id: String, fields: JSONObject, ifUnmodifiedSince: Int64?)
    case delete(sobjectType: String, id: String, ifUnmodifiedSince: Int64?)

    public var sobjectType: String {
        switch self {
        case let .create(type, _), let .upsert(type, _, _, _), let .update(type, _, _, _), let .delete(type, _, _): type
        }
    }

    public var isConditional: Bool {
        switch self {
        case .update(_, _, _, .some), .delete(_, _, .some): true
        default: false
        }
    }
}

/// What happened to one write.
public enum RecordOutcome: Sendable, Equatable {
    /// Done; the record's id (the new one for creates and upserts).
    case success(id: String?)
    /// The record does not exist (404, ENTITY_IS_DELETED, INVALID_CROSS_REFERENCE_KEY on its id).
    case notFound
    /// The precondition failed: the record changed on the server since the given time (412).
    case preconditionFailed
    /// Refused, with Salesforce's errors.
    case failed([RecordError])
}

/// One Salesforce error of a record: `{"errorCode", "message", "fields"}`.
public struct RecordError: Sendable, Equatable, Error {
    public var errorCode: String
    public var message: String
    public var fields: [String]
    /// `DUPLICATES_DETECTED`: the records the org's duplicate rule matched.
    public var duplicates: [RecordReference]

    public init(errorCode: String, message: String, fields: [String] = [], duplicates: [RecordReference] = []) {
        self.errorCode = errorCode
        self.message = message
        self.fields = fields
        self.duplicates = duplicates
    }

    public var json: JSONValue {
        var object: JSONObject = ["errorCode": .string(errorCode), "message": .string(message), "fields": JSONFields.strings(fields)]
        if !duplicates.isEmpty { object["duplicates"] = .array(duplicates.map(\.json)) }
        return .object(object)
    }
}

extension RecordError {
    /// The errors a record's `__last_error__` holds: `[{"errorCode", "message", "fields",
    /// "duplicates"}]` as JSON text (the SDK keeps the org's answer so) or as JSON; plain text is
    /// one error without a code.
    public static func stored(_ value: JSONValue?) -> [RecordError] {
        guard let value, !value.isNull else { return [] }
        var parsed = value
        if let text = value.stringValue {
            guard let json = try? JSONParser.parse(Array(text.utf8)), json.arrayValue != nil || json.objectValue != nil else {
                return text.isEmpty ? [] : [RecordError(errorCode: "", message: text)]
            }
            parsed = json
        }
        return (parsed.arrayValue ?? [parsed]).map { item in
            RecordError(
                errorCode: item["errorCode"]?.stringValue ?? item["statusCode"]?.stringValue ?? "",
                message: item["message"]?.stringValue ?? item.stringValue ?? "",
                fields: item["fields"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                duplicates: item["duplicates"]?.arrayValue?.compactMap(RecordReference.init) ?? [])
        }
    }
}

/// A failure of a whole remote call; the engine acts on its kind.
public enum SyncRemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection, timeout, reset: try again later. Fails the sync; done records stay done.
    /// `requestMayHaveArrived`: the request left on a connection that then stalled or broke, so
    /// the server may have applied it (unlike a refused connection or an unknown host).
    case offline(String, requestMayHaveArrived: Bool = false)
    /// The server was reached but its certificate is not trusted (or TLS failed): retrying will not
    /// help. Fails the sync; done records stay done.
    case untrusted(String)
    /// The sync was cancelled (the user quit, the process is stopping).
    case cancelled
    /// The session expired and could not be refreshed: sign in again.
    case sessionExpired
    /// The org's API request limit is used up.
    case apiLimitExceeded(String)
    /// Any other refusal of the whole call (an envelope error, a 5xx).
    case server(status: Int, errorCode: String, message: String)
    /// The answer was not what the API documents.
    case malformedResponse(String)

    public var description: String {
        switch self {
        // A refusal comes from a machine the network reached: it is the server, not the network.
        case let .offline(detail, _) where detail.contains("connection refused"):
            "cannot connect to Salesforce (\(detail)); sync again once it is"
        case let .offline(detail, _): "cannot reach Salesforce (\(detail)); check the network and sync again"
        case let .untrusted(detail):
            "no trusted connection to Salesforce (\(detail)); if the server's certificate changed (a localorg set up again), forceterm login shows its new fingerprint to check; else check the system clock, a proxy that intercepts TLS, or pass the server's CA with --cacert"
        case .cancelled: "the sync was cancelled; local changes stay queued"
        case .sessionExpired: "the Salesforce session has expired; run `forceterm login` and sync again"
        case let .apiLimitExceeded(detail): "the org's API request limit is used up (\(detail)); sync again later"
        case let .server(status, code, message): "Salesforce refused the request (\(status) \(code)): \(message)"
        case let .malformedResponse(detail): "unexpected answer from Salesforce: \(detail)"
        }
    }
}
