import ForceJSON

/// Where a sync down reads from, serialised with the SDK's keys so a MobileSyncExplorer
/// `usersyncs.json` works unchanged.
public struct SyncDownTarget: Sendable, Equatable {
    public static let defaultIdFieldName = "Id"
    public static let defaultModificationDateFieldName = "LastModifiedDate"
    /// The SDK's default SOQL page size; the `Sforce-Query-Options` header is sent only for others.
    public static let defaultQueryBatchSize = 2000

    public enum Kind: Sendable, Equatable {
        case soql(query: String, maxBatchSize: Int)
        case sosl(query: String)
        case mru(sobjectType: String, fieldlist: [String])
        case refresh(sobjectType: String, fieldlist: [String], soupName: String, countIdsPerSoql: Int)
        case parentChildren(ParentChildrenSpec)
        case briefcase(infos: [BriefcaseInfo], countIdsPerRetrieve: Int)
        /// The SDK's metadata target: the sObject's describe, stored as one record whose Id is the
        /// sObject's name.
        case metadata(sobjectType: String)
        /// The SDK's layout target: a UI API record layout, stored as one record.
        case layout(LayoutRequest)

        /// Whether the target stores a description of an sObject rather than its records: one
        /// document per run, no ghosts to clean, no record tab.
        public var describesAnObject: Bool {
            switch self {
            case .metadata, .layout: true
            default: false
            }
        }

        var typeName: String {
            switch self {
            case .soql: "soql"
            case .sosl: "sosl"
            case .mru: "mru"
            case .refresh: "refresh"
            case .parentChildren: "parent_children"
            case .briefcase: "briefcase"
            case .metadata: "metadata"
            case .layout: "layout"
            }
        }
    }

    public var kind: Kind
    public var idFieldName: String
    public var modificationDateFieldName: String

