import ForceJSON

/// A metadata target: the object's describe, with the picklist values each of its record types
/// offers; one description, replaced by each run, so no ghosts (as in the SDK).
struct MetadataFetch: SyncDownFetch {
    let context: FetchContext
    let sobjectType: String

    func first(state: SyncState, since: Int64?) async throws -> SyncDownPage {
        var describe = try await context.remote.resource("sobjects/\(sobjectType)/describe", query: [])
        describe[context.target.idFieldName] = .string(sobjectType)
        if let picklists = try await picklistsByRecordType(describe: describe) {
            describe[SObjectDescribeKeys.picklistsByRecordType] = .object(picklists)
        }
        return .whole([describe], soup: state.soupName)
    }

    func remoteIds(localIds: [String]) async throws -> Set<String> { [] }

    /// The picklist values each of the object's own record types offers (the describe lists every
    /// value of every record type): one UI API request per record type the user may pick, none
    /// for objects without record types. An org whose UI API does not serve the object (a 4xx)
    /// leaves the form with the describe's values.
    private func picklistsByRecordType(describe: JSONObject) async throws -> JSONObject? {
        let recordTypeIds = (describe["recordTypeInfos"]?.arrayValue ?? []).compactMap { info -> String? in
            guard info["available"]?.boolValue == true, info["master"]?.boolValue != true else { return nil }
            return info["recordTypeId"]?.stringValue
        }
        guard !recordTypeIds.isEmpty else { return nil }
        var result: JSONObject = [:]
        for id in recordTypeIds {
            let answer: JSONObject
            do {
                answer = try await context.remote.resource("ui-api/object-info/\(sobjectType)/picklist-values/\(id)", query: [])
            } catch {
                if case let .server(status, _, _) = error, (400..<500).contains(status) { return nil }
                throw error
            }
            var fields: JSONObject = [:]
            for (field, values) in answer["picklistFieldValues"]?.objectValue ?? [:] {
                fields[field] = .array((values["values"]?.arrayValue ?? []).compactMap { $0["value"] })
            }
            result[id] = .object(fields)
        }
        return result
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
