import ForceJSON
import SmartStore

/// Where each locally created record ended up on the server: `local_…` id → server id, kept in the
/// soup `sync_local_ids` and written in the same transaction that gives the record its server id.
/// Later sync ups (other soups, other runs) rewrite references with it.
public struct LocalIdMap: Sendable {
    public static let soupName = "sync_local_ids"
    static let indexSpecs = [IndexSpec(path: "localId", type: .string), IndexSpec(path: "serverId", type: .string)]

    public static func register(in transaction: StoreTransaction) throws {
        try transaction.registerSoup(soupName, indexSpecs: indexSpecs)
    }

    public static func record(localId: String, serverId: String, soup: String, in transaction: StoreTransaction) throws {
        try record([(localId, serverId)], soup: soup, in: transaction)
    }

    /// Records several pairs at once (the creates of one request), in one batch.
    public static func record(_ pairs: [(localId: String, serverId: String)], soup: String, in transaction: StoreTransaction) throws {
        guard !pairs.isEmpty else { return }
        try register(in: transaction)
        _ = try transaction.upsert(
            pairs.map { ["localId": .string($0.localId), "serverId": .string($0.serverId), "soupName": .string(soup)] },
            in: soupName, externalIdPath: "localId")
    }

    public static func all(in transaction: StoreTransaction) throws -> [String: String] {
        guard try transaction.hasSoup(soupName) else { return [:] }
        let rows = try GhostCleaner.pairs("SELECT {\(soupName):localId}, {\(soupName):serverId} FROM {\(soupName)}", in: transaction)
        return Dictionary(rows, uniquingKeysWith: { _, last in last })
    }
}

extension GhostCleaner {
    /// Every row of two strings of a Smart SQL query.
    static func pairs(_ sql: String, in transaction: StoreTransaction) throws -> [(String, String)] {
        try rows(sql, in: transaction).compactMap { pair in
            guard pair.count == 2, let a = pair[0].stringValue, let b = pair[1].stringValue else { return nil }
            return (a, b)
        }
    }
}
