import Crypto
import ForceJSON
import Foundation
import GRDB
import SalesforceTime

/// `/sobjects/T/…`: records by id and by external id, a user's password, the replication windows.
extension LocalOrgAPI {
    // MARK: Routing within /sobjects/T

    func routeSObject(_ context: DataContext, object: ObjectDefinition, rest: [String]) async throws -> APIResponse {
        let method = context.method
        switch rest.count {
        case 0 where method == "GET":
            return try await basicInfo(object, context: context)
        case 1 where rest[0].lowercased() == "describe":
            try requireMethod(method, "GET")
            return describe(object, context: context)
        case 1 where rest[0].lowercased() == "updated" || rest[0].lowercased() == "deleted":
            try requireMethod(method, "GET")
            return try await replication(object, context: context, deleted: rest[0].lowercased() == "deleted")
        case 2 where object.name == "User" && rest[1].lowercased() == "password":
            return try await userPassword(userId: rest[0], context: context)
        default:
            if let feature = UnservedFeature.matching(sobjectPath: rest) { return .error(feature.error) }
            // `{id}/{relationship}…`: a friendly URL (an external-id field name comes first otherwise).
            if rest.count >= 2, object.field(named: rest[0]) == nil, SalesforceId.isShapedLikeId(rest[0]) {
                return try await traverseRelationships(object, id: rest[0], path: Array(rest.dropFirst()), context: context)
            }
            let operation = try recordOperation(object, rest: rest, method: method)
            // Each record operation runs in one transaction (a read-only one for reads).
            if operation.isRead(method: method) {
                return try await store.read { db in try self.perform(operation, object: object, context: context, db: db) }
            }
            return try await sessionWrite { db in try self.perform(operation, object: object, context: context, db: db) }
        }
    }

    func basicInfo(_ object: ObjectDefinition, context: DataContext) async throws -> APIResponse {
        let recent = try await recentlyChanged(object, limit: 3, context: context)
        return .json(["objectDescribe": .object(sobjectSummary(object, apiVersion: context.apiVersion)), "recentItems": .array(recent.map(\.record))])
    }

    /// The user's most recently changed records of an object (localorg has no view tracking, so
    /// "recent" means last modified by this user), newest first.
    func recentlyChanged(_ object: ObjectDefinition, limit: Int, context: DataContext) async throws -> [(record: JSONValue, modified: Int64)] {
        let nameField = object.nameFieldName
        return try await store.recentlyChanged(object, byUser: context.session.userId, limit: limit).map { recent in
            var item: JSONObject = [
                "attributes": RecordRenderer.attributes(type: object.name, id: recent.id, apiVersion: context.apiVersion),
                "Id": .string(recent.id),
            ]
            if let nameField { item[nameField] = recent.name.map(JSONValue.string) ?? .null }
            return (.object(item), recent.modified)
        }
    }

    /// `/recent`: the user's recently changed records across objects (default 200).
    func recentItems(_ context: DataContext) async throws -> APIResponse {
        let limit = min(max(context.request.queryItems["limit"].flatMap(Int.init) ?? 200, 1), 200)
        var items: [(record: JSONValue, modified: Int64)] = []
        for object in schema.objects where object.hasOwner {
            items += try await recentlyChanged(object, limit: limit, context: context)
        }
        return .json(.array(items.sorted { $0.modified > $1.modified }.prefix(limit).map(\.record)))
    }

    // MARK: Records

    /// Parses a request body that must be a JSON object.
    func jsonObjectBody(_ request: APIRequest) throws -> JSONObject {
        let value: JSONValue
        do { value = try JSONParser.parse(request.body) } catch {
            throw APIError.jsonParser("Unexpected character at [line:1, column:\(error.offset + 1)]: \(error.message)")
        }
        guard let object = value.objectValue else {
            throw APIError.jsonParser("Cannot deserialize instance of SObject from a value that is not a JSON object")
        }
        return object
    }

    /// Objects without owners (User, Organization) are changed only by administrators.
    func checkWriteAccess(_ object: ObjectDefinition, context: DataContext) throws(APIError) {
        if !object.hasOwner && !context.session.isAdmin { throw APIError.insufficientAccess }
    }

    // MARK: Records, one transaction each

    /// What a path under `/sobjects/T` asks to do with records.
    enum RecordOperation: Sendable {
        case create
        case read(id: String)
        case update(id: String)
        case delete(id: String)
        case byExternalId(field: FieldDefinition, value: String)

