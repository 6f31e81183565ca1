import Foundation
import MobileSync
import SmartStore

/// The syncs the benchmarks run: the contacts definitions of the repo's `usersyncs.json`, so the
/// benchmark measures what `forceterm sync` does, not a lighter variant.
struct BenchDefinitions: Sendable {
    static let soup = "contacts"

    /// `syncDownContacts`'s query without its LIMIT (the benchmark sizes the org instead).
    let downTarget: SyncDownTarget
    let downOptions: SyncOptions
    let upTarget: SyncUpTarget
    let upOptions: SyncOptions
    let storeConfig: StoreConfig

    init(configDirectory: String) throws {
        let directory = URL(fileURLWithPath: configDirectory)
        let syncs = try SyncsConfig(contentsOf: directory.appendingPathComponent("usersyncs.json"))
        guard let down = syncs.entries.first(where: { $0.name == "syncDownContacts" }),
            case let .down(downTarget) = down.target, case let .soql(query, batchSize) = downTarget.kind,
            let up = syncs.entries.first(where: { $0.name == "syncUpContacts" }), case let .up(upTarget) = up.target
        else {
            throw BenchError("\(configDirectory)/usersyncs.json has no soql syncDownContacts and syncUpContacts; run from the repository root or pass --config DIR")
        }
        let parsed = SoqlQuery(query)
        guard let select = parsed[.select], let from = parsed[.from] else { throw BenchError("syncDownContacts' query has no SELECT … FROM: \(query)") }
        var unlimited = "SELECT \(select) FROM \(from)"
        if let filter = parsed[.where] { unlimited += " WHERE \(filter)" }
        var target = downTarget
        target.kind = .soql(query: unlimited, maxBatchSize: batchSize)
        self.downTarget = target
        downOptions = down.options
        self.upTarget = upTarget
        upOptions = up.options
        storeConfig = try StoreConfig(contentsOf: directory.appendingPathComponent("userstore.json"))
    }

    /// The sync-down target limited to the `count` least recently modified records.
    func downTarget(limit count: Int) -> SyncDownTarget {
        var target = downTarget
        if case let .soql(query, batchSize) = target.kind { target.kind = .soql(query: "\(query) LIMIT \(count)", maxBatchSize: batchSize) }
        return target
    }

    /// A store file with the repo's soups; an encrypted one has its key in `<path>.key`, so the
    /// cases that reopen a store find it.
    func openStore(_ path: String, encrypted: Bool = false) throws -> SmartStore {
        let keyFile = path + ".key"
        if encrypted, !FileManager.default.fileExists(atPath: keyFile) { try StoreKey.random().write(toFile: keyFile) }
        let store = try SmartStore(path: path, encryption: encrypted ? .encrypted(try StoreKey(contentsOfFile: keyFile)) : .plain)
        _ = try store.setup(from: storeConfig)
        return store
    }
}

/// A benchmark that could not run, with what to do about it.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