    public init(
        _ kind: Kind, idFieldName: String = SyncDownTarget.defaultIdFieldName,
        modificationDateFieldName: String = SyncDownTarget.defaultModificationDateFieldName
    ) {
        self.kind = kind
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    public static func soql(_ query: String, maxBatchSize: Int = defaultQueryBatchSize) -> SyncDownTarget {
        SyncDownTarget(.soql(query: query, maxBatchSize: maxBatchSize))
    }

    /// The SOQL query this target runs on a full sync, rewritten as the SDK does (id and
    /// modification fields selected, ordered by modification); `nil` for non-SOQL targets.
    public var rewrittenSoql: String? {
        guard case let .soql(query, _) = kind else { return nil }
        return SoqlQuery(query).addingSyncFields(idField: idFieldName, modificationField: modificationDateFieldName).text
    }

    /// A SOQL target whose query has a top-level LIMIT or OFFSET: it always runs whole, never
    /// incrementally, because `>=` the high-water mark would select the next records rather than
    /// the capped set (docs/mobilesync.md, "Capped queries").
    public var isCapped: Bool {
        guard case let .soql(query, _) = kind else { return false }
        return SoqlQuery(query).isCapped
    }

    /// How many records a full run of a SOQL target would return now, by `SELECT COUNT()`; nil
    /// for other targets and for capped, grouped or filtered (WHERE) queries.
    public var remoteCountSoql: String? {
        guard case let .soql(query, _) = kind else { return nil }
        return SoqlQuery(query).countOnly()?.text
    }

    /// The ids-only query ghost cleaning runs for a SOQL target: the rewritten query's set, in its
    /// order and under its cap when it has one; `nil` for non-SOQL targets.
    public var remoteIdsSoql: String? {
        rewrittenSoql.map { SoqlQuery($0).idsOnly(idField: idFieldName).text }
    }

    // MARK: JSON

    public var json: JSONValue {
        var object: JSONObject = [
            "type": .string(kind.typeName),
            "idFieldName": .string(idFieldName),
            "modificationDateFieldName": .string(modificationDateFieldName),
        ]
        switch kind {
        case let .soql(query, maxBatchSize):
            object["query"] = .string(query)
            object["maxBatchSize"] = .int(Int64(maxBatchSize))
        case let .sosl(query):
            object["query"] = .string(query)
        case let .mru(sobjectType, fieldlist):
            object["sobjectType"] = .string(sobjectType)
            object["fieldlist"] = JSONFields.strings(fieldlist)
        case let .refresh(sobjectType, fieldlist, soupName, countIdsPerSoql):
            object["sobjectType"] = .string(sobjectType)
            object["fieldlist"] = JSONFields.strings(fieldlist)
            object["soupName"] = .string(soupName)
            object["countIdsPerSoql"] = .int(Int64(countIdsPerSoql))
        case let .parentChildren(spec):
            for (key, value) in spec.jsonFields { object[key] = value }
        case let .briefcase(infos, countIdsPerRetrieve):
            object["infos"] = .array(infos.map(\.json))
            object["countIdsPerRetrieve"] = .int(Int64(countIdsPerRetrieve))
        case let .metadata(sobjectType):
            object["sobjectType"] = .string(sobjectType)
        case let .layout(request):
            for (key, value) in request.json { object[key] = value }
        }
        return .object(object)
    }

    public init(json: JSONValue) throws(MobileSyncError) {
        guard json.objectValue != nil else { throw .invalidTarget("a sync down target must be an object: \(json)") }
        let idField = try JSONFields.string(json["idFieldName"], key: "idFieldName") ?? Self.defaultIdFieldName
        let modField =
            try JSONFields.string(json["modificationDateFieldName"], key: "modificationDateFieldName")
            ?? Self.defaultModificationDateFieldName
        guard let type = try JSONFields.string(json["type"], key: "type") else {
            throw .invalidTarget("a sync down target needs a \"type\": soql, sosl, mru, refresh, parent_children, briefcase, metadata or layout")
        }
        let kind: Kind
        switch type {
        case "soql":
            let query = try JSONFields.requiredString(json["query"], key: "query", in: "a soql target")
            let batch = try JSONFields.int(json["maxBatchSize"], key: "maxBatchSize") ?? Self.defaultQueryBatchSize
            kind = .soql(query: query, maxBatchSize: min(max(batch, 200), 2000))
        case "sosl":
            kind = .sosl(query: try JSONFields.requiredString(json["query"], key: "query", in: "a sosl target"))
        case "mru":
            kind = .mru(
                sobjectType: try JSONFields.requiredString(json["sobjectType"], key: "sobjectType", in: "an mru target"),
                fieldlist: try JSONFields.stringList(json["fieldlist"], key: "fieldlist") ?? [])
        case "refresh":
            let count = try JSONFields.int(json["countIdsPerSoql"], key: "countIdsPerSoql") ?? 500
            kind = .refresh(
                sobjectType: try JSONFields.requiredString(json["sobjectType"], key: "sobjectType", in: "a refresh target"),
                fieldlist: try JSONFields.stringList(json["fieldlist"], key: "fieldlist") ?? [],
                soupName: try JSONFields.requiredString(json["soupName"], key: "soupName", in: "a refresh target"),
                countIdsPerSoql: min(max(count, 1), 500))
        case "parent_children":
            kind = .parentChildren(try ParentChildrenSpec(json: json))
        case "briefcase":
            guard let infos = json["infos"]?.arrayValue, !infos.isEmpty else {
                throw .invalidConfig("a briefcase target needs a non-empty \"infos\" list")
            }
            let count = try JSONFields.int(json["countIdsPerRetrieve"], key: "countIdsPerRetrieve") ?? 500
            kind = .briefcase(
                infos: try infos.map { (info) throws(MobileSyncError) in try BriefcaseInfo(json: info) },
                countIdsPerRetrieve: min(max(count, 1), 2000))
        case "metadata":
            kind = .metadata(sobjectType: try JSONFields.requiredString(json["sobjectType"], key: "sobjectType", in: "a metadata target"))
        case "layout":
            kind = .layout(try LayoutRequest(json: json))
        default:
            throw .invalidTarget(
                "sync down target type \"\(type)\" is not supported; use soql, sosl, mru, refresh, parent_children, briefcase, metadata or layout")
        }
        self.init(kind, idFieldName: idField, modificationDateFieldName: modField)
    }
}

/// What a layout target asks the UI API for (`ui-api/layout/<sobjectType>`); each part left out is
/// left to the org's default.
public struct LayoutRequest: Sendable, Equatable {
    public var sobjectType: String
    public var formFactor: String?
    public var layoutType: String?
    public var mode: String?
    public var recordTypeId: String?

    public init(sobjectType: String, formFactor: String? = nil, layoutType: String? = nil, mode: String? = nil, recordTypeId: String? = nil) {
        self.sobjectType = sobjectType
        self.formFactor = formFactor
        self.layoutType = layoutType
        self.mode = mode
        self.recordTypeId = recordTypeId
    }

    /// The stored layout's Id: the five parts joined by `-`, a missing one as `null` (as the SDK
    /// for Android writes it; the iOS SDK writes `(null)`).
    public var recordId: String {
        [sobjectType, formFactor, layoutType, mode, recordTypeId].map { $0 ?? "null" }.joined(separator: "-")
    }

    /// The resource's query parameters, those given only.
    public var queryItems: [(String, String)] {
        [("formFactor", formFactor), ("layoutType", layoutType), ("mode", mode), ("recordTypeId", recordTypeId)]
            .compactMap { name, value in value.map { (name, $0) } }
    }