        func isRead(method: String) -> Bool {
            switch self {
            case .read: return true
            case .byExternalId: return method == "GET"
            default: return false
            }
        }
    }

    /// Reads `rest` (the path after `/sobjects/T`) as a record operation, or throws the answer
    /// Salesforce gives for such a path.
    func recordOperation(_ object: ObjectDefinition, rest: [String], method: String) throws(APIError) -> RecordOperation {
        func byId(_ id: String) throws(APIError) -> RecordOperation {
            switch method {
            case "GET", "HEAD": return .read(id: id)
            case "PATCH": return .update(id: id)
            case "DELETE": return .delete(id: id)
            default: throw APIError(status: 405, errorCode: "METHOD_NOT_ALLOWED", message: "HTTP Method '\(method)' not allowed. Allowed are GET,PATCH,DELETE")
            }
        }
        switch rest.count {
        case 0:
            guard method == "POST" else { throw APIError(status: 405, errorCode: "METHOD_NOT_ALLOWED", message: "HTTP Method '\(method)' not allowed. Allowed are GET,POST") }
            return .create
        case 1:
            let segment = rest[0]
            guard let id = SalesforceId.canonical(segment), SalesforceId.keyPrefix(of: id) == object.keyPrefix else {
                // POST …/T/Id with no value creates, as the Android SDK's upsert without an external id does.
                if let field = object.field(named: segment), field.type == .id, method == "POST" { return .create }
                if SalesforceId.canonical(segment) != nil { throw APIError.resourceNotFound }
                if SalesforceId.isShapedLikeId(segment), segment.hasPrefix(object.keyPrefix) {
                    throw APIError(
                        status: 400, errorCode: "MALFORMED_ID",
                        message: "\(object.label) ID: id value of incorrect type: \(segment)", fields: ["Id"])
                }
                throw APIError.externalIdFieldMissing(segment)
            }
            return try byId(id)
        case 2:
            guard let field = object.field(named: rest[0]), field.idLookup || field.externalId else {
                throw APIError.externalIdFieldMissing(rest[0])
            }
            if field.type == .id, let id = SalesforceId.canonical(rest[1]) { return try byId(id) }
            return .byExternalId(field: field, value: rest[1])
        default:
            throw APIError.resourceNotFound
        }
    }

    /// Performs a record operation inside the caller's transaction; a thrown error rolls it back.
    func perform(_ operation: RecordOperation, object: ObjectDefinition, context: DataContext, db: Database) throws -> APIResponse {
        switch operation {
        case .create: return try create(object, context: context, db: db)
        case let .read(id): return try read(object, id: id, context: context, db: db)
        case let .update(id): return try update(object, id: id, context: context, db: db)
        case let .delete(id): return try delete(object, id: id, context: context, db: db)
        case let .byExternalId(field, value): return try byExternalId(object, field: field, value: value, context: context, db: db)
        }
    }

    func create(_ object: ObjectDefinition, context: DataContext, db: Database, body: JSONObject? = nil, upserted: Bool = false) throws -> APIResponse {
        try checkWriteAccess(object, context: context)
        guard object.createable else {
            throw APIError(status: 400, errorCode: "INVALID_TYPE_FOR_OPERATION", message: "entity type \(object.name) does not support insert")
        }
        var values = try RecordValidator.values(for: object, body: try body ?? jsonObjectBody(context.request), mode: .create, access: context.fieldAccess)
        let id = try store.insertRow(
            db, object: object, values: &values, actingUserId: context.session.userId, now: OrgStore.now(),
            visibleTo: context.visibleOwner, saving: context.saveRules)
        var result: JSONObject = ["id": .string(id), "success": true, "errors": []]
        // An upsert says `created` from v46.0, when it also began to answer updates with a body.
        if upserted, context.apiVersion(atLeast: 46) { result["created"] = true }
        var response = APIResponse.json(.object(result), status: 201)
        response.headers.append(("Location", "\(Self.sobjectPath(object, apiVersion: context.apiVersion))/\(id)"))
        return response
    }

