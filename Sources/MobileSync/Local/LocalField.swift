import ForceJSON
import SmartStore

/// The flags and bookkeeping fields a record carries in its soup, with the SDK's names where the
/// SDK has them.
public enum LocalField {
    public static let local = "__local__"
    public static let locallyCreated = "__locally_created__"
    public static let locallyUpdated = "__locally_updated__"
    public static let locallyDeleted = "__locally_deleted__"
    public static let lastError = "__last_error__"
    public static let syncId = "__sync_id__"
    /// Beyond the SDK: the server's values when a conditional write was refused, `{"server": {...} | null, "detectedAt": ms}`.
    public static let conflict = "__conflict__"
    /// Beyond the SDK: a create sent but not yet confirmed, `{"sentAt": ms}`; see docs/mobilesync.md.
    public static let createInFlight = "__create_in_flight__"
    /// Beyond the SDK: a lost create the server's answers could not settle, `{"candidates":
    /// [{"Id", "Name"}], "reason"}`: never sent again until the user decides (`forceterm resolve`).
    public static let createInDoubt = "__create_in_doubt__"
    /// Beyond the SDK: the user chose to save this record although the org's duplicate rule
    /// matched others (`forceterm resolve ID --allow-duplicate`): its create carries `allowSave=true`.
    public static let allowDuplicate = "__allow_duplicate__"
    /// Beyond the SDK: "keep mine" settled a conflict, so the next sync up writes without a
    /// precondition and a server delete since then is answered by creating the record again.
    public static let overwriteServer = "__overwrite_server__"
    /// Beyond the SDK: the base of a record's local changes, `{field: value}` — the server's value,
    /// as last seen, of each field changed here since. Every other field's base is its current
    /// value, so a clean record carries none and a sync down writes none. See docs/mobilesync.md,
    /// "Field-level merge".
    public static let base = "__base__"
    /// Beyond the SDK: when the record's unsent change was first saved here (epoch ms), so a
    /// stalled queue can say how long each change has waited; cleared with the flags.
    public static let localSince = "__local_since__"

    public static let localIdPrefix = "local_"

    /// Fields the engine owns; a sync down never takes them from the server copy.
    static let bookkeeping: Set<String> = [
        local, locallyCreated, locallyUpdated, locallyDeleted, lastError, syncId, conflict, createInFlight, createInDoubt, allowDuplicate, overwriteServer, base,
        localSince,
    ]

    /// Smart SQL that is true for a record with local changes, whichever way its flag was stored
    /// (JSON true through json1 is 1, a string index holds 'true', iOS wrote '1').
    public static func dirtyPredicate(soup: String) -> String { "{\(soup):\(local)} IN ('true', '1', 1)" }
    static func cleanPredicate(soup: String) -> String { "coalesce({\(soup):\(local)}, 'false') NOT IN ('true', '1', 1)" }

    public static func isLocalId(_ value: String) -> Bool { value.hasPrefix(localIdPrefix) }
}

extension JSONValue {
    /// A flag as the SDK platforms store it: true, "true", "1" or 1.
    var isSetFlag: Bool {
        switch self {
        case let .bool(flag): flag
        case let .string(text): text == "true" || text == "1"
        case let .int(number): number == 1
        default: false
        }
    }
}

extension JSONObject {
    func flag(_ name: String) -> Bool { self[name]?.isSetFlag ?? false }

    public var isDirty: Bool { flag(LocalField.local) }
    public var isLocallyCreated: Bool { flag(LocalField.locallyCreated) }
    public var isLocallyUpdated: Bool { flag(LocalField.locallyUpdated) }
    public var isLocallyDeleted: Bool { flag(LocalField.locallyDeleted) }
    public var hasConflict: Bool { self[LocalField.conflict].map { !$0.isNull } ?? false }
    /// "Keep mine" was chosen: the next write goes through whatever the server holds.
    public var overwritesServer: Bool { flag(LocalField.overwriteServer) }
    /// A lost create waits for the user: it may be on the server already.
    public var isCreateInDoubt: Bool { self[LocalField.createInDoubt].map { !$0.isNull } ?? false }

    var soupEntryId: Int64? { self[SmartStore.soupEntryId]?.int64Value }

    /// The SDK's cleanRecord: no local changes, no last error; plus our own bookkeeping cleared.
    mutating func markClean() {
        self[LocalField.local] = false
        self[LocalField.locallyCreated] = false
        self[LocalField.locallyUpdated] = false
        self[LocalField.locallyDeleted] = false
        removeValue(forKey: LocalField.lastError)
        removeValue(forKey: LocalField.conflict)
        removeValue(forKey: LocalField.createInFlight)
        removeValue(forKey: LocalField.createInDoubt)
        removeValue(forKey: LocalField.allowDuplicate)
        removeValue(forKey: LocalField.overwriteServer)
        removeValue(forKey: LocalField.base)
        removeValue(forKey: LocalField.localSince)
    }

    /// Stores the base of the record's local changes with the flags that follow from it:
    /// `__locally_updated__` while any field differs from its base, and the record clean once
    /// nothing is left here (not created, deleted or in conflict).
    mutating func setBase(_ base: JSONObject) {
        if base.isEmpty { removeValue(forKey: LocalField.base) } else { self[LocalField.base] = .object(base) }
        self[LocalField.locallyUpdated] = .bool(!base.isEmpty)
        if base.isEmpty && !isLocallyCreated && !isLocallyDeleted && !hasConflict {
            markClean()
        } else {
            self[LocalField.local] = true
        }
    }

    /// The recorded base of the local changes (field → the server's value as last seen); empty
    /// when no field has changed here, `nil` when the record is marked updated but was edited by
    /// a writer that recorded no base (an older forceterm, or another SDK app).
    var baseValues: JSONObject? {
        if let recorded = self[LocalField.base]?.objectValue { return recorded }
        return isLocallyUpdated && !isLocallyCreated ? nil : [:]
    }
}
