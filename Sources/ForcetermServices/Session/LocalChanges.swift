import ContactsApp
import ForceAPI
import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// Records with `__local__` true, per soup: the changes a sign-out would strand.
public struct LocalChanges {
    public var perSoup: [(soup: String, count: Int)] = []

    public init(perSoup: [(soup: String, count: Int)] = []) { self.perSoup = perSoup }

    public var total: Int { perSoup.reduce(0) { $0 + $1.count } }

    /// "3 records with local changes (contacts: 2, accounts: 1)".
    public var summary: String {
        let detail = perSoup.filter { $0.count > 0 }.map { "\($0.soup): \($0.count)" }.joined(separator: ", ")
        return "\(total) record\(total == 1 ? "" : "s") with local changes (\(detail))"
    }

    /// Counts them in the store at `storePath`; a store that does not exist has none.
    public static func count(storePath: String) throws -> LocalChanges {
        guard FileManager.default.fileExists(atPath: storePath) else { return LocalChanges() }
        return try count(in: StoreKeys.open(storePath, mustExist: true))
    }

    /// Counts them in an open store.
    public static func count(in store: SmartStore) throws -> LocalChanges {
        var changes = LocalChanges()
        for soup in try store.soupNames() {
            changes.perSoup.append((soup, try store.count(flagged(LocalField.local, soup: soup, in: store))))
        }
        return changes
    }

    /// The soup's records whose boolean `flag` is true, whether or not the soup indexes it: a
    /// query spec's rows are the documents themselves, Smart SQL's are one-column arrays of them.
    public static func flagged(_ flag: String, soup: String, in store: SmartStore, pageSize: Int = QuerySpec.defaultPageSize) throws -> QuerySpec {
        if try store.hasIndex(soup: soup, path: flag) { return .exact(soup, path: flag, matchKey: true, pageSize: pageSize) }
        // Unindexed paths compare through json_extract, where JSON true is 1.
        return .smart("SELECT {\(soup):_soup} FROM {\(soup)} WHERE {\(soup):\(flag)} = 1", pageSize: pageSize)
    }

    /// Soups the engine keeps for itself, which hold no records of the user's.
    public static let bookkeepingSoups: Set<String> = [SyncState.soupName, LocalIdMap.soupName, WriteJournal.soupName, SyncRunLog.soupName, SyncMembers.soupName]
}