    var json: JSONObject {
        var object: JSONObject = ["sobjectType": .string(sobjectType)]
        for (name, value) in queryItems { object[name] = .string(value) }
        return object
    }

    init(json: JSONValue) throws(MobileSyncError) {
        self.init(
            sobjectType: try JSONFields.requiredString(json["sobjectType"], key: "sobjectType", in: "a layout target"),
            formFactor: try JSONFields.string(json["formFactor"], key: "formFactor"),
            layoutType: try JSONFields.string(json["layoutType"], key: "layoutType"),
            mode: try JSONFields.string(json["mode"], key: "mode"),
            recordTypeId: try JSONFields.string(json["recordTypeId"], key: "recordTypeId"))
    }
}

/// One sObject type of a briefcase target, and the soup its records go to.
public struct BriefcaseInfo: Sendable, Equatable {
    public var sobjectType: String
    public var fieldlist: [String]
    public var soupName: String
    public var idFieldName: String
    public var modificationDateFieldName: String

    public init(
        sobjectType: String, fieldlist: [String], soupName: String,
        idFieldName: String = SyncDownTarget.defaultIdFieldName,
        modificationDateFieldName: String = SyncDownTarget.defaultModificationDateFieldName
    ) {
        self.sobjectType = sobjectType
        self.fieldlist = fieldlist
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    var json: JSONValue {
        .object([
            "sobjectType": .string(sobjectType), "fieldlist": JSONFields.strings(fieldlist), "soupName": .string(soupName),
            "idFieldName": .string(idFieldName), "modificationDateFieldName": .string(modificationDateFieldName),
        ])
    }

    init(json: JSONValue) throws(MobileSyncError) {
        self.init(
            sobjectType: try JSONFields.requiredString(json["sobjectType"], key: "sobjectType", in: "a briefcase info"),
            fieldlist: try JSONFields.stringList(json["fieldlist"], key: "fieldlist") ?? [],
            soupName: try JSONFields.requiredString(json["soupName"], key: "soupName", in: "a briefcase info"),
            idFieldName: try JSONFields.string(json["idFieldName"], key: "idFieldName") ?? SyncDownTarget.defaultIdFieldName,
            modificationDateFieldName: try JSONFields.string(json["modificationDateFieldName"], key: "modificationDateFieldName")
                ?? SyncDownTarget.defaultModificationDateFieldName)
    }
}

/// The parent_children target: parents with their children in one SOQL query with a subquery.
public struct ParentChildrenSpec: Sendable, Equatable {
    public struct Side: Sendable, Equatable {
        public var sobjectType: String
        public var soupName: String
        public var idFieldName: String
        public var modificationDateFieldName: String
        public var externalIdFieldName: String?
        /// Children only: the plural name used in the subquery, and the field holding the parent's id.
        public var sobjectTypePlural: String?
        public var parentIdFieldName: String?

        public init(
            sobjectType: String, soupName: String, idFieldName: String = "Id",
            modificationDateFieldName: String = "LastModifiedDate", externalIdFieldName: String? = nil,
            sobjectTypePlural: String? = nil, parentIdFieldName: String? = nil
        ) {
            self.sobjectType = sobjectType
            self.soupName = soupName
            self.idFieldName = idFieldName
            self.modificationDateFieldName = modificationDateFieldName
            self.externalIdFieldName = externalIdFieldName
            self.sobjectTypePlural = sobjectTypePlural
            self.parentIdFieldName = parentIdFieldName
        }

        var json: JSONValue {
            var object: JSONObject = [
                "sobjectType": .string(sobjectType), "soupName": .string(soupName),
                "idFieldName": .string(idFieldName), "modificationDateFieldName": .string(modificationDateFieldName),
            ]
            if let externalIdFieldName { object["externalIdFieldName"] = .string(externalIdFieldName) }
            if let sobjectTypePlural { object["sobjectTypePlural"] = .string(sobjectTypePlural) }
            if let parentIdFieldName { object["parentIdFieldName"] = .string(parentIdFieldName) }
            return .object(object)
        }

