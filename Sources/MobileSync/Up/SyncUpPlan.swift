import ForceJSON
import SmartStore

/// One record's write, planned from its soup entry.
public struct PlannedWrite: Sendable, Equatable {
    public enum Action: String, Sendable, Equatable { case delete, create, upsert, update }

    public var entryId: Int64
    public var action: Action
    /// The record's id before the write: a server id, or its `local_` id for creates.
    public var recordId: String?
    public var write: RecordWrite
    /// Fields whose `local_` id was sent as the server id it now has: field → that local id.
    public var references: [String: String]
    /// The user chose to save it though the org's duplicate rule matched others.
    public var allowDuplicate: Bool

    public init(
        entryId: Int64, action: Action, recordId: String?, write: RecordWrite, references: [String: String] = [:],
        allowDuplicate: Bool = false
    ) {
        self.entryId = entryId
        self.action = action
        self.recordId = recordId
        self.write = write
        self.references = references
        self.allowDuplicate = allowDuplicate
    }
}

/// Writes that travel together in one request.
public struct WriteRequest: Sendable, Equatable {
    public var route: WriteRoute
    public var writes: [PlannedWrite]
    /// The request tells the org's duplicate rules to let its records save.
    public var allowsDuplicates: Bool { writes.first?.allowDuplicate ?? false }
}

/// What a sync up will do with the dirty records of a soup, decided from store contents alone.
public struct SyncUpPlan: Sendable, Equatable {
    /// Created then deleted before ever reaching the server: removed locally, nothing sent.
    public var removeLocally: [Int64] = []
    /// In the SDK's order: deletes, then creates (and upserts), then updates.
    public var writes: [PlannedWrite] = []
    /// Held back with the reason, recorded in `__last_error__` (e.g. a reference to a record that
    /// is not on the server yet). They stay dirty.
    public var refused: [Int64: RecordError] = [:]
    /// Waiting for the user to resolve a conflict; not sent.
    public var awaitingResolution: [Int64] = []
    /// Marked updated, but every change is back at its base or outside the update field list:
    /// nothing to send, so they are marked clean (after a check in the same transaction).
    public var unchanged: [Int64] = []

    /// The writes grouped into requests for `target`'s mode. Conditional updates and deletes go
    /// through composite requests (sObject collections cannot carry a per-record precondition).
    public func requests(for target: SyncUpTarget) -> [WriteRequest] {
        var requests: [WriteRequest] = []
        // Records to save though duplicates were found travel apart, under the header that allows it.
        for action in [PlannedWrite.Action.delete, .create, .upsert, .update] {
            for allowed in [false, true] {
                let group = writes.filter { $0.action == action && $0.allowDuplicate == allowed }
                guard !group.isEmpty else { continue }
                switch target.mode {
                case .singleRecord:
                    requests += group.map { WriteRequest(route: .single, writes: [$0]) }
                case .batch:
                    requests += Self.chunk(group, size: target.maxBatchSize, route: .composite)
                case .collection:
                    let conditional = group.filter { $0.write.isConditional }
                    let plain = group.filter { !$0.write.isConditional }
                    if action == .upsert {
                        // One collection upsert call takes one sObject type and one external-id field.
                        var keys: [String] = []
                        var byKey: [String: [PlannedWrite]] = [:]
                        for write in plain {
                            guard case let .upsert(type, field, _, _) = write.write else { continue }
                            let key = type + "/" + field
                            if byKey[key] == nil { keys.append(key) }
                            byKey[key, default: []].append(write)
                        }
                        for key in keys { requests += Self.chunk(byKey[key] ?? [], size: target.maxBatchSize, route: .collection) }
                    } else {
                        requests += Self.chunk(plain, size: target.maxBatchSize, route: .collection)
                    }
                    requests += Self.chunk(conditional, size: SyncUpTarget.Mode.batch.limit, route: .composite)
                }
            }
        }
        return requests
    }

    static func chunk(_ writes: [PlannedWrite], size: Int, route: WriteRoute) -> [WriteRequest] {
        writes.chunked(into: max(size, 1)).map { WriteRequest(route: route, writes: Array($0)) }
    }
}

