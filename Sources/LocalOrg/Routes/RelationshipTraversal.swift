import ForceJSON
import GRDB

extension LocalOrgAPI {
    /// One step of a friendly URL (`sobjects/T/{id}/{relationship}`): up a lookup to its parent
    /// (`Contact/{id}/Account`), or down to the children of a child relationship
    /// (`Account/{id}/Contacts`).
    enum RelationshipStep: Sendable {
        case parent(lookup: FieldDefinition, object: ObjectDefinition)
        case children(lookup: FieldDefinition, object: ObjectDefinition)
    }

    /// Where a traversal ends: one record, or the child records of one record.
    enum TraversalTarget: Sendable {
        case record(ObjectDefinition, id: String)
        case children(ObjectDefinition, lookup: FieldDefinition, parentId: String)
    }

    /// The relationship `name` names on `object` (case-insensitively, as Salesforce's URLs are),
    /// or nil when it names none.
    func relationshipStep(from object: ObjectDefinition, named name: String) -> RelationshipStep? {
        let wanted = name.lowercased()
        if let lookup = object.fields.first(where: { $0.relationshipName?.lowercased() == wanted }),
            let parent = lookup.referenceTo.flatMap({ schema.object(named: $0) })
        {
            return .parent(lookup: lookup, object: parent)
        }
        for relationship in schema.childRelationships(of: object.name) where relationship.relationshipName.lowercased() == wanted {
            if let child = schema.object(named: relationship.childObject), let lookup = child.field(named: relationship.field) {
                return .children(lookup: lookup, object: child)
            }
        }
        return nil
    }

    /// `sobjects/T/{id}/{relationship}[/{relationship}…]`: child-to-parent steps in any number,
    /// then at most one parent-to-child step, last. A parent answers as a record GET does (and
    /// PATCH and DELETE change it); children answer as a query does. A relationship the object
    /// lacks, an empty lookup, or a record that is not there is NOT_FOUND, as in Salesforce.
    func traverseRelationships(_ object: ObjectDefinition, id idText: String, path: [String], context: DataContext) async throws -> APIResponse {
        // Friendly URLs came with v36.0; before it Salesforce has no such URL.
        guard context.apiVersion(atLeast: 36) else { throw APIError.resourceNotFound }
        guard let id = SalesforceId.canonical(idText), SalesforceId.keyPrefix(of: id) == object.keyPrefix else {
            throw APIError.resourceNotFound
        }
        var steps: [RelationshipStep] = []
        var current = object
        for (index, name) in path.enumerated() {
            guard let step = relationshipStep(from: current, named: name) else { throw APIError.resourceNotFound }
            switch step {
            case let .parent(_, parent): current = parent
            case .children:
                // Salesforce traverses one parent-to-child level, at the end of the path.
                guard index == path.count - 1 else { throw APIError.resourceNotFound }
            }
            steps.append(step)
        }
        let resolvedSteps = steps
        let owner = context.visibleOwner
        switch context.method {
        case "GET", "HEAD":
            let target = try await store.read { db in try self.resolveTraversal(from: object, id: id, steps: resolvedSteps, visibleTo: owner, db: db) }
            switch target {
            case let .record(parent, parentId):
                return try await store.read { db in try self.perform(.read(id: parentId), object: parent, context: context, db: db) }
            case let .children(child, lookup, parentId):
                return try await children(of: parentId, in: child, lookup: lookup, context: context)
            }
        case "PATCH", "DELETE":
            // Resolved in the write's own transaction, so the parent changed is the one the lookup names.
            return try await sessionWrite { db in
                guard case let .record(parent, parentId) = try self.resolveTraversal(from: object, id: id, steps: resolvedSteps, visibleTo: owner, db: db) else {
                    // Only child-to-parent relationships can be changed through a friendly URL.
                    throw APIError(status: 405, errorCode: "METHOD_NOT_ALLOWED", message: "HTTP Method '\(context.method)' not allowed. Allowed are GET")
                }
                let operation: RecordOperation = context.method == "PATCH" ? .update(id: parentId) : .delete(id: parentId)
                return try self.perform(operation, object: parent, context: context, db: db)
            }
        default:
            throw APIError(status: 405, errorCode: "METHOD_NOT_ALLOWED", message: "HTTP Method '\(context.method)' not allowed. Allowed are GET,PATCH,DELETE")
        }
    }

    /// Follows `steps` from a record, inside one read transaction.
    func resolveTraversal(
        from object: ObjectDefinition, id: String, steps: [RelationshipStep], visibleTo owner: String?,
        db: Database
    ) throws -> TraversalTarget {
        var current = (object: object, id: id)
        for step in steps {
            guard let record = try store.fetchRecord(db, object: current.object, id: current.id),
                try store.isVisible(db, record, object: current.object, to: owner)
            else { throw APIError.resourceNotFound }
            if record.isDeleted { throw APIError.entityIsDeleted }
            switch step {
            case let .parent(lookup, parent):
                // An empty lookup has no record to answer with.
                guard let parentId = String.fromDatabaseValue(record.values[lookup.name] ?? .null) else { throw APIError.resourceNotFound }
                current = (parent, parentId)
            case let .children(lookup, child):
                return .children(child, lookup: lookup, parentId: current.id)
            }
        }
        return .record(current.object, id: current.id)
    }

    /// The child records of one record, as a query result (`totalSize`, `done`, `records`, and
    /// `nextRecordsUrl` when there are more than a page), every field or those of `fields`.
    func children(of parentId: String, in child: ObjectDefinition, lookup: FieldDefinition, context: DataContext) async throws -> APIResponse {
        let fields = try context.listedFields(of: child) ?? child.fields
        // Field names come from the schema and ids are canonical (alphanumeric): nothing to escape.
        let soql = "SELECT \(fields.map(\.name).joined(separator: ", ")) FROM \(child.name) WHERE \(lookup.name) = '\(parentId)'"
        let page = try await queries.query(
            soql, includeDeleted: false, batchSize: batchSize(context.request), userId: context.session.userId,
            visibleTo: context.visibleOwner, apiVersion: context.apiVersion)
        return .json(Self.queryResult(page, apiVersion: context.apiVersion))
    }
}
