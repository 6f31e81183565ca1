import ArgumentParser
import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import MobileSync
import SmartStore

/// One benchmark case in a process of its own (so its peak RSS is its own); prints one JSON line.
struct BenchCase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "case", abstract: "Run one benchmark case (used by sync-bench).", shouldDisplay: false)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        /// The paged SOQL query of the sync down through ForceClient, records dropped: the baseline.
        case downRaw = "down-raw"
        /// The same records, fetched first (untimed), then stored by the engine's own writer page
        /// by page, bulk-loaded as a first sync is, with no network: the store's floor.
        case downStoreLoad = "down-store-load"
        /// A first sync down into an empty store.
        case downSync = "down-sync"
        /// reSync of `down-sync`'s sync: incremental from its high-water mark.
        case downResync = "down-resync"
        /// A new sync down of the same target into `down-sync`'s store: a full sync of the same data.
        case downFullAgain = "down-full-again"
        /// Local creates and updates sent up (half each), after a sync down of the records to update.
        case up
        /// `forceterm subscribe` of a slice of `n` contacts, its first sync and ghost check.
        case sliceFirst = "slice-first"
        /// The same subscription synced again, nothing changed, with its ghost check.
        case sliceResync = "slice-resync"
    }

    @Argument var kind: Kind
    @Option var url: String
    @Option var ca: String
    @Option var config = "config"
    @Option var store: String?
    @Option var n = 0
    @Option var mode: SyncUpTarget.Mode = .collection
    @Option var merge: MergeMode?
    @Option var requestConcurrency = SyncManager.defaultRequestConcurrency
    @Option(help: "Query pages a sync down asks for at once (forceterm: 1 unless config.toml says otherwise).") var pagesInFlight = 1
    @Flag(help: "Before a sync down, add the TUI's list index (LastName under smartstore_text), as a sync run from the TUI has.")
    var listIndex = false
    @Flag(help: "The sync up sends updates only (n records synced down once, then edited), no creates.") var updatesOnly = false
    @Flag(help: "Before the timed sync up, an untimed one of an earlier edit of the same records, with no sync down after it: their dates are unknown.")
    var datesUnknown = false
    @Flag(help: "The store is encrypted (SQLCipher 4's format; a key file beside it, made on first use), as the demo's is.")
    var encrypted = false

    static let downSyncName = "benchSyncDown"

    func run() async throws {
        let definitions = try BenchDefinitions(configDirectory: config)
        let session = try await BenchSession.signIn(url: url, caFile: ca)
        var result: JSONObject
        switch kind {
        case .downRaw: result = try await downRaw(definitions, session)
        case .downStoreLoad: result = try await downStoreLoad(definitions, session)
        case .downSync: result = try await downSync(definitions, session, name: Self.downSyncName, expected: n)
        case .downResync: result = try await downResync(definitions, session)
        case .downFullAgain: result = try await downSync(definitions, session, name: "benchSyncDownFullAgain", expected: nil)
        case .up: result = try await up(definitions, session)
        case .sliceFirst: result = try await slice(definitions, session, first: true)
        case .sliceResync: result = try await slice(definitions, session, first: false)
        }
        result["peakRSSMB"] = .double(ProcessMeasurements.peakRSSMegabytes())
        // Connections closed and threads stopped before exit handlers run (see CurlTransport.shutdown).
        session.client.shutdown()
        print(JSONWriter.string(.object(result)))
    }

    func requiredStore() throws -> String {
        guard let store else { throw ValidationError("--store is required for \(kind.rawValue)") }
        return store
    }

    // MARK: Sync down

    private func downRaw(_ definitions: BenchDefinitions, _ session: BenchSession) async throws -> JSONObject {
        guard let soql = definitions.downTarget.rewrittenSoql else { throw BenchError("the sync-down target is not SOQL") }
        let start = ContinuousClock.now
        var page = try await session.client.query(soql)
        var records = page.records.count
        while let next = page.nextRecordsURL {
            page = try await session.client.queryMore(next)
            records += page.records.count
        }
        let seconds = ProcessMeasurements.seconds(since: start)
        guard records == n else { throw BenchError("the query returned \(records) records, expected \(n)") }
        return ["seconds": .double(seconds), "records": .int(Int64(records)), "requests": .int(Int64(session.requests.value))]
    }

    private func downStoreLoad(_ definitions: BenchDefinitions, _ session: BenchSession) async throws -> JSONObject {
        guard let soql = definitions.downTarget.rewrittenSoql else { throw BenchError("the sync-down target is not SOQL") }
        var pages: [[JSONObject]] = []
        var page = try await session.client.query(soql)
        pages.append(page.records.compactMap(\.objectValue))
        while let next = page.nextRecordsURL {
            page = try await session.client.queryMore(next)
            pages.append(page.records.compactMap(\.objectValue))
        }
        let store = try definitions.openStore(try requiredStore(), encrypted: encrypted)
        let target = definitions.downTarget
        let start = ContinuousClock.now
        let bulkLoad =
            n >= SyncManager.defaultBulkLoadMinimum
            ? try store.beginBulkLoad(soups: [BenchDefinitions.soup], keeping: [target.idFieldName]) : nil
        let writer = DownloadedRecordWriter(
            soupName: BenchDefinitions.soup, idFieldName: target.idFieldName,
            modificationDateFieldName: target.modificationDateFieldName, syncId: 1)
        for records in pages {
            _ = try store.write { try writer.save(records, in: $0) }
        }
        try bulkLoad?.finish()
        let seconds = ProcessMeasurements.seconds(since: start)
        let stored = try store.count(.all(BenchDefinitions.soup))
        guard stored == n else { throw BenchError("the store holds \(stored) records after the load, expected \(n)") }
        return ["seconds": .double(seconds), "records": .int(Int64(stored)), "requests": .int(0)]
    }

    private func downSync(_ definitions: BenchDefinitions, _ session: BenchSession, name: String, expected: Int?) async throws -> JSONObject {
        let store = try definitions.openStore(try requiredStore(), encrypted: encrypted)
        if listIndex { try store.ensureTextSortIndex(soup: BenchDefinitions.soup, path: "LastName") }
        let manager = try SyncManager(store: store, remote: ForceClientRemote(client: session.client), pagesInFlight: pagesInFlight)
        session.requests.reset()
        let start = ContinuousClock.now
        let state = try await manager.syncDown(definitions.downTarget, options: definitions.downOptions, soupName: BenchDefinitions.soup, name: name)
        let seconds = ProcessMeasurements.seconds(since: start)
        let stored = try store.count(.all(BenchDefinitions.soup))
        guard state.status == .done else { throw BenchError("the sync down ended \(state.status.rawValue): \(state.error)") }
        if let expected, stored != expected { throw BenchError("the store holds \(stored) records after the sync down, expected \(expected)") }
        return [
            "seconds": .double(seconds), "records": .int(Int64(max(state.totalSize, 0))), "requests": .int(Int64(session.requests.value)),
            "stored": .int(Int64(stored)),
        ]
    }

    private func downResync(_ definitions: BenchDefinitions, _ session: BenchSession) async throws -> JSONObject {
        let store = try definitions.openStore(try requiredStore(), encrypted: encrypted)
        let manager = try SyncManager(store: store, remote: ForceClientRemote(client: session.client))
        session.requests.reset()
        let start = ContinuousClock.now
        let state = try await manager.reSync(name: Self.downSyncName)
        let seconds = ProcessMeasurements.seconds(since: start)
        guard state.status == .done else { throw BenchError("the resync ended \(state.status.rawValue): \(state.error)") }
        let received = max(state.totalSize, 0)
        guard received >= n else { throw BenchError("the incremental resync received \(received) records, but \(n) changed on the server") }
        return ["seconds": .double(seconds), "records": .int(Int64(received)), "requests": .int(Int64(session.requests.value))]
    }

    // MARK: Sync up

    /// Syncs down `n / 2` records and edits them (as the app does: `LocalEdit`), creates `n / 2`
    /// new ones, then times the sync up alone and checks every change arrived. `--updates-only`:
    /// `n` updates; `--dates-unknown`: an earlier edit of them was synced up with no sync down since.
    private func up(_ definitions: BenchDefinitions, _ session: BenchSession) async throws -> JSONObject {
        let store = try definitions.openStore(try requiredStore(), encrypted: encrypted)
        let manager = try SyncManager(store: store, remote: ForceClientRemote(client: session.client), requestConcurrency: requestConcurrency)
        let updates = updatesOnly ? n : n / 2
        let creates = n - updates
        _ = try await manager.syncDown(
            definitions.downTarget(limit: updates), options: definitions.downOptions,
            soupName: BenchDefinitions.soup, name: "benchUpSetup")
        let runId = UUID().uuidString.prefix(8)
        func editAll(_ label: String) throws {
            let fetched = try store.query(.all(BenchDefinitions.soup, pageSize: updates)).compactMap(\.objectValue)
            guard fetched.count == updates else { throw BenchError("set-up: synced down \(fetched.count) records to update, expected \(updates)") }
            let edited = fetched.enumerated().compactMap { index, record in
                LocalEdit.updated(record, fields: ["Title": .string("Bench \(runId) \(label) \(index)")])
            }
            _ = try store.upsert(edited, in: BenchDefinitions.soup)
        }
        var target = definitions.upTarget
        target = SyncUpTarget(
            mode: mode, createFieldlist: target.createFieldlist, updateFieldlist: target.updateFieldlist,
            externalIdFieldName: target.externalIdFieldName, idFieldName: target.idFieldName,
            modificationDateFieldName: target.modificationDateFieldName)
        var options = definitions.upOptions
        if let merge { options.mergeMode = merge }
        if datesUnknown {
            try editAll("first")
            _ = try await manager.syncUp(target, options: options, soupName: BenchDefinitions.soup, name: "benchUpEarlier")
        }
        try editAll("timed")
        let created: [JSONObject] = (0..<creates).map { index in
            [
                "attributes": ["type": "Contact"], "FirstName": "Bench", "LastName": .string("Created \(runId) \(index)"),
                "Email": .string("bench.\(runId).\(index)@example.com"), "Title": "Benchmark",
                LocalField.local: true, LocalField.locallyCreated: true, LocalField.locallyUpdated: false, LocalField.locallyDeleted: false,
            ]
        }
        if !created.isEmpty { _ = try store.create(created, in: BenchDefinitions.soup) }
        session.requests.reset()
        let start = ContinuousClock.now
        let state = try await manager.syncUp(target, options: options, soupName: BenchDefinitions.soup, name: "benchUp")
        let seconds = ProcessMeasurements.seconds(since: start)
        let requests = session.requests.value
        let summary = await manager.lastSyncUpSummary[state.id] ?? SyncUpSummary()
        let dirty = try store.count(.exact(BenchDefinitions.soup, path: LocalField.local, matchKey: true))
        guard state.status == .done, summary.created == creates, summary.updated == updates, dirty == 0 else {
            throw BenchError(
                "the sync up ended \(state.status.rawValue) with \(summary.created) created, \(summary.updated) updated, "
                    + "\(summary.errors) errors, \(summary.conflicts) conflicts and \(dirty) records still dirty; expected \(creates) and \(updates)")
        }
        return ["seconds": .double(seconds), "records": .int(Int64(n)), "requests": .int(Int64(requests))]
    }
}

extension SyncUpTarget.Mode: ExpressibleByArgument {}
extension MergeMode: ExpressibleByArgument {}