/// Turns dirty soup entries into a `SyncUpPlan`: the SDK's action choice and field lists, plus
/// preconditions for LEAVE_IF_CHANGED and local-id references rewritten to server ids.
public struct SyncUpPlanner: Sendable {
    public var target: SyncUpTarget
    public var options: SyncOptions
    public var soupName: String
    /// The org's describes by sObject type, as this user gets them: a field the user may not
    /// write is never sent (an empty one is left out, a value in it holds the record back with
    /// the reason). Without one, every listed field goes, as in the SDK.
    public var described: [String: DescribedFields] = [:]

    public init(target: SyncUpTarget, options: SyncOptions, soupName: String) {
        self.target = target
        self.options = options
        self.soupName = soupName
    }

    public var createFields: [String]? { target.createFieldlist ?? options.fieldlist }
    public var updateFields: [String]? { target.updateFieldlist ?? options.fieldlist }

    /// Plans `records` (dirty entries, in entry-id order). `serverIds` maps `local_` ids of records
    /// already created on the server (in any soup) to their server ids.
    public func plan(_ records: [JSONObject], serverIds: [String: String]) throws(MobileSyncError) -> SyncUpPlan {
        var plan = SyncUpPlan()
        var deletes: [PlannedWrite] = []
        var creates: [PlannedWrite] = []
        var updates: [PlannedWrite] = []
        for record in records {
            guard let entryId = record.soupEntryId, record.isDirty else { continue }
            if record.hasConflict || record.isCreateInDoubt {
                plan.awaitingResolution.append(entryId)
                continue
            }
            let recordId = record[target.idFieldName]?.stringValue
            let isCreated = record.isLocallyCreated || recordId == nil || recordId.map(LocalField.isLocalId) == true
            if record.isLocallyDeleted && isCreated {
                plan.removeLocally.append(entryId)
                continue
            }
            guard let type = record["attributes"]?["type"]?.stringValue, !type.isEmpty else {
                plan.refused[entryId] = RecordError(
                    errorCode: "NO_SOBJECT_TYPE", message: "the record has no attributes.type, so it cannot be sent; set it to the sObject type (e.g. Contact)")
                continue
            }
            let precondition =
                options.mergeMode == .leaveIfChanged && !record.overwritesServer
                ? record[target.modificationDateFieldName]?.stringValue.flatMap(SalesforceTimestamp.parse) : nil
            if record.isLocallyDeleted, let recordId {
                deletes.append(
                    PlannedWrite(
                        entryId: entryId, action: .delete, recordId: recordId,
                        write: .delete(sobjectType: type, id: recordId, ifUnmodifiedSince: precondition)))
                continue
            }
            if isCreated {
                guard let fieldNames = createFields else { throw .noFieldsSpecified(soup: soupName) }
                var fields: JSONObject
                var references: [String: String] = [:]
                do {
                    fields = try project(record, fieldNames, serverIds: serverIds, references: &references)
                    try keepWritable(&fields, type: type, creating: true)
                } catch {
                    plan.refused[entryId] = error
                    continue
                }
                if let externalField = target.externalIdFieldName,
                    let externalId = record[externalField]?.stringValue, !externalId.isEmpty, !LocalField.isLocalId(externalId)
                {
                    var upsertFields = fields
                    upsertFields.removeValue(forKey: externalField)
                    creates.append(
                        PlannedWrite(
                            entryId: entryId, action: .upsert, recordId: recordId,
                            write: .upsert(sobjectType: type, externalIdField: externalField, externalId: externalId, fields: upsertFields),
                            references: references))
                } else {
                    creates.append(
                        PlannedWrite(
                            entryId: entryId, action: .create, recordId: recordId,
                            write: .create(sobjectType: type, fields: fields), references: references,
                            allowDuplicate: record.flag(LocalField.allowDuplicate)))
                }
                continue
            }
            if record.isLocallyUpdated, let recordId {
                guard let fieldNames = updateFields else { throw .noFieldsSpecified(soup: soupName) }
                let changed = changedFields(record, of: fieldNames)
                guard !changed.isEmpty else {
                    plan.unchanged.append(entryId)
                    continue
                }
                do {
                    var references: [String: String] = [:]
                    var fields = try project(record, changed, serverIds: serverIds, references: &references)
                    // Without a recorded base every listed field goes, changed or not: one the
                    // user may not write is then left out rather than held, as nothing says it changed.
                    try keepWritable(&fields, type: type, creating: false, leavingOutValues: record.baseValues == nil)
                    updates.append(
                        PlannedWrite(
                            entryId: entryId, action: .update, recordId: recordId,
                            write: .update(sobjectType: type, id: recordId, fields: fields, ifUnmodifiedSince: precondition),
                            references: references))
                } catch {
                    plan.refused[entryId] = error
                }
            }
        }
        plan.writes = deletes + creates + updates
        return plan
    }

