import ForceJSON

/// Keys of a `usersyncs.json` sync that differ only in case from one the SDK reads: the SDK (and
/// forceterm) ignore an unknown key, so `createFieldList` silently sends every field. Keys that
/// resemble nothing are left alone: the SDK's other platforms may read them.
enum MisspelledKeys {
    /// Every key read anywhere in a sync: its own, its target's (of every kind, parent and children
    /// included) and its options'.
    static let read: Set<String> = [
        "syncName", "syncType", "soupName", "target", "options", "mergeMode",
        "type", "query", "iOSImpl", "androidImpl", "idFieldName", "modificationDateFieldName", "maxBatchSize",
        "sobjectType", "sobjectTypePlural", "fieldlist", "createFieldlist", "updateFieldlist", "externalIdFieldName",
        "parent", "children", "relationshipType", "parentFieldlist", "childrenFieldlist", "childrenCreateFieldlist",
        "childrenUpdateFieldlist", "parentIdFieldName", "parentSoqlFilter", "infos", "formFactor", "layoutType", "mode",
        "recordTypeId", "countIdsPerRetrieve", "countIdsPerSoql",
    ]
    private static let byLowercase = Dictionary(read.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

    /// One line per misspelled key in `value` (a sync's object), with where it is and the key meant.
    static func notes(in value: JSONValue, sync name: String, path: String = "") -> [String] {
        switch value {
        case let .object(object):
            return object.flatMap { key, child -> [String] in
                let at = path.isEmpty ? key : "\(path).\(key)"
                var found = notes(in: child, sync: name, path: at)
                if !read.contains(key), let meant = byLowercase[key.lowercased()] {
                    found.insert("sync \"\(name)\": \"\(at)\" is not a key the SDK reads, so it is ignored; did you mean \"\(meant)\"?", at: 0)
                }
                return found
            }
        case let .array(items):
            return items.enumerated().flatMap { index, item in notes(in: item, sync: name, path: "\(path)[\(index)]") }
        default:
            return []
        }
    }
}
