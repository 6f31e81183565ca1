import ForceJSON
import SmartStore

/// What a subscription of a soup fetches, taken from the config's syncs of that soup, so the
/// records it holds have the fields the soup's others have: the select list of the config's SOQL
/// sync down into the soup, or else the fields its sync up sends (a config that sends contacts
/// and fetches only accounts).
public struct SubscriptionBase: Sendable, Equatable {
    public var soupName: String
    public var sobjectType: String
    /// The fields fetched, as the config writes them (the id and modification fields are added
    /// to the query as for any SOQL sync).
    public var fields: [String]
    public var idFieldName: String
    public var modificationDateFieldName: String
    public var mergeMode: MergeMode

    /// The base of `soup` among `syncs` (config syncs only; subscriptions are not a base). `name`
    /// is the subscription's, for the refusal. Without a sync down, the object is read from a
    /// record of the soup or found as the described object named like the soup (`contacts`).
    public static func of(
        soup: String, name: String, syncs: [SyncState], recordType: String? = nil, describedObjects: [String] = []
    ) throws(MobileSyncError) -> SubscriptionBase {
        let config = syncs.filter { $0.subscription == nil && $0.soupName == soup }
        for state in config {
            guard case let .down(target) = state.target, case let .soql(query, _) = target.kind else { continue }
            let soql = SoqlQuery(query)
            guard let object = soql.objectName else { continue }
            return SubscriptionBase(
                soupName: soup, sobjectType: object, fields: soql.selectFields.filter(SoqlQuery.isFieldPath),
                idFieldName: target.idFieldName, modificationDateFieldName: target.modificationDateFieldName,
                mergeMode: state.options.mergeMode)
        }
        for state in config {
            guard case let .up(target) = state.target else { continue }
            let fields = (state.options.fieldlist ?? []) + (target.createFieldlist ?? []) + (target.updateFieldlist ?? [])
            var unique: [String] = []
            for field in fields where !unique.contains(field) { unique.append(field) }
            guard !unique.isEmpty else { continue }
            let object = recordType ?? describedObjects.first { $0.lowercased() + "s" == soup.lowercased() }
            guard let object else {
                throw .invalidSubscription(
                    name: name,
                    reason: "forceterm cannot tell which object the soup \(soup) holds: it has no record yet and no sync down says; "
                        + "add a sync down of \(soup) to usersyncs.json, or sync once so the soup holds a record")
            }
            return SubscriptionBase(
                soupName: soup, sobjectType: object, fields: unique, idFieldName: target.idFieldName,
                modificationDateFieldName: target.modificationDateFieldName, mergeMode: state.options.mergeMode)
        }
        let soups = Set(syncs.filter { $0.subscription == nil }.map(\.soupName)).sorted()
        throw .invalidSubscription(
            name: name,
            reason: "no sync of the config fetches or sends the soup \(soup), so nothing says which fields to fetch; "
                + "the config's soups are \(soups.joined(separator: ", "))")
    }

    /// The fields a condition may name: those fetched, the id and modification fields, and the
    /// owner and account references when the object has them (`described`), which every record
    /// carries though a config need not list them.
    public func filterableFields(described: DescribedFields?) -> [String] {
        var names = fields
        for extra in [idFieldName, modificationDateFieldName, "OwnerId", "AccountId"] where !names.contains(where: { $0.caseInsensitiveCompare(extra) == .orderedSame }) {
            if extra == idFieldName || extra == modificationDateFieldName || described?.field(extra) != nil { names.append(extra) }
        }
        return names
    }

    /// The sync down of the records `condition` selects, with this base's fields.
    public func target(condition: String) -> SyncDownTarget {
        let query = "SELECT \(fields.joined(separator: ", ")) FROM \(sobjectType) WHERE (\(condition))"
        return SyncDownTarget(.soql(query: query, maxBatchSize: SyncDownTarget.defaultQueryBatchSize), idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
    }
}
