import ForceJSON
import SmartStore

/// A metadata target: the object's describe, with the picklist values each of its record types
/// offers; one description, replaced by each run, so no ghosts (as in the SDK). Each answer is
/// asked for with the tag it had last time (`If-None-Match`): on a mobile link the describes are
/// most of a quiet sync's bytes, and they seldom change.
struct MetadataFetch: SyncDownFetch {
    let context: FetchContext
    let sobjectType: String

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        let stored = try storedDescription(soup: state.soupName)
        var describe: JSONObject
        switch try await context.remote.resource("sobjects/\(sobjectType)/describe", query: [],
                                                unlessTagged: stored.flatMap { $0[SObjectDescribeKeys.eTag]?.stringValue }) {
        case .unchanged:
            describe = stored ?? [:]
        case let .object(answer, etag):
            describe = answer
            describe[SObjectDescribeKeys.eTag] = etag.map(JSONValue.string)
        }
        describe[context.target.idFieldName] = .string(sobjectType)
        describe[SObjectDescribeKeys.picklistsByRecordType] = nil
        describe[SObjectDescribeKeys.picklistETags] = nil
        if let picklists = try await picklistsByRecordType(describe: describe, stored: stored) {
            describe[SObjectDescribeKeys.picklistsByRecordType] = .object(picklists.values)
            if !picklists.tags.isEmpty { describe[SObjectDescribeKeys.picklistETags] = .object(picklists.tags) }
        }
        return .whole([describe], soup: state.soupName)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> { [] }

    /// The description the last run stored, without the store's and the engine's own fields.
    private func storedDescription(soup: String) throws -> JSONObject? {
        let idField = context.target.idFieldName
        guard try context.store.read({ try $0.hasSoup(soup) && $0.hasIndex(soup: soup, path: idField) }) else { return nil }
        let rows = try context.store.read { try $0.query(.exact(soup, path: idField, matchKey: .string(sobjectType), pageSize: 2)) }
        guard var record = rows.first?.objectValue else { return nil }
        for key in [SmartStore.soupEntryId, SmartStore.soupLastModifiedDate, "_soupCreatedDate"] + LocalField.bookkeeping { record[key] = nil }
        return record
    }

    /// The picklist values each of the object's own record types offers (the describe lists every
    /// value of every record type), with each answer's tag: one UI API request per record type the
    /// user may pick, none for objects without record types. An org whose UI API does not serve
    /// the object (a 4xx) leaves the form with the describe's values.
    private func picklistsByRecordType(describe: JSONObject, stored: JSONObject?) async throws -> (values: JSONObject, tags: JSONObject)? {
        let recordTypeIds = (describe["recordTypeInfos"]?.arrayValue ?? []).compactMap { info -> String? in
            guard info["available"]?.boolValue == true, info["master"]?.boolValue != true else { return nil }
            return info["recordTypeId"]?.stringValue
        }
        guard !recordTypeIds.isEmpty else { return nil }
        let storedValues = stored?[SObjectDescribeKeys.picklistsByRecordType]?.objectValue ?? [:]
        let storedTags = stored?[SObjectDescribeKeys.picklistETags]?.objectValue ?? [:]
        var result: JSONObject = [:]
        var tags: JSONObject = [:]
        for id in recordTypeIds {
            let known = storedValues[id] == nil ? nil : storedTags[id]?.stringValue
            let answer: RemoteResource
            do {
                answer = try await context.remote.resource("ui-api/object-info/\(sobjectType)/picklist-values/\(id)", query: [], unlessTagged: known)
            } catch {
                if case let .server(status, _, _) = error, (400..<500).contains(status) { return nil }
                throw error
            }
            switch answer {
            case .unchanged:
                result[id] = storedValues[id]
                tags[id] = storedTags[id]
            case let .object(object, etag):
                var fields: JSONObject = [:]
                for (field, values) in object["picklistFieldValues"]?.objectValue ?? [:] {
                    fields[field] = .array((values["values"]?.arrayValue ?? []).compactMap { $0["value"] })
                }
                result[id] = .object(fields)
                tags[id] = etag.map(JSONValue.string)
            }
        }
        return (values: result, tags: tags)
    }
}

/// A layout target: one UI API layout, replaced by each run; no ghosts.
struct LayoutFetch: SyncDownFetch {
    let context: FetchContext
    let request: LayoutRequest

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        var layout = try await context.remote.resource("ui-api/layout/\(request.sobjectType)", query: request.queryItems)
        layout[context.target.idFieldName] = .string(request.recordId)
        return .whole([layout], soup: state.soupName)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> { [] }
}
