import ForceJSON
import GRDB
import SOQLSyntax

extension QueryEngine {
    /// Runs a SOSL search: each RETURNING object becomes a SOQL query whose WHERE also requires
    /// the search words in the scope's fields, compiled to parameterised LIKE conditions.
    /// `access`: the user's field-level security; a hidden field is neither searched nor returned.
    public func search(
        _ text: String, userId: String, visibleTo ownerId: String?, access: FieldAccess = .administrator,
        apiVersion: String
    ) async throws -> [JSONValue] {
        let search: SOSLSearch
        do { search = try SOQLParser.parseSearch(text) } catch {
            throw APIError(status: 400, errorCode: error.errorCode, message: error.message(for: text))
        }
        return try await run(search, sourceText: text, visibleTo: ownerId, access: access, apiVersion: apiVersion)
    }

    func run(_ search: SOSLSearch, sourceText: String, visibleTo ownerId: String?, access: FieldAccess, apiVersion: String) async throws -> [JSONValue] {
        let schema = store.schema
        let queries =
            search.returning.isEmpty
            ? schema.objects.filter(\.createable).map { SOQLQuery(items: [], isCount: false, objectName: $0.name, objectOffset: 0, condition: nil, ordering: [], limit: nil, offset: nil) }
            : search.returning
        var remaining = search.limit ?? QueryEngine.defaultBatchSize
        var records: [JSONValue] = []
        for var query in queries {
            guard remaining > 0 else { break }
            guard let object = schema.object(named: query.objectName) else {
                throw APIError(status: 400, errorCode: "INVALID_TYPE", message: SOQLCompiler.unsupportedType(query).message(for: sourceText))
            }
            let fields = Self.searchFields(of: object, scope: search.scope).filter { access.canRead($0, in: object) }
            if fields.isEmpty { continue }
            let matches: SOQLCondition = .or(
                search.alternatives.map { words in
                    .and(
                        words.map { word in
                            .or(
                                fields.map { field in
                                    .like(
                                        SOQLFieldPath(components: [field.name], offset: query.objectOffset), .string(value: word, likePattern: "%\(word)%"),
                                        literalOffset: query.objectOffset)
                                })
                        })
                })
            query.condition = query.condition.map { .and([$0, matches]) } ?? matches
            if query.items.isEmpty { query.items = [.field(SOQLFieldPath(components: ["Id"], offset: query.objectOffset))] }
            query.limit = min(query.limit ?? remaining, remaining)
            let compiled: CompiledSOQL
            do {
                // SOSL searches long text areas: only field-level security applies here.
                compiled = try SOQLCompiler.compile(
                    query, schema: schema, includeDeleted: false, now: OrgStore.now(), ownerId: ownerId,
                    policy: QueryPolicy(access: access))
            } catch {
                throw APIError(status: 400, errorCode: error.errorCode, message: error.message(for: sourceText))
            }
            let ids = try await store.rows(sql: compiled.idsSQL, arguments: compiled.idsArguments).compactMap { $0.first.flatMap(String.fromDatabaseValue) }
            records += try await render(compiled, ids: ids, apiVersion: apiVersion)
            remaining -= ids.count
        }
        return records
    }

    /// The fields a scope searches: every text field, the name fields, email or phone fields.
    static func searchFields(of object: ObjectDefinition, scope: SOSLSearch.Scope) -> [FieldDefinition] {
        let nameParts = Set(object.fields.filter(\.nameField).flatMap { [$0.name] + $0.concatenationOf })
        return object.fields.filter { field in
            switch scope {
            case .all: return field.type.isText
            case .name: return field.type.isText && nameParts.contains(field.name)
            case .email: return field.type == .email
            case .phone: return field.type == .phone
            }
        }
    }

    /// `/parameterizedSearch`: the same search from query parameters instead of SOSL text.
    public func parameterizedSearch(
        _ items: [String: String], visibleTo ownerId: String?, access: FieldAccess = .administrator,
        apiVersion: String
    ) async throws -> [JSONValue] {
        guard let term = items["q"], !term.isEmpty else { throw APIError(status: 400, errorCode: "MALFORMED_SEARCH", message: "q is required") }
        var search: SOSLSearch
        do {
            search = SOSLSearch(
                alternatives: try SOQLParser.searchAlternatives(Array(term.utf8), escaped: [], offset: 0),
                scope: SOSLSearch.Scope(rawValue: (items["in"] ?? "ALL").uppercased()) ?? .all, returning: [], limit: nil)
        } catch {
            throw APIError(status: 400, errorCode: error.errorCode, message: error.detail)
        }
        search.limit = items["overallLimit"].flatMap(Int.init)
        for name in (items["sobject"] ?? "").split(separator: ",").map(String.init) where !name.isEmpty {
            var query = SOQLQuery(items: [], isCount: false, objectName: name, objectOffset: 0, condition: nil, ordering: [], limit: nil, offset: nil)
            let fieldList = items.first { $0.key.lowercased() == "\(name.lowercased()).fields" }?.value ?? ""
            query.items = fieldList.split(separator: ",").map { .field(SOQLFieldPath(components: $0.trimmingCharacters(in: .whitespaces).split(separator: ".").map(String.init), offset: 0)) }
            query.limit = items.first { $0.key.lowercased() == "\(name.lowercased()).limit" }.flatMap { Int($0.value) }
            search.returning.append(query)
        }
        return try await run(search, sourceText: term, visibleTo: ownerId, access: access, apiVersion: apiVersion)
    }
}