    /// Of `fields`, those the org lets this user read on `type` (all of them without its describe):
    /// what a read of the server's copies may ask for.
    public func readable(_ fields: [String], of type: String) -> [String] {
        guard let described = described[type] else { return fields }
        return fields.filter { described.isReadable($0) }
    }

    /// Leaves out of a write the fields the org does not let this user write, when they hold
    /// nothing; refuses the record, naming them, when they hold a value (sent, the org would refuse
    /// the whole record, on every sync).
    func keepWritable(_ fields: inout JSONObject, type: String, creating: Bool, leavingOutValues: Bool = false) throws(RecordError) {
        guard let described = described[type] else { return }
        var held: [String] = []
        for (name, value) in fields where !described.canWrite(name, creating: creating) {
            if value.isNull || value.stringValue == "" || leavingOutValues {
                fields.removeValue(forKey: name)
            } else {
                held.append(name)
            }
        }
        guard !held.isEmpty else { return }
        let how = held.map { described.field($0) == nil ? "\($0) (hidden from you)" : "\($0) (read-only for you)" }.joined(separator: ", ")
        throw RecordError(
            errorCode: "FIELD_NOT_WRITABLE",
            message: "the org does not let you \(creating ? "set" : "change") \(how); "
                + (creating ? "clear \(held.count == 1 ? "it" : "them") to send this record" : "revert \(held.count == 1 ? "it" : "them") to send the rest"),
            fields: held)
    }

    /// The listed fields changed here since their base, in list order; every listed field when
    /// the record has no recorded base (an edit by a writer that kept none), as the SDK sends them.
    public func changedFields(_ record: JSONObject, of fieldNames: [String]) -> [String] {
        guard let base = record.baseValues else { return fieldNames }
        return fieldNames.filter { name in base[name].map { !FieldValues.same(record[name], $0) } ?? false }
    }

    /// The listed fields present in the record, never the id or modification fields; an explicit
    /// null is sent as null. A `local_` value becomes the server id it now has, or refuses the record.
    public func project(_ record: JSONObject, _ fieldNames: [String], serverIds: [String: String]) throws(RecordError) -> JSONObject {
        var references: [String: String] = [:]
        return try project(record, fieldNames, serverIds: serverIds, references: &references)
    }

    /// `project`, noting in `references` each field whose `local_` id was replaced.
    func project(
        _ record: JSONObject, _ fieldNames: [String], serverIds: [String: String],
        references: inout [String: String]
    ) throws(RecordError) -> JSONObject {
        var fields: JSONObject = [:]
        for name in fieldNames where name != target.idFieldName && name != target.modificationDateFieldName {
            guard let value = record[name] else { continue }
            if let text = value.stringValue, LocalField.isLocalId(text) {
                guard let serverId = serverIds[text] else {
                    throw RecordError(
                        errorCode: "LOCAL_REFERENCE_PENDING",
                        message: "\(name) refers to \(text), a record not on the server yet; it is sent once that record has synced up",
                        fields: [name])
                }
                fields[name] = .string(serverId)
                references[name] = text
            } else {
                fields[name] = value
            }
        }
        return fields
    }
}
