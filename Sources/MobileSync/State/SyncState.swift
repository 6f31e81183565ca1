import ForceJSON
import SmartStore

public enum SyncType: String, Sendable, Equatable {
    case syncDown, syncUp
}

public enum SyncStatus: String, Sendable, Equatable, CaseIterable {
    case new = "NEW", running = "RUNNING", done = "DONE", failed = "FAILED", stopped = "STOPPED"
}

/// A sync's target: what it reads (down) or how it writes (up).
public enum SyncTarget: Sendable, Equatable {
    case down(SyncDownTarget)
    case up(SyncUpTarget)

    public var type: SyncType {
        switch self {
        case .down: .syncDown
        case .up: .syncUp
        }
    }

    public var json: JSONValue {
        switch self {
        case let .down(target): target.json
        case let .up(target): target.json
        }
    }

    public init(type: SyncType, json: JSONValue?) throws(MobileSyncError) {
        switch type {
        case .syncDown:
            guard let json else { throw .invalidTarget("a sync down needs a target") }
            self = .down(try SyncDownTarget(json: json))
        case .syncUp:
            self = .up(try SyncUpTarget(json: json))
        }
    }
}

/// One sync as stored in `syncs_soup`: its definition and where its last run got to. The document
/// has the SDK's keys, so SDK tooling reads it unchanged.
public struct SyncState: Sendable, Equatable {
    public static let soupName = "syncs_soup"

    /// The `_soupEntryId` in `syncs_soup`; 0 until saved.
    public var id: Int64
    public var name: String?
    public var target: SyncTarget
    public var options: SyncOptions
    public var soupName: String
    public var status: SyncStatus
    /// 0–100.
    public var progress: Int
    /// -1 until known.
    public var totalSize: Int
    /// Epoch ms of the newest modification seen; -1 before any.
    public var maxTimeStamp: Int64
    public var startTime: Int64
    public var endTime: Int64
    /// The failure's message; "" when none.
    public var error: String
    /// Beyond the SDK: epoch ms of the last ghost check that compared every id with the server's
    /// (0: never). A check that only compared counts cannot see one record leave the set while
    /// another joins it (a sharing change), so every id is compared again after a while.
    public var idsComparedAt: Int64 = 0
    /// Beyond the SDK: set when the sync is a subscription the user made, not one of the config's.
    public var subscription: Subscription? = nil

    public var type: SyncType { target.type }

    public init(id: Int64 = 0, name: String? = nil, target: SyncTarget, options: SyncOptions, soupName: String) {
        self.id = id
        self.name = name
        self.target = target
        self.options = options
        self.soupName = soupName
        status = .new
        progress = 0
        totalSize = -1
        maxTimeStamp = -1
        startTime = 0
        endTime = 0
        error = ""
    }

    public var isDone: Bool { status == .done }
    public var isRunning: Bool { status == .running }

    /// Moves to `status`, stamping startTime on entering RUNNING and endTime on leaving it.
    public mutating func transition(to newStatus: SyncStatus, now: Int64) {
        if newStatus == .running, status != .running { startTime = now }
        if status == .running, newStatus != .running { endTime = now }
        status = newStatus
    }

    /// What reSync does before running: unknown total, and after a stop a 1 ms rewind so records
    /// sharing the boundary timestamp are fetched again (as the SDK does).
    public mutating func prepareForResync() {
        totalSize = -1
        if status == .stopped { maxTimeStamp = max(maxTimeStamp - 1, -1) }
    }

    // MARK: JSON

    public var json: JSONObject {
        var object: JSONObject = [:]
        if id > 0 { object[SmartStore.soupEntryId] = .int(id) }
        object["type"] = .string(type.rawValue)
        if let name { object["name"] = .string(name) }
        object["target"] = target.json
        object["options"] = options.json
        object["soupName"] = .string(soupName)
        object["status"] = .string(status.rawValue)
        object["progress"] = .int(Int64(progress))
        object["totalSize"] = .int(Int64(totalSize))
        object["maxTimeStamp"] = .int(maxTimeStamp)
        object["startTime"] = .int(startTime)
        object["endTime"] = .int(endTime)
        object["error"] = .string(error)
        if idsComparedAt > 0 { object["idsComparedAt"] = .int(idsComparedAt) }
        if let subscription { object["subscription"] = subscription.json }
        return object
    }

    /// Reads a stored state. Unlike Android's, endTime comes from the `endTime` key.
    public init(json: JSONObject) throws(MobileSyncError) {
        let value = JSONValue.object(json)
        guard let typeName = value["type"]?.stringValue, let type = SyncType(rawValue: typeName) else {
            throw .invalidConfig("a sync state needs \"type\": syncDown or syncUp, found \(value["type"] ?? .null)")
        }
        guard let soupName = value["soupName"]?.stringValue else { throw .invalidConfig("a sync state needs a \"soupName\"") }
        self.init(
            id: value[SmartStore.soupEntryId]?.int64Value ?? 0,
            name: try JSONFields.string(value["name"], key: "name"),
            target: try SyncTarget(type: type, json: value["target"]),
            options: try SyncOptions(json: value["options"]),
            soupName: soupName)
        if let raw = value["status"]?.stringValue {
            guard let status = SyncStatus(rawValue: raw) else { throw .invalidConfig("unknown sync status \"\(raw)\"") }
            self.status = status
        }
        progress = Int(value["progress"]?.int64Value ?? 0)
        totalSize = Int(value["totalSize"]?.int64Value ?? -1)
        maxTimeStamp = value["maxTimeStamp"]?.int64Value ?? -1
        startTime = value["startTime"]?.int64Value ?? 0
        endTime = value["endTime"]?.int64Value ?? 0
        error = value["error"]?.stringValue ?? ""
        idsComparedAt = value["idsComparedAt"]?.int64Value ?? 0
        if let subscription = value["subscription"], !subscription.isNull { self.subscription = try Subscription(json: subscription) }
    }
}