        init(json: JSONValue?, what: String, isChild: Bool) throws(MobileSyncError) {
            guard let json, json.objectValue != nil else { throw .invalidConfig("a parent_children target needs \"\(what)\"") }
            self.init(
                sobjectType: try JSONFields.requiredString(json["sobjectType"], key: "sobjectType", in: what),
                soupName: try JSONFields.requiredString(json["soupName"], key: "soupName", in: what),
                idFieldName: try JSONFields.string(json["idFieldName"], key: "idFieldName") ?? "Id",
                modificationDateFieldName: try JSONFields.string(json["modificationDateFieldName"], key: "modificationDateFieldName")
                    ?? "LastModifiedDate",
                externalIdFieldName: try JSONFields.string(json["externalIdFieldName"], key: "externalIdFieldName"),
                sobjectTypePlural: isChild
                    ? try JSONFields.requiredString(json["sobjectTypePlural"], key: "sobjectTypePlural", in: what) : nil,
                parentIdFieldName: isChild
                    ? try JSONFields.requiredString(json["parentIdFieldName"], key: "parentIdFieldName", in: what) : nil)
        }
    }

    public enum RelationshipType: String, Sendable, Equatable {
        case masterDetail = "MASTER_DETAIL"
        case lookup = "LOOKUP"
    }

    public var parent: Side
    public var children: Side
    public var parentFieldlist: [String]
    public var childrenFieldlist: [String]
    public var parentSoqlFilter: String?
    public var relationshipType: RelationshipType

    public init(
        parent: Side, children: Side, parentFieldlist: [String], childrenFieldlist: [String],
        parentSoqlFilter: String? = nil, relationshipType: RelationshipType = .lookup
    ) {
        self.parent = parent
        self.children = children
        self.parentFieldlist = parentFieldlist
        self.childrenFieldlist = childrenFieldlist
        self.parentSoqlFilter = parentSoqlFilter
        self.relationshipType = relationshipType
    }

    var jsonFields: JSONObject {
        var object: JSONObject = [
            "parent": parent.json, "children": children.json,
            "parentFieldlist": JSONFields.strings(parentFieldlist), "childrenFieldlist": JSONFields.strings(childrenFieldlist),
            "relationshipType": .string(relationshipType.rawValue),
        ]
        if let parentSoqlFilter { object["parentSoqlFilter"] = .string(parentSoqlFilter) }
        return object
    }

    init(json: JSONValue) throws(MobileSyncError) {
        let relation = try JSONFields.string(json["relationshipType"], key: "relationshipType") ?? "LOOKUP"
        guard let relationshipType = RelationshipType(rawValue: relation) else {
            throw .invalidConfig("unknown relationshipType \"\(relation)\"; use MASTER_DETAIL or LOOKUP")
        }
        self.init(
            parent: try Side(json: json["parent"], what: "parent", isChild: false),
            children: try Side(json: json["children"], what: "children", isChild: true),
            parentFieldlist: try JSONFields.stringList(json["parentFieldlist"], key: "parentFieldlist") ?? [],
            childrenFieldlist: try JSONFields.stringList(json["childrenFieldlist"], key: "childrenFieldlist") ?? [],
            parentSoqlFilter: try JSONFields.string(json["parentSoqlFilter"], key: "parentSoqlFilter"),
            relationshipType: relationshipType)
    }

    /// The SDK's query: parents with a child subquery, both filtered by modification time on a resync.
    public func query(after timestamp: String?) -> String {
        func fields(_ list: [String], _ side: Side) -> String {
            var all = [side.idFieldName, side.modificationDateFieldName]
            for field in list where !all.contains(where: { $0.caseInsensitiveCompare(field) == .orderedSame }) { all.append(field) }
            return all.joined(separator: ", ")
        }
        var childWhere = ""
        var parentWhere: [String] = []
        if let timestamp {
            childWhere = " where \(children.modificationDateFieldName) > \(timestamp)"
            parentWhere.append("\(parent.modificationDateFieldName) > \(timestamp)")
        }
        if let filter = parentSoqlFilter, !filter.isEmpty { parentWhere.append("(\(filter))") }
        let plural = children.sobjectTypePlural ?? children.sobjectType
        var query = "select \(fields(parentFieldlist, parent)), (select \(fields(childrenFieldlist, children)) from \(plural)\(childWhere)) from \(parent.sobjectType)"
        if !parentWhere.isEmpty { query += " where " + parentWhere.joined(separator: " and ") }
        return query + " order by \(parent.modificationDateFieldName)"
    }
}

/// Keys forceterm adds to a stored describe (the metadata target's record).
public enum SObjectDescribeKeys {
    /// `{recordTypeId: {picklistField: [values]}}`, from the UI API: which values each record type
    /// offers. A local-only key (double underscores, like SmartStore's own), which the Mobile
    /// SDK's readers of the describe ignore.
    public static let picklistsByRecordType = "__picklistsByRecordType__"
    /// The describe's ETag, sent back as `If-None-Match` by the next run (a 304 keeps this record).
    public static let eTag = "__eTag__"
    /// `{recordTypeId: ETag}` of the UI API's picklist answers, asked again the same way.
    public static let picklistETags = "__picklistETags__"
}