    func read(_ object: ObjectDefinition, id: String, context: DataContext, db: Database) throws -> APIResponse {
        var selected = try context.listedFields(of: object)
        // The Id comes with the listed fields, asked for or not.
        if let idField = object.field(named: "Id"), selected?.contains(where: { $0.name == "Id" }) == false { selected?.append(idField) }
        guard let stored = try store.fetchRecord(db, object: object, id: id),
            try store.isVisible(db, stored, object: object, to: context.visibleOwner)
        else { throw APIError.resourceNotFound }
        if stored.isDeleted { throw APIError.entityIsDeleted }
        let etag = Self.entityTag(stored, object: object)
        if let etag, Self.matches(context.request.header("if-none-match"), etag) { return .empty(304) }
        if notModified(context.request, since: stored.lastModifiedDate) { return .empty(304) }
        var response = APIResponse.json(
            RecordRenderer.record(
                stored, object: object, fields: selected ?? context.fieldAccess.readableFields(of: object),
                apiVersion: context.apiVersion))
        response.headers.append(("Last-Modified", SalesforceDate.formatHTTPDate(stored.lastModifiedDate)))
        if let etag { response.headers.append(("ETag", etag)) }
        return response
    }

    /// `If-Unmodified-Since` as seconds; a value that is not an HTTP date is a 400, as in Salesforce.
    func ifUnmodifiedSince(_ request: APIRequest) throws -> Int64? {
        guard let header = request.header("if-unmodified-since") else { return nil }
        guard let date = SalesforceDate.parseHTTPDate(header) else {
            throw APIError(status: 400, errorCode: "INVALID_HEADER_TYPE", message: "Invalid If-Unmodified-Since header: \(header)")
        }
        return date
    }

    /// Salesforce sends entity tags for Account rows only. This one hashes every stored value, so
    /// it changes with any change, even two within the same second.
    static func entityTag(_ record: StoredRecord, object: ObjectDefinition) -> String? {
        guard object.name == "Account" else { return nil }
        var content: [UInt8] = []
        for field in object.fields {
            content += Array("\(field.name)=\(record.values[field.name] ?? .null)".utf8)
            content.append(0)
        }
        return "\"" + Data(SHA256.hash(data: content)).base64EncodedString() + "\""
    }

    /// Whether an `If-Match` / `If-None-Match` header names this tag (or is `*`).
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    func update(_ object: ObjectDefinition, id: String, context: DataContext, db: Database, body: JSONObject? = nil) throws -> APIResponse {
        try checkWriteAccess(object, context: context)
        if object.name == "Account", context.request.header("if-match") != nil || context.request.header("if-none-match") != nil,
            let current = try store.fetchRecord(db, object: object, id: id), let etag = Self.entityTag(current, object: object)
        {
            let ifMatch = context.request.header("if-match")
            if (ifMatch != nil && !Self.matches(ifMatch, etag)) || Self.matches(context.request.header("if-none-match"), etag) {
                throw APIError(status: 412, errorCode: "PRECONDITION_FAILED", message: "The entity tag of the record does not satisfy the request's If-Match / If-None-Match condition")
            }
        }
        let values = try RecordValidator.values(for: object, body: try body ?? jsonObjectBody(context.request), mode: .update, access: context.fieldAccess)
        try store.updateRow(
            db, object: object, id: id, values: values, actingUserId: context.session.userId, now: OrgStore.now(),
            ifUnmodifiedSince: try ifUnmodifiedSince(context.request), visibleTo: context.visibleOwner, saving: context.saveRules)
        return .empty(204)
    }

    func delete(_ object: ObjectDefinition, id: String, context: DataContext, db: Database) throws -> APIResponse {
        try checkWriteAccess(object, context: context)
        // "Conditional Request Headers" (REST API Developer Guide, current): "DELETE requests
        // aren't supported". A production org deletes whatever the record's date; a lenient
        // room can still check If-Unmodified-Since, as localorg did before.
        let since = context.rules.isOn(.deleteIgnoresPreconditions) ? nil : try ifUnmodifiedSince(context.request)
        try store.deleteRow(
            db, object: object, id: id, actingUserId: context.session.userId, now: OrgStore.now(),
            ifUnmodifiedSince: since, visibleTo: context.visibleOwner, origin: context.scope?.changeOrigin)
        return .empty(204)
    }

