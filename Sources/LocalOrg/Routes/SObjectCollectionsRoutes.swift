import ForceJSON
import Foundation
import GRDB

extension LocalOrgAPI {
    static let collectionLimit = 200
    static let retrieveLimit = 2000

    /// `/composite/sobjects`: create (POST), update (PATCH), delete (DELETE) and retrieve
    /// (GET or POST on `/composite/sobjects/T`), up to 200 records, optionally all-or-none.
    func compositeSObjects(_ context: DataContext, rest: [String]) async throws -> APIResponse {
        if let typeName = rest.first {
            guard let object = schema.object(named: typeName) else { return .error(.resourceNotFound) }
            if rest.count == 2 {
                try requireMethod(context.method, "PATCH")
                guard let field = object.field(named: rest[1]), field.externalId || field.idLookup, field.type != .id else {
                    throw APIError.externalIdFieldMissing(rest[1])
                }
                let body = try jsonObjectBody(context.request)
                guard let records = body["records"]?.arrayValue else {
                    throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "The records field is required")
                }
                guard records.count <= Self.collectionLimit else {
                    throw APIError(status: 400, errorCode: "EXCEEDED_ID_LIMIT", message: "record limit reached. cannot submit more than \(Self.collectionLimit) records into this call")
                }
                return try await upsertMany(records, object: object, field: field, allOrNone: body["allOrNone"]?.boolValue ?? false, context: context)
            }
            guard rest.count == 1 else { return .error(.resourceNotFound) }
            try requireMethod(context.method, "GET", "POST")
            return try await retrieveMany(object, context: context)
        }
        switch context.method {
        case "POST", "PATCH":
            let body = try jsonObjectBody(context.request)
            guard let records = body["records"]?.arrayValue else {
                throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "The records field is required")
            }
            guard records.count <= Self.collectionLimit else {
                throw APIError(status: 400, errorCode: "EXCEEDED_ID_LIMIT", message: "record limit reached. cannot submit more than \(Self.collectionLimit) records into this call")
            }
            let allOrNone = body["allOrNone"]?.boolValue ?? false
            return try await saveMany(records, creating: context.method == "POST", allOrNone: allOrNone, context: context)
        case "DELETE":
            let items = context.request.queryItems
            let ids = (items["ids"] ?? "").split(separator: ",").map(String.init)
            guard !ids.isEmpty else { throw APIError(status: 400, errorCode: "MALFORMED_ID", message: "ids parameter is required") }
            guard ids.count <= Self.collectionLimit else {
                throw APIError(status: 400, errorCode: "EXCEEDED_ID_LIMIT", message: "record limit reached. cannot submit more than \(Self.collectionLimit) records into this call")
            }
            return try await deleteMany(ids, allOrNone: items["allOrNone"] == "true", context: context)
        default:
            try requireMethod(context.method, "POST", "PATCH", "DELETE")
            return .empty(405)
        }
    }

    /// What one record of a collection will do, decided before the transaction starts.
    private enum PlannedWrite {
        case insert(ObjectDefinition, [String: DatabaseValue])
        case update(ObjectDefinition, String, [String: DatabaseValue])
        case failed(APIError)
    }

    func saveMany(_ records: [JSONValue], creating: Bool, allOrNone: Bool, context: DataContext) async throws -> APIResponse {
        let plans: [PlannedWrite] = records.map { record in
            do {
                guard var body = record.objectValue else { throw APIError.jsonParser("each record must be a JSON object") }
                guard let typeName = body["attributes"]?["type"]?.stringValue, let object = schema.object(named: typeName) else {
                    throw APIError(status: 400, errorCode: "INVALID_TYPE", message: "sObject type is required in attributes")
                }
                try checkWriteAccess(object, context: context)
                if creating {
                    if body["Id"] != nil || body["id"] != nil {
                        throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "cannot specify Id in an insert call", fields: ["Id"])
                    }
                    return .insert(object, try RecordValidator.values(for: object, body: body, mode: .create, access: context.fieldAccess))
                }
                let idText = (body.removeValue(forKey: "Id") ?? body.removeValue(forKey: "id"))?.stringValue
                guard let idText else {
                    throw APIError(status: 400, errorCode: "MISSING_ARGUMENT", message: "Id not specified in an update call", fields: [])
                }
                guard let id = SalesforceId.canonical(idText), SalesforceId.keyPrefix(of: id) == object.keyPrefix else {
                    throw APIError(status: 400, errorCode: "MALFORMED_ID", message: "\(object.label) ID: id value of incorrect type: \(idText)", fields: ["Id"])
                }
                return .update(object, id, try RecordValidator.values(for: object, body: body, mode: .update, access: context.fieldAccess))
            } catch let error as APIError {
                return .failed(error)
            } catch {
                return .failed(APIError(status: 500, errorCode: "UNKNOWN_EXCEPTION", message: "\(error)"))
            }
        }
        let userId = context.session.userId
        let now = OrgStore.now()
        let outcomes: [Result<String, APIError>]
        do {
            outcomes = try await writePlans(
                plans, allOrNone: allOrNone, userId: userId, now: now, visibleTo: context.visibleOwner,
                saving: context.saveRules)
        } catch let rollback as AllOrNoneRollback {
            return .json(.array(rollback.rolledBackResults))
        }
        return .json(.array(outcomes.map(collectionResult)))
    }

    private func writePlans(
        _ plans: [PlannedWrite], allOrNone: Bool, userId: String, now: Int64, visibleTo owner: String?,
        saving: SaveRules
    ) async throws -> [Result<String, APIError>] {
        let store = self.store
        return try await writeEach(plans, allOrNone: allOrNone, id: { $0 }) { plan, db in
            switch plan {
            case .insert(let object, var values):
                return try store.insertRow(db, object: object, values: &values, actingUserId: userId, now: now, visibleTo: owner, saving: saving)
            case let .update(object, id, values):
                try store.updateRow(db, object: object, id: id, values: values, actingUserId: userId, now: now, visibleTo: owner, saving: saving)
                return id
            case let .failed(error):
                throw error
            }
        }
    }

    /// Writes each item of a collection in its own savepoint of one transaction, so a failure
    /// undoes only that record; with `allOrNone`, any failure rolls back all of them
    /// (`AllOrNoneRollback`, carrying each record's outcome).
    func writeEach<Item: Sendable, Value: Sendable>(
        _ items: [Item], allOrNone: Bool, id: @escaping @Sendable (Value) -> String,
        _ write: @escaping @Sendable (Item, Database) throws -> Value
    ) async throws -> [Result<Value, APIError>] {
        try await sessionWrite { db -> [Result<Value, APIError>] in
            var outcomes: [Result<Value, APIError>] = []
            for item in items {
                var outcome: Result<Value, APIError> = .failure(.resourceNotFound)
                try db.inRecordSavepoint {
                    do {
                        outcome = .success(try write(item, db))
                        return .commit
                    } catch let error as APIError {
                        outcome = .failure(Self.collectionError(error))
                        return .rollback
                    }
                }
                outcomes.append(outcome)
            }
            if allOrNone, outcomes.contains(where: { if case .failure = $0 { return true } else { return false } }) {
                throw AllOrNoneRollback(outcomes: outcomes.map { $0.map(id) })
            }
            return outcomes
        }
    }

    /// `PATCH /composite/sobjects/T/Field`: each record updates the one record whose `Field` holds
    /// its value, or creates one; answers carry `created`. A record without `attributes` fails
    /// alone with `JSON_PARSER_ERROR`, as Salesforce's does.
    func upsertMany(
        _ records: [JSONValue], object: ObjectDefinition, field: FieldDefinition, allOrNone: Bool,
        context: DataContext
    ) async throws -> APIResponse {
        try checkWriteAccess(object, context: context)
        let userId = context.session.userId
        let owner = context.visibleOwner
        let access = context.fieldAccess
        let saving = context.saveRules
        let now = OrgStore.now()
        let store = self.store
        do {
            let outcomes = try await writeEach(records, allOrNone: allOrNone, id: { $0.id }) { record, db in
                try Self.upsertOne(
                    record, object: object, field: field, store: store, db: db,
                    userId: userId, access: access, now: now, owner: owner, saving: saving)
            }
            return .json(
                .array(
                    outcomes.map { outcome in
                        switch outcome {
                        case let .success(result): return ["id": .string(result.id), "success": true, "errors": [], "created": .bool(result.created)]
                        case let .failure(error): return ["success": false, "errors": [error.collectionEntry]]
                        }
                    }))
        } catch let rollback as AllOrNoneRollback {
            return .json(.array(rollback.rolledBackResults))
        }
    }

    private static func upsertOne(
        _ record: JSONValue, object: ObjectDefinition, field: FieldDefinition, store: OrgStore, db: Database,
        userId: String, access: FieldAccess, now: Int64, owner: String?,
        saving: SaveRules
    ) throws -> (id: String, created: Bool) {
        guard var body = record.objectValue else { throw APIError.jsonParser("each record must be a JSON object") }
        guard let type = body["attributes"]?["type"]?.stringValue else {
            throw APIError(status: 400, errorCode: "JSON_PARSER_ERROR", message: "Missing attributes for the record: each record needs \"attributes\": {\"type\": \"\(object.name)\"}")
        }
        guard type.caseInsensitiveCompare(object.name) == .orderedSame else {
            throw APIError(status: 400, errorCode: "INVALID_TYPE", message: "The record's type \(type) is not \(object.name), the type this request upserts")
        }
        if body.keys.contains(where: { $0.caseInsensitiveCompare("Id") == .orderedSame }) {
            throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "Only external ids are supported; do not set Id on a record to upsert", fields: ["Id"])
        }
        let missing = APIError(status: 400, errorCode: "MISSING_ARGUMENT", message: "\(field.name) not specified", fields: [field.name])
        guard let key = body.first(where: { $0.key.caseInsensitiveCompare(field.name) == .orderedSame }) else { throw missing }
        let keyValue = try RecordValidator.convert(key.value, for: field)
        guard !keyValue.isNull else { throw missing }
        body.removeValue(forKey: "attributes")
        let matches = try store.ids(db, object, externalId: field, equals: keyValue, visibleTo: owner, limit: 2)
        if matches.count > 1 {
            throw APIError(
                status: 300, errorCode: "DUPLICATE_EXTERNAL_ID",
                message: "\(field.label): more than one record found for external id field: \(matches)", fields: [field.name])
        }
        if let id = matches.first {
            body.removeValue(forKey: key.key)
            let values = try RecordValidator.values(for: object, body: body, mode: .update, access: access)
            try store.updateRow(db, object: object, id: id, values: values, actingUserId: userId, now: now, visibleTo: owner, saving: saving)
            return (id, false)
        }
        var values = try RecordValidator.values(for: object, body: body, mode: .create, access: access)
        return (try store.insertRow(db, object: object, values: &values, actingUserId: userId, now: now, visibleTo: owner, saving: saving), true)
    }

    /// How a collection answers for one record: an id that names no record is
    /// `INVALID_CROSS_REFERENCE_KEY` there, not the `NOT_FOUND` of a single-record request.
    static func collectionError(_ error: APIError) -> APIError {
        guard error.status == 404 && error.errorCode == "NOT_FOUND" else { return error }
        return APIError(status: 404, errorCode: "INVALID_CROSS_REFERENCE_KEY", message: "invalid cross reference id", fields: [])
    }

    func deleteMany(_ idTexts: [String], allOrNone: Bool, context: DataContext) async throws -> APIResponse {
        let userId = context.session.userId
        let now = OrgStore.now()
        let store = self.store
        let schema = self.schema
        let owner = context.visibleOwner
        let isAdmin = context.session.isAdmin
        let origin = context.scope?.changeOrigin
        do {
            let outcomes = try await writeEach(idTexts, allOrNone: allOrNone, id: { $0 }) { idText, db in
                guard let id = SalesforceId.canonical(idText), let object = schema.object(keyPrefix: SalesforceId.keyPrefix(of: id)) else {
                    throw APIError(status: 400, errorCode: "MALFORMED_ID", message: "malformed id \(idText)", fields: [])
                }
                if !object.hasOwner && !isAdmin { throw APIError.insufficientAccess }
                try store.deleteRow(db, object: object, id: id, actingUserId: userId, now: now, visibleTo: owner, origin: origin)
                return id
            }
            return .json(.array(outcomes.map(collectionResult)))
        } catch let rollback as AllOrNoneRollback {
            return .json(.array(rollback.rolledBackResults))
        }
    }

    func collectionResult(_ outcome: Result<String, APIError>) -> JSONValue {
        switch outcome {
        case let .success(id): return ["id": .string(id), "success": true, "errors": []]
        case let .failure(error): return ["success": false, "errors": [error.collectionEntry]]
        }
    }

    func retrieveMany(_ object: ObjectDefinition, context: DataContext) async throws -> APIResponse {
        var idTexts: [String]
        var fieldNames: [String]
        if context.method == "POST" {
            let body = try jsonObjectBody(context.request)
            idTexts = body["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
            fieldNames = body["fields"]?.arrayValue?.compactMap(\.stringValue) ?? []
        } else {
            let items = context.request.queryItems
            idTexts = (items["ids"] ?? "").split(separator: ",").map(String.init)
            fieldNames = (items["fields"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        guard !idTexts.isEmpty, !fieldNames.isEmpty else {
            throw APIError(status: 400, errorCode: "MALFORMED_QUERY", message: "ids and fields are required")
        }
        guard idTexts.count <= Self.retrieveLimit else {
            throw APIError(status: 400, errorCode: "EXCEEDED_ID_LIMIT", message: "record limit reached. cannot submit more than \(Self.retrieveLimit) records into this call")
        }
        let access = context.fieldAccess
        let fields = try fieldNames.map { name in
            guard let field = object.field(named: name), access.canRead(field, in: object) else {
                throw APIError(status: 400, errorCode: "INVALID_FIELD", message: "No such column '\(name)' on entity '\(object.name)'.")
            }
            return field
        }
        let ids = idTexts.map(SalesforceId.canonical)
        let found = try await store.records(object, ids: ids.compactMap { $0 }, visibleTo: context.visibleOwner)
        let results: [JSONValue] = ids.map { id in
            guard let id, let stored = found[id], !stored.isDeleted else { return .null }
            return RecordRenderer.record(stored, object: object, fields: fields, apiVersion: context.apiVersion)
        }
        return .json(.array(results))
    }
}

/// Thrown out of an all-or-none transaction so it rolls back; carries what each record did.
struct AllOrNoneRollback: Error {
    var outcomes: [Result<String, APIError>]

    /// Salesforce's answer: the failing records keep their errors, the others say they were rolled back.
    var rolledBackResults: [JSONValue] {
        outcomes.map { outcome in
            switch outcome {
            case let .failure(error): return ["success": false, "errors": [error.collectionEntry]]
            case .success:
                return [
                    "success": false,
                    "errors": [
                        [
                            "statusCode": "ALL_OR_NONE_OPERATION_ROLLED_BACK",
                            "message": "Record rolled back because not all records were valid and the request was using AllOrNone header",
                            "fields": [],
                        ]
                    ],
                ]
            }
        }
    }
}
