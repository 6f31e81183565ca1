import ForceJSON

/// The three-way merge of one record against a newer server copy, field by field: what this
/// laptop holds (mine), the base of its local changes (`__base__`, the server's values as last
/// seen), and the server's copy now. Changed only on the server: taken. Only here: kept, to be
/// sent. On both sides to the same value: settled. To different values: a conflict of that field
/// alone. Used wherever the engine meets a newer server copy of a record with local changes: a
/// refused conditional write, the read before a write whose precondition is unknown, a sync down.
public struct FieldMerge: Sendable {
    public var idFieldName: String
    public var modificationDateFieldName: String
    /// The fields a sync up may send. A local change of any other field can never reach the
    /// server, so the server's value wins there. `nil`: every field.
    public var updatableFields: Set<String>?

    public init(idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate", updatableFields: Set<String>? = nil) {
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.updatableFields = updatableFields
    }

    /// The merged record and what is left of its local changes.
    public struct Outcome: Sendable, Equatable {
        public var record: JSONObject
        /// Fields both sides changed to different values, in the server copy's order.
        public var conflictingFields: [String]
        /// Whether local changes remain to be sent (conflicting fields count).
        public var hasLocalChanges: Bool
        /// Whether another user's change to a synced field came in (not only a new modification
        /// date, a field this laptop does not send, or our own write whose answer was lost).
        public var tookServerValues = false
    }

    /// Merges `server` into `local` (a record with a server id, not deleted here). `own` holds
    /// values this laptop sent whose answer never came back: the server holding one of them is our
    /// own write, not another user's. The result's base is the server copy; its modification date
    /// becomes the precondition of the next write.
    public func merge(local: JSONObject, server: JSONObject, own: JSONObject? = nil, now: Int64) -> Outcome {
        let own = own ?? [:]
        var record = local
        // Without a recorded base (an edit by a writer that kept none), every field that differs
        // from the server counts as changed on both sides — unless the server is still at the
        // version the edit started from, which is then the base.
        var recorded = local.baseValues
        if recorded == nil, let version = local[modificationDateFieldName]?.stringValue.flatMap(SalesforceTimestamp.parse),
            server[modificationDateFieldName]?.stringValue.flatMap(SalesforceTimestamp.parse) == version
        {
            recorded = server.filter { key, value in !FieldValues.same(local[key], value) }
        }
        var base = recorded ?? [:]
        // A conflict not yet settled stays one whatever the server's newer value (unless it now
        // holds mine); its first base is kept for the user to see.
        let prior = RecordConflict(local[LocalField.conflict]).flatMap { $0.fields == nil ? nil : $0 }
        var conflicts: [String] = []
        var conflictBases: JSONObject = [:]
        var took = false
        for (key, serverValue) in server where !DownloadedRecordWriter.isEngineOwned(key) && key != idFieldName {
            if key == modificationDateFieldName || key == "attributes" || updatableFields.map({ !$0.contains(key) }) == true {
                record[key] = serverValue
                base.removeValue(forKey: key)
                continue
            }
            let mine = local[key]
            let baseValue: JSONValue? = recorded == nil ? nil : (base[key] ?? mine)
            let changedHere = recorded == nil ? !FieldValues.same(mine, serverValue) : base[key].map { !FieldValues.same(mine, $0) } ?? false
            if !changedHere {
                if !FieldValues.same(mine, serverValue), !(own[key].map { FieldValues.same($0, serverValue) } ?? false) { took = true }
                record[key] = serverValue
                base.removeValue(forKey: key)
            } else if FieldValues.same(mine, serverValue) {
                base.removeValue(forKey: key)
            } else {
                let ours = own[key].map { FieldValues.same($0, serverValue) } ?? false
                if let prior, prior.fields?.contains(key) == true {
                    conflicts.append(key)
                    if let first = prior.base[key] { conflictBases[key] = first }
                } else if recorded == nil || (!ours && !FieldValues.same(serverValue, baseValue)) {
                    conflicts.append(key)
                    if let baseValue { conflictBases[key] = baseValue }
                }
                base[key] = serverValue
            }
        }
        record.removeValue(forKey: LocalField.overwriteServer)
        record.removeValue(forKey: LocalField.conflict)
        if !conflicts.isEmpty {
            record[LocalField.conflict] =
                RecordConflict(
                    server: server, fields: conflicts, base: conflictBases,
                    detectedAt: prior?.detectedAt ?? now
                ).json
        }
        record.setBase(base)
        return Outcome(record: record, conflictingFields: conflicts, hasLocalChanges: !base.isEmpty, tookServerValues: took)
    }

    /// A record deleted here meets a newer server copy. If the server changed a field it tracks,
    /// that is another user's work the delete must not remove: a conflict (deleted here, changed
    /// there). Otherwise the delete waits only for the new date, its next precondition. Returns
    /// whether it became a conflict.
    func meetWhileDeletedHere(_ record: inout JSONObject, server: JSONObject, own: JSONObject? = nil, now: Int64) -> Bool {
        if serverChanged(record, comparedWith: server, own: own) {
            record[LocalField.conflict] = RecordConflict(server: server, detectedAt: now).json
            return true
        }
        record[modificationDateFieldName] = server[modificationDateFieldName] ?? .null
        return false
    }

    /// Whether `server` changed any field this record tracks since its base: the question for a
    /// record deleted here, whose delete must not remove another user's newer work.
    public func serverChanged(_ local: JSONObject, comparedWith server: JSONObject, own: JSONObject? = nil) -> Bool {
        let own = own ?? [:]
        let base = local.baseValues ?? [:]
        for (key, serverValue) in server
        where !DownloadedRecordWriter.isEngineOwned(key) && key != idFieldName
            && key != modificationDateFieldName && key != "attributes" && updatableFields.map({ $0.contains(key) }) != false
        {
            let baseValue = base[key] ?? local[key]
            // The value the user last saw here (our own update that arrived, or the same edit
            // made twice) is no newer work the delete would remove.
            if FieldValues.same(serverValue, baseValue) || FieldValues.same(serverValue, local[key])
                || own[key].map({ FieldValues.same($0, serverValue) }) == true
            {
                continue
            }
            return true
        }
        return false
    }
}

/// Field values compared as the server compares them: a missing field is null, and a whole
/// number equals the same number written with a fraction (`1` and `1.0`).
public enum FieldValues {
    public static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        switch (a ?? .null, b ?? .null) {
        case (.null, .null): true
        case let (.int(x), .double(y)), let (.double(y), .int(x)): Double(x) == y
        case let (x, y): x == y
        }
    }
}

extension JSONObject {
    /// Records that `sent` reached the server: each sent field's base becomes the value sent, and a
    /// field still holding it is no longer a local change. Fields changed here while the write was
    /// on its way keep their newer value and stay changed.
    mutating func settle(sent: JSONObject) {
        var base = baseValues ?? [:]
        for (key, value) in sent {
            if FieldValues.same(self[key], value) {
                base.removeValue(forKey: key)
            } else {
                base[key] = value
            }
        }
        setBase(base)
    }
}
