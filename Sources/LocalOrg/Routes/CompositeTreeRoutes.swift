import ForceJSON
import Foundation
import GRDB

/// `/composite/tree`: records with nested children, created in one all-or-nothing transaction.
extension LocalOrgAPI {
    /// `/composite/tree/T`: creates records with nested children in one all-or-nothing transaction.
    func compositeTree(_ object: ObjectDefinition, context: DataContext) async throws -> APIResponse {
        try requireMethod(context.method, "POST")
        try checkWriteAccess(object, context: context)
        let body = try jsonObjectBody(context.request)
        guard let records = body["records"]?.arrayValue, !records.isEmpty else {
            throw APIError(status: 400, errorCode: "INVALID_INPUT", message: "records is required")
        }
        /// One record to create: its type, values, reference id, and where its parent id goes.
        struct Node {
            var object: ObjectDefinition
            var referenceId: String
            var values: [String: DatabaseValue]
            var parentIndex: Int?
            var parentField: String?
        }
        var nodes: [Node] = []
        var failures: [JSONValue] = []
        func collect(_ list: [JSONValue], object: ObjectDefinition, parentIndex: Int?, parentField: String?, depth: Int) throws {
            guard depth <= 5 else { throw APIError(status: 400, errorCode: "INVALID_INPUT", message: "records can nest at most 5 levels") }
            for record in list {
                guard var fields = record.objectValue, let referenceId = fields["attributes"]?["referenceId"]?.stringValue else {
                    throw APIError(status: 400, errorCode: "INVALID_INPUT", message: "every record needs attributes.referenceId")
                }
                if let type = fields["attributes"]?["type"]?.stringValue, type.lowercased() != object.name.lowercased() {
                    throw APIError(status: 400, errorCode: "INVALID_INPUT", message: "record \(referenceId) is of type \(type), expected \(object.name)")
                }
                var childLists: [(ChildRelationship, [JSONValue])] = []
                for relationship in schema.childRelationships(of: object.name) {
                    if let key = fields.keys.first(where: { $0.lowercased() == relationship.relationshipName.lowercased() }) {
                        childLists.append((relationship, fields[key]?["records"]?.arrayValue ?? []))
                        fields.removeValue(forKey: key)
                    }
                }
                let index = nodes.count
                do {
                    nodes.append(
                        Node(
                            object: object, referenceId: referenceId,
                            values: try RecordValidator.values(for: object, body: fields, mode: .create, access: context.fieldAccess),
                            parentIndex: parentIndex, parentField: parentField))
                } catch {
                    failures.append(["referenceId": .string(referenceId), "errors": [error.collectionEntry]])
                    nodes.append(Node(object: object, referenceId: referenceId, values: [:], parentIndex: parentIndex, parentField: parentField))
                }
                guard nodes.count <= Self.treeLimit else {
                    throw APIError(status: 400, errorCode: "INVALID_INPUT", message: "a tree can hold at most \(Self.treeLimit) records")
                }
                for (relationship, children) in childLists {
                    guard let child = schema.object(named: relationship.childObject) else { continue }
                    try collect(children, object: child, parentIndex: index, parentField: relationship.field, depth: depth + 1)
                }
            }
        }
        try collect(records, object: object, parentIndex: nil, parentField: nil, depth: 1)
        if !failures.isEmpty { return .json(["hasErrors": true, "results": .array(failures)], status: 400) }
        let plannedNodes = nodes
        let userId = context.session.userId
        let owner = context.visibleOwner
        let saving = context.saveRules
        let now = OrgStore.now()
        let store = self.store
        do {
            let ids = try await sessionWrite { db -> [String] in
                var ids: [String] = []
                for node in plannedNodes {
                    var values = node.values
                    if let parentIndex = node.parentIndex, let field = node.parentField { values[field] = ids[parentIndex].databaseValue }
                    do {
                        ids.append(
                            try store.insertRow(
                                db, object: node.object, values: &values, actingUserId: userId, now: now, visibleTo: owner,
                                saving: saving))
                    } catch let error as APIError {
                        throw TreeFailure(referenceId: node.referenceId, error: error)
                    }
                }
                return ids
            }
            return .json(
                ["hasErrors": false, "results": .array(zip(plannedNodes, ids).map { ["referenceId": .string($0.referenceId), "id": .string($1)] })],
                status: 201)
        } catch let failure as TreeFailure {
            return .json(["hasErrors": true, "results": [["referenceId": .string(failure.referenceId), "errors": [failure.error.collectionEntry]]]], status: 400)
        }
    }
}

/// A tree record that failed inside the transaction, which rolls the whole tree back.
struct TreeFailure: Error {
    var referenceId: String
    var error: APIError
}
