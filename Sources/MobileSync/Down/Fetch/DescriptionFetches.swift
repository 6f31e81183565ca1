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
        // The picklists of the record types the last description listed are asked alongside the
        // describe, not after it: on a slow link a quiet run is then one round trip, not three.
        let known = stored.map(Self.recordTypeIds) ?? []
        async let early = picklistAnswers(for: known, stored: stored)
        var describe: JSONObject
        let path = "sobjects/\(sobjectType)/describe"
        let answer: RemoteResource
        do {
            answer = try await context.remote.resource(path, query: [], unlessTagged: stored.flatMap { $0[SObjectDescribeKeys.eTag]?.stringValue })
        } catch {
            throw error.naming(sobjectType, resource: path)
        }
        switch answer {
        case .unchanged:
            describe = stored ?? [:]
        case let .object(answer, etag):
            describe = answer
            describe[SObjectDescribeKeys.eTag] = etag.map(JSONValue.string)
        }
        describe[context.target.idFieldName] = .string(sobjectType)
        describe[SObjectDescribeKeys.picklistsByRecordType] = nil
        describe[SObjectDescribeKeys.picklistETags] = nil
        let wanted = Self.recordTypeIds(describe)
        var outcomes = await early
        let missing = wanted.filter { outcomes[$0] == nil }
        if !missing.isEmpty {
            // A record type new since the last run.
            outcomes.merge(await picklistAnswers(for: missing, stored: stored)) { first, _ in first }
        }
        // Only the record types the describe lists now count: one deleted since may answer 404.
        var answers: [String: RemoteResource]? = [:]
        for id in wanted {
            switch outcomes[id] {
            case let .answered(answer)?: answers?[id] = answer
            case let .failed(error)?: throw error
            case .notServed?, nil: answers = nil
            }
            if answers == nil { break }
        }
        if !wanted.isEmpty, let answers {
            let picklists = Self.picklists(wanted, answers: answers, stored: stored)
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

    /// The object's own record types the user may pick: one UI API request each for their
    /// picklist values (the describe lists every value of every record type); none for objects
    /// without record types.
    static func recordTypeIds(_ describe: JSONObject) -> [String] {
        (describe["recordTypeInfos"]?.arrayValue ?? []).compactMap { info -> String? in
            guard info["available"]?.boolValue == true, info["master"]?.boolValue != true else { return nil }
            return info["recordTypeId"]?.stringValue
        }
    }

    /// What the UI API said about one record type's picklist values.
    enum PicklistOutcome: Sendable {
        case answered(RemoteResource)
        /// A 4xx: the org's UI API does not serve it; the form keeps the describe's values.
        case notServed
        case failed(SyncRemoteError)
    }

    /// The UI API's answers for `ids`, all asked at once, each with the tag it had last time.
    private func picklistAnswers(for ids: [String], stored: JSONObject?) async -> [String: PicklistOutcome] {
        let storedValues = stored?[SObjectDescribeKeys.picklistsByRecordType]?.objectValue ?? [:]
        let storedTags = stored?[SObjectDescribeKeys.picklistETags]?.objectValue ?? [:]
        let remote = context.remote
        let path = "ui-api/object-info/\(sobjectType)/picklist-values/"
        return await withTaskGroup(of: (String, PicklistOutcome).self) { group in
            for id in ids {
                let known = storedValues[id] == nil ? nil : storedTags[id]?.stringValue
                group.addTask {
                    do throws(SyncRemoteError) {
                        return (id, .answered(try await remote.resource(path + id, query: [], unlessTagged: known)))
                    } catch {
                        if case let .server(status, _, _) = error, (400..<500).contains(status) { return (id, .notServed) }
                        return (id, .failed(error))
                    }
                }
            }
            var outcomes: [String: PicklistOutcome] = [:]
            for await (id, outcome) in group { outcomes[id] = outcome }
            return outcomes
        }
    }

    /// The values each record type offers, and each answer's tag, in `ids`' order.
    private static func picklists(_ ids: [String], answers: [String: RemoteResource], stored: JSONObject?) -> (values: JSONObject, tags: JSONObject) {
        let storedValues = stored?[SObjectDescribeKeys.picklistsByRecordType]?.objectValue ?? [:]
        let storedTags = stored?[SObjectDescribeKeys.picklistETags]?.objectValue ?? [:]
        var result: JSONObject = [:]
        var tags: JSONObject = [:]
        for id in ids {
            switch answers[id] {
            case .unchanged?:
                result[id] = storedValues[id]
                tags[id] = storedTags[id]
            case let .object(object, etag)?:
                var fields: JSONObject = [:]
                for (field, values) in object["picklistFieldValues"]?.objectValue ?? [:] {
                    fields[field] = .array((values["values"]?.arrayValue ?? []).compactMap { $0["value"] })
                }
                result[id] = .object(fields)
                tags[id] = etag.map(JSONValue.string)
            case nil:
                break
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

extension SyncRemoteError {
    /// A 404 for one object's resource, said with the object's name: Salesforce's own message ("The
    /// requested resource does not exist") does not say which object a sync asked for.
    func naming(_ sobjectType: String, resource: String) -> SyncRemoteError {
        guard case let .server(404, code, message) = self else { return self }
        return .server(status: 404, errorCode: code, message: "\(message): \(resource) (is \(sobjectType) an object of this org?)")
    }
}