    /// GET, PATCH (upsert) and DELETE by an external-id field.
    func byExternalId(_ object: ObjectDefinition, field: FieldDefinition, value: String, context: DataContext, db: Database) throws -> APIResponse {
        let key = try RecordValidator.convert(.string(value), for: field)
        let matches = try store.ids(db, object, externalId: field, equals: key, visibleTo: context.visibleOwner, limit: 10)
        if matches.count > 1 {
            return .json(.array(matches.map { .string("\(Self.sobjectPath(object, apiVersion: context.apiVersion))/\($0)") }), status: 300)
        }
        switch context.method {
        case "GET":
            guard let id = matches.first else { throw APIError.resourceNotFound }
            return try read(object, id: id, context: context, db: db)
        case "DELETE":
            guard let id = matches.first else { throw APIError.resourceNotFound }
            return try delete(object, id: id, context: context, db: db)
        case "PATCH":
            var body = try jsonObjectBody(context.request)
            body.removeValue(forKey: field.name)
            if let id = matches.first {
                _ = try update(object, id: id, context: context, db: db, body: body)
                if !context.apiVersion(atLeast: 46) { return .empty(204) }
                var response = APIResponse.json(["id": .string(id), "success": true, "errors": [], "created": false], status: 200)
                response.headers.append(("Location", "\(Self.sobjectPath(object, apiVersion: context.apiVersion))/\(id)"))
                return response
            }
            if context.request.queryItems["updateOnly"] == "true" { throw APIError.resourceNotFound }
            body[field.name] = .string(value)
            return try create(object, context: context, db: db, body: body, upserted: true)
        default:
            throw APIError(status: 405, errorCode: "METHOD_NOT_ALLOWED", message: "HTTP Method '\(context.method)' not allowed. Allowed are GET,PATCH,DELETE")
        }
    }

    // MARK: Passwords

    /// `/sobjects/User/{id}/password`: GET tells whether it expired, POST sets a new one (204),
    /// DELETE resets it to a generated one. Users manage their own; admins anyone's.
    func userPassword(userId idText: String, context: DataContext) async throws -> APIResponse {
        guard let userId = SalesforceId.canonical(idText), let user = schema.object(named: "User"),
            try await store.record(user, id: userId) != nil
        else { throw APIError.resourceNotFound }
        guard context.session.isAdmin || context.session.userId == userId else { throw APIError.insufficientAccess }
        switch context.method {
        case "GET":
            return .json(["isExpired": false])
        case "POST":
            guard let password = try jsonObjectBody(context.request)["NewPassword"]?.stringValue else {
                throw APIError(status: 400, errorCode: "INVALID_NEW_PASSWORD", message: "NewPassword is required")
            }
            guard password.count >= 8 else {
                throw APIError(status: 400, errorCode: "INVALID_NEW_PASSWORD", message: "Your password must be at least 8 characters long.")
            }
            try await store.setPassword(userId: userId, password: password)
            return .empty(204)
        case "DELETE":
            let generated = base64URL(randomBytes(12))
            try await store.setPassword(userId: userId, password: generated)
            return .json(["NewPassword": .string(generated)])
        default:
            try requireMethod(context.method, "GET", "POST", "DELETE")
            return .empty(405)
        }
    }

    // MARK: Replication windows

    /// `/updated` and `/deleted`: ids changed in [start, end]; seconds are ignored, as in Salesforce.
    func replication(_ object: ObjectDefinition, context: DataContext, deleted: Bool) async throws -> APIResponse {
        let items = context.request.queryItems
        guard let startText = items["start"], let endText = items["end"],
            let start = SalesforceDate.parseDateTime(startText), let end = SalesforceDate.parseDateTime(endText)
        else {
            throw APIError(status: 400, errorCode: "INVALID_REPLICATION_DATE", message: "start and end must be dateTime values such as 2024-01-02T03:04:05+00:00")
        }
        guard start <= end else {
            throw APIError(status: 400, errorCode: "INVALID_REPLICATION_DATE", message: "startDate must chronologically precede endDate by more than one minute")
        }
        let windowStart = start - start % 60
        let windowEnd = min(end, OrgStore.now()) - min(end, OrgStore.now()) % 60
        let covered = JSONValue.string(SalesforceDate.formatDateTime(windowEnd))
        if deleted {
            let records = try await store.deletedRecords(object, start: windowStart, end: windowEnd - 1, visibleTo: context.visibleOwner)
            let organizationCreated = try await store.record(schema.object(named: "Organization") ?? object, id: await organizationId())?.values["CreatedDate"]
            return .json([
                "deletedRecords": .array(records.map { ["id": .string($0.id), "deletedDate": .string(SalesforceDate.formatDateTime($0.deletedAt))] }),
                "earliestDateAvailable": .string(SalesforceDate.formatDateTime(organizationCreated.flatMap(Int64.fromDatabaseValue) ?? 0)),
                "latestDateCovered": covered,
            ])
        }
        let ids = try await store.updatedIds(object, start: windowStart, end: windowEnd - 1, visibleTo: context.visibleOwner)
        return .json(["ids": .array(ids.map(JSONValue.string)), "latestDateCovered": covered])
    }
}
