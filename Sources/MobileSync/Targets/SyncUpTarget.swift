import ForceJSON

/// Where and how a sync up writes, serialised with the SDK's keys. With no impl class the target is
/// the SDK's default since 10.1, the sObject-collections one.
public struct SyncUpTarget: Sendable, Equatable {
    /// How records travel: one request per record, a composite request of up to 25, or sObject
    /// collections of up to 200.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        case singleRecord, batch, collection

        /// The most records one request of this mode may carry.
        public var limit: Int {
            switch self {
            case .singleRecord: 1
            case .batch: 25
            case .collection: 200
            }
        }

        var androidImpl: String? {
            switch self {
            case .singleRecord: "com.salesforce.androidsdk.mobilesync.target.SyncUpTarget"
            case .batch: "com.salesforce.androidsdk.mobilesync.target.BatchSyncUpTarget"
            case .collection: nil
            }
        }

        var iOSImpl: String? {
            switch self {
            case .singleRecord: "SFSyncUpTarget"
            case .batch: "SFBatchSyncUpTarget"
            case .collection: nil
            }
        }
    }

    public var mode: Mode
    public var idFieldName: String
    public var modificationDateFieldName: String
    public var createFieldlist: [String]?
    public var updateFieldlist: [String]?
    public var externalIdFieldName: String?
    /// Records per request, clamped to the mode's limit.
    public var maxBatchSize: Int

    public init(
        mode: Mode = .collection, createFieldlist: [String]? = nil, updateFieldlist: [String]? = nil,
        externalIdFieldName: String? = nil, maxBatchSize: Int? = nil, idFieldName: String = "Id",
        modificationDateFieldName: String = "LastModifiedDate"
    ) {
        self.mode = mode
        self.createFieldlist = createFieldlist
        self.updateFieldlist = updateFieldlist
        self.externalIdFieldName = externalIdFieldName
        self.maxBatchSize = min(max(maxBatchSize ?? mode.limit, 1), mode.limit)
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    public var json: JSONValue {
        var object: JSONObject = [:]
        if let impl = mode.androidImpl { object["androidImpl"] = .string(impl) }
        if let impl = mode.iOSImpl { object["iOSImpl"] = .string(impl) }
        object["idFieldName"] = .string(idFieldName)
        object["modificationDateFieldName"] = .string(modificationDateFieldName)
        if let createFieldlist { object["createFieldlist"] = JSONFields.strings(createFieldlist) }
        if let updateFieldlist { object["updateFieldlist"] = JSONFields.strings(updateFieldlist) }
        if let externalIdFieldName { object["externalIdFieldName"] = .string(externalIdFieldName) }
        if mode != .singleRecord { object["maxBatchSize"] = .int(Int64(maxBatchSize)) }
        return .object(object)
    }

    public init(json: JSONValue?) throws(MobileSyncError) {
        let json = json ?? .object([:])
        guard json.objectValue != nil else { throw .invalidTarget("a sync up target must be an object: \(json)") }
        let androidImpl = try JSONFields.string(json["androidImpl"], key: "androidImpl")
        let iOSImpl = try JSONFields.string(json["iOSImpl"], key: "iOSImpl")
        let impl = androidImpl ?? iOSImpl
        let mode: Mode
        switch impl {
        case nil: mode = .collection
        case let name? where name.hasSuffix("CollectionSyncUpTarget"): mode = .collection
        case let name? where name.hasSuffix("BatchSyncUpTarget"): mode = .batch
        case let name? where name.hasSuffix("ParentChildrenSyncUpTarget"):
            throw .unsupportedTarget("the parent_children sync up target (the SDK's ParentChildrenSyncUpTarget); sync parents and children with two sync ups, parents first")
        case let name? where name.hasSuffix("SyncUpTarget"): mode = .singleRecord
        case let name?: throw .invalidTarget("custom sync up target \(name) is not supported; remove androidImpl/iOSImpl to use the default")
        }
        self.init(
            mode: mode,
            createFieldlist: try JSONFields.stringList(json["createFieldlist"], key: "createFieldlist"),
            updateFieldlist: try JSONFields.stringList(json["updateFieldlist"], key: "updateFieldlist"),
            externalIdFieldName: try JSONFields.string(json["externalIdFieldName"], key: "externalIdFieldName"),
            maxBatchSize: try JSONFields.int(json["maxBatchSize"], key: "maxBatchSize"),
            idFieldName: try JSONFields.string(json["idFieldName"], key: "idFieldName") ?? "Id",
            modificationDateFieldName: try JSONFields.string(json["modificationDateFieldName"], key: "modificationDateFieldName")
                ?? "LastModifiedDate")
    }
}
