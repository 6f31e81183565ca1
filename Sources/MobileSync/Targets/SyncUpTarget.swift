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
    /// Set for the SDK's parent_children sync up: the parents (this target's soup and fields),
    /// then their children.
    public var parentChildren: ParentChildrenUp?

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
        if let parentChildren {
            object["androidImpl"] = .string(ParentChildrenUp.androidImpl)
            object["iOSImpl"] = .string(ParentChildrenUp.iOSImpl)
            for (key, value) in parentChildren.jsonFields { object[key] = value }
        }
        object["idFieldName"] = .string(idFieldName)
        object["modificationDateFieldName"] = .string(modificationDateFieldName)
        if let createFieldlist { object["createFieldlist"] = JSONFields.strings(createFieldlist) }
        if let updateFieldlist { object["updateFieldlist"] = JSONFields.strings(updateFieldlist) }
        if let externalIdFieldName { object["externalIdFieldName"] = .string(externalIdFieldName) }
        if mode != .singleRecord { object["maxBatchSize"] = .int(Int64(maxBatchSize)) }
        return .object(object)
    }

    /// The SDK's class an impl name means, without its platform's package or prefix
    /// (`com.salesforce.androidsdk.mobilesync.target.BatchSyncUpTarget`, `SFBatchSyncUpTarget` →
    /// `BatchSyncUpTarget`); any other name is an app's own class, returned as it is.
    static func sdkClassName(_ impl: String) -> String {
        let known = ["SyncUpTarget", "BatchSyncUpTarget", "CollectionSyncUpTarget", "ParentChildrenSyncUpTarget"]
        for prefix in ["com.salesforce.androidsdk.mobilesync.target.", "SF", ""] where impl.hasPrefix(prefix) {
            let name = String(impl.dropFirst(prefix.count))
            if known.contains(name) { return name }
        }
        return impl
    }

    public init(json: JSONValue?) throws(MobileSyncError) {
        let json = json ?? .object([:])
        guard json.objectValue != nil else { throw .invalidTarget("a sync up target must be an object: \(json)") }
        let androidImpl = try JSONFields.string(json["androidImpl"], key: "androidImpl")
        let iOSImpl = try JSONFields.string(json["iOSImpl"], key: "iOSImpl")
        let impl = androidImpl ?? iOSImpl
        let mode: Mode
        switch impl.map(Self.sdkClassName) {
        case nil, "CollectionSyncUpTarget": mode = .collection
        case "BatchSyncUpTarget": mode = .batch
        case "SyncUpTarget": mode = .singleRecord
        case "ParentChildrenSyncUpTarget":
            let tree = try ParentChildrenUp(json: json)
            self.init(
                mode: .batch, createFieldlist: try JSONFields.stringList(json["createFieldlist"], key: "createFieldlist"),
                updateFieldlist: try JSONFields.stringList(json["updateFieldlist"], key: "updateFieldlist"),
                externalIdFieldName: tree.parent.externalIdFieldName, idFieldName: tree.parent.idFieldName,
                modificationDateFieldName: tree.parent.modificationDateFieldName)
            parentChildren = tree
            return
        default:
            throw .unsupportedTarget("the custom sync up target \(impl ?? "") (an app's own class); remove androidImpl/iOSImpl to use the default")
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

/// The SDK's parent_children sync up (ParentChildrenSyncUpTarget): a parent soup and a children
/// soup whose records point at their parent through `children.parentIdFieldName`. forceterm sends
/// the parents first, then the children, each with the engine's composite sync up: a child of a
/// parent created in the same run is sent with the parent's new server id (`LocalIdMap`). Under
/// MASTER_DETAIL, deleting a parent deletes its children on the server, so they are removed here
/// and never sent. docs/mobilesync.md says where this differs from the SDK.
public struct ParentChildrenUp: Sendable, Equatable {
    static let androidImpl = "com.salesforce.androidsdk.mobilesync.target.ParentChildrenSyncUpTarget"
    static let iOSImpl = "SFParentChildrenSyncUpTarget"

    public var parent: ParentChildrenSpec.Side
    public var children: ParentChildrenSpec.Side
    public var childrenCreateFieldlist: [String]?
    public var childrenUpdateFieldlist: [String]?
    public var relationshipType: ParentChildrenSpec.RelationshipType

    public init(
        parent: ParentChildrenSpec.Side, children: ParentChildrenSpec.Side, childrenCreateFieldlist: [String]?,
        childrenUpdateFieldlist: [String]?, relationshipType: ParentChildrenSpec.RelationshipType
    ) {
        self.parent = parent
        self.children = children
        self.childrenCreateFieldlist = childrenCreateFieldlist
        self.childrenUpdateFieldlist = childrenUpdateFieldlist
        self.relationshipType = relationshipType
    }

    /// The field of a child that holds its parent's id.
    public var parentIdFieldName: String { children.parentIdFieldName ?? "ParentId" }

    /// The children's sync up: composite requests over the children soup, the parent id field
    /// always among the fields a create or an update may send.
    public var childTarget: SyncUpTarget {
        func withParentField(_ list: [String]?) -> [String]? {
            guard var list else { return nil }
            if !list.contains(parentIdFieldName) { list.append(parentIdFieldName) }
            return list
        }
        return SyncUpTarget(
            mode: .batch, createFieldlist: withParentField(childrenCreateFieldlist),
            updateFieldlist: withParentField(childrenUpdateFieldlist), externalIdFieldName: children.externalIdFieldName,
            idFieldName: children.idFieldName, modificationDateFieldName: children.modificationDateFieldName)
    }

    var jsonFields: JSONObject {
        var object: JSONObject = ["parent": parent.json, "children": children.json, "relationshipType": .string(relationshipType.rawValue)]
        if let childrenCreateFieldlist { object["childrenCreateFieldlist"] = JSONFields.strings(childrenCreateFieldlist) }
        if let childrenUpdateFieldlist { object["childrenUpdateFieldlist"] = JSONFields.strings(childrenUpdateFieldlist) }
        return object
    }

    init(json: JSONValue) throws(MobileSyncError) {
        let relation = try JSONFields.string(json["relationshipType"], key: "relationshipType") ?? "LOOKUP"
        guard let relationshipType = ParentChildrenSpec.RelationshipType(rawValue: relation) else {
            throw .invalidConfig("unknown relationshipType \"\(relation)\"; use MASTER_DETAIL or LOOKUP")
        }
        self.init(
            parent: try ParentChildrenSpec.Side(json: json["parent"], what: "parent", isChild: false),
            children: try ParentChildrenSpec.Side(json: json["children"], what: "children", isChild: true),
            childrenCreateFieldlist: try JSONFields.stringList(json["childrenCreateFieldlist"], key: "childrenCreateFieldlist"),
            childrenUpdateFieldlist: try JSONFields.stringList(json["childrenUpdateFieldlist"], key: "childrenUpdateFieldlist"),
            relationshipType: relationshipType)
    }
}
