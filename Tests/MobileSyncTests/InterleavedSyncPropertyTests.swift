import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import SmartStore
import Synchronization
import Testing

@testable import MobileSync

/// The model-based property: random local creates, edits of random fields, deletes and
/// undeletes; another user's edits, creates and deletes on the server; faults (503s, dropped
/// connections before a request and after its answer, token expiry); syncs of every shape — and
/// local and server changes injected at every suspension point of a running sync (between plan and
/// request, between a request and its answer being recorded, between the up and down phases,
/// between pages, during ghost cleaning), through `SteppedRemote`'s hooks. The oracle is
/// `VersionModel`, a per-field record of who wrote what on top of what.
///
/// Checked along the way: every conflict the engine raises is between writes made without
/// knowledge of each other (never with one's own earlier write). Checked at the end, after the
/// org restarts without faults and syncs run until nothing is pending: each field has one head and
/// the store and the server both hold it (no local edit lost, no conflict missed), no record
/// exists twice on the server, and one more sync sends nothing and changes nothing.
@Suite("Sync model: changes at every suspension point, faults and conflicts", .serialized)
struct InterleavedSyncPropertyTests {
    /// `FORCETERM_SYNC_MODEL_SEEDS=1,2,3` replays or widens the search; `FORCETERM_SYNC_MODEL_LOG=1`
    /// prints each run's events. A seed's remainder by three picks the sync-up target (single
    /// record, batch, collection), so the defaults cover all three.
    static var seeds: [UInt64] {
        let text = ProcessInfo.processInfo.environment["FORCETERM_SYNC_MODEL_SEEDS"] ?? "21,22,23"
        return text.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
    }

    @Test("No edit is lost, conflicts are exactly the concurrent writes, and syncs converge", arguments: seeds)
    func converges(seed: UInt64) async throws {
        let run = try await InterleavedRun(seed: seed)
        defer { run.remove() }
        try await run.play(steps: 30)
        try await run.settle()
        try await run.check()
    }
}

/// One run: a localorg (with faults while playing), a store, the model, and a seeded dice shared
/// with the hooks that run inside the engine's calls. Its mutable parts are the org and client,
/// replaced only by `settle` when no sync runs; everything the hooks touch is locked.
final class InterleavedRun: @unchecked Sendable {
    static let fields = VersionModel.fields
    static let seededContacts = 230

    let seed: UInt64
    let mode: SyncUpTarget.Mode
    let model = VersionModel()
    let local: SyncStore
    var server: LocalOrgProcess
    var client: ForceClient
    /// Another user of the org, whose creates are no create of ours that lost its answer (the
    /// server's edits and deletes are made as this user too, by `localorg edit`).
    var colleague: ForceClient
    let dice: Mutex<SeededGenerator>
    let events = Mutex<[String]>([])
    let interfering = Mutex(false)
    let created = Mutex(0)

    init(seed: UInt64) async throws {
        self.seed = seed
        dice = Mutex(SeededGenerator(seed: seed))
        mode = SyncUpTarget.Mode.allCases[Int(seed % UInt64(SyncUpTarget.Mode.allCases.count))]
        // Set-up without faults: enough contacts for a sync down of two pages.
        let calm = try await LocalOrgProcess()
        let setupClient = try await LiveSync.signIn(to: calm)
        for chunk in Array(0..<Self.seededContacts).chunked(into: 200) {
            _ = try await setupClient.createRecords(
                chunk.map { index in
                    [
                        "attributes": ["type": "Contact"], "LastName": .string("Seed \(index)"), "FirstName": .string("F\(index)"),
                        "Title": .string("T\(index)"), "Department": index % 3 == 0 ? .null : .string("D\(index)"),
                    ]
                })
        }
        local = try SyncStore()
        _ = try SyncsSoup(store: local.store).apply(LiveSync.config(syncingUpWith: mode))
        let first = try SyncManager(store: local.store, remote: ForceClientRemote(client: setupClient))
        _ = try await first.reSync(name: "syncDownAccounts")
        _ = try await first.reSync(name: "syncDownContacts")
        for record in try local.documents("contacts") {
            guard let name = record["LastName"]?.stringValue else { continue }
            model.created(name, values: record, by: .server)
        }
        calm.stop()
        server = try await LocalOrgProcess(arguments: ["--fail-rate", "0.1", "--token-ttl", "15"], dataDirectory: calm.dataDirectory)
        client = try await Self.signIn(to: server)
        colleague = try await Self.signIn(to: server, username: "trainer@localorg.test", password: "localorg-trainer")
    }

    /// Signs in through the org's refusals (`--fail-rate`).
    static func signIn(to server: LocalOrgProcess, username: String = "demo@localorg.test", password: String = "localorg-demo") async throws -> ForceClient {
        var signedIn: ForceClient?
        for attempt in 1...5 where signedIn == nil {
            do {
                signedIn = try await LiveSync.signIn(to: server, retryPolicy: RetryPolicy(), username: username, password: password)
            } catch  where attempt < 5 { continue }
        }
        return try #require(signedIn)
    }

    func remove() { server.remove() }

    func roll(_ range: Range<Int>) -> Int { dice.withLock { Int.random(in: range, using: &$0) } }
    func chance(_ percent: Int) -> Bool { roll(0..<100) < percent }
    func note(_ event: String) { events.withLock { $0.append(event) } }
    var trail: String { "seed \(seed), \(mode):\n" + events.withLock { $0.joined(separator: "\n") } }

    // MARK: Playing

    func play(steps: Int) async throws {
        for _ in 0..<steps {
            switch roll(0..<20) {
            case 0..<7: try changeLocally(at: "between syncs")
            case 7..<11: try await changeOnServer(at: "between syncs")
            case 11..<18: await sync()
            default: try resolveConflicts(settling: false)
            }
        }
    }

    /// The engine, behind hooks that change things and drop connections at its calls.
    func faultyManager() throws -> SyncManager {
        let remote = SteppedRemote(
            remote: ForceClientRemote(client: client),
            beforeCall: { (call) async throws(SyncRemoteError) in try await self.interfere(call: call, answered: false) },
            afterAnswer: { (call) async throws(SyncRemoteError) in try await self.interfere(call: call, answered: true) })
        return try SyncManager(store: local.store, remote: remote)
    }

    /// At a suspension point of a running sync: maybe a local change, maybe another user's, maybe
    /// a dropped connection (before the request: nothing happened; after: the answer is lost).
    func interfere(call: Int, answered: Bool) async throws(SyncRemoteError) {
        guard interfering.withLock({ $0 }) else { return }
        let moment = answered ? "after call \(call) answered" : "before call \(call)"
        do {
            if chance(30) { try changeLocally(at: moment) }
            if chance(8) { try await changeOnServer(at: moment) }
        } catch {
            Issue.record("seed \(seed): a change \(moment) failed: \(error)")
        }
        if chance(answered ? 7 : 5) {
            note("  drop \(moment)")
            throw .offline("connection dropped \(answered ? "after the answer" : "before the request") (test fault)")
        }
    }

    /// A sync of a random shape, with the hooks armed: `forceterm sync`'s order (stopping at the
    /// first failure), up only, or down only with ghost cleaning; now and then the contacts start
    /// over from scratch, so a sync down reads two pages.
    func sync() async {
        let shape = roll(0..<10)
        var names = LiveSync.syncOrder
        if shape == 8 { names = Array(names.prefix(2)) }
        if shape == 9 { names = Array(names.suffix(2)) }
        if shape < 2, let syncs = try? SyncsSoup(store: local.store), var state = try? syncs.state(name: "syncDownContacts") {
            state.maxTimeStamp = -1
            try? syncs.save(state)
        }
        note("sync \(names.joined(separator: " "))\(shape < 2 ? " from scratch" : "")")
        interfering.withLock { $0 = true }
        defer { interfering.withLock { $0 = false } }
        do {
            let manager = try faultyManager()
            for name in names {
                _ = try await manager.reSync(name: name)
                if name.hasPrefix("syncDown") { _ = try await manager.cleanResyncGhosts(name: name) }
            }
            note("  done")
        } catch {
            note("  stopped: \(error)")
        }
        interfering.withLock { $0 = false }
        watch()
        observeConflicts()
    }

    /// `FORCETERM_SYNC_MODEL_WATCH=<LastName>` notes that record's stored document after each sync.
    func watch() {
        guard let name = ProcessInfo.processInfo.environment["FORCETERM_SYNC_MODEL_WATCH"],
            let record = try? local.documents("contacts").first(where: { $0["LastName"]?.stringValue == name })
        else { return }
        note("  [\(name)] \(JSONWriter.string(.object(record.filter { !$0.key.hasPrefix("_soup") && $0.key != "attributes" })))")
    }

    // MARK: Local changes

    func changeLocally(at moment: String) throws {
        switch roll(0..<12) {
        case 0, 1: try createLocally(at: moment)
        case 2: try deleteLocally(at: moment)
        case 3: try undeleteLocally(at: moment)
        default: try editLocally(at: moment)
        }
    }

    /// Most changes go to a few contacts (the first seeded ones and every one created since), so
    /// both sides often touch the same record; the rest of the soup is there for paging.
    func isHot(_ record: JSONObject) -> Bool {
        guard let name = record["LastName"]?.stringValue else { return false }
        return !name.hasPrefix("Seed ") || (Int(name.dropFirst(5)) ?? 99) < 8
    }

    /// A random contact chosen in the same transaction as the change.
    func pick(_ transaction: StoreTransaction, where matches: (JSONObject) -> Bool) throws -> JSONObject? {
        var records = try transaction.query(.all("contacts", orderPath: SmartStore.soupEntryId, pageSize: 100_000))
            .compactMap(\.objectValue).filter(matches)
        if chance(85), records.contains(where: isHot) { records = records.filter(isHot) }
        return records.isEmpty ? nil : records[roll(0..<records.count)]
    }

    func editLocally(at moment: String) throws {
        let field = Self.fields[roll(0..<Self.fields.count)]
        let value = model.newValue("L")
        var change: (name: String, parent: JSONValue)?
        try local.store.write { transaction in
            guard let record = try pick(transaction, where: { !$0.isLocallyDeleted }), let entryId = record.soupEntryId,
                let name = record["LastName"]?.stringValue, let edited = LocalEdit.updated(record, fields: [field: value])
            else { return }
            _ = try transaction.update(edited, id: entryId, in: "contacts")
            change = (name, record[field] ?? .null)
        }
        guard let change else { return }
        model.wrote(change.name, field, value, by: .local, over: change.parent)
        note("  edit \(change.name) \(field)=\(FieldText.of(value)) over \(FieldText.of(change.parent)) \(moment)")
    }

    func deleteLocally(at moment: String) throws {
        var deleted: JSONObject?
        try local.store.write { transaction in
            guard let record = try pick(transaction, where: { !$0.isLocallyDeleted }), let entryId = record.soupEntryId else { return }
            _ = try transaction.update(LocalEdit.deleted(record), id: entryId, in: "contacts")
            deleted = record
        }
        guard let deleted, let name = deleted["LastName"]?.stringValue else { return }
        let deletion = model.deleted(name, by: .local, saw: deleted)
        note("  delete \(name) (\(FieldText.of(deletion))) \(moment)")
    }

    func undeleteLocally(at moment: String) throws {
        var undeleted: String?
        try local.store.write { transaction in
            guard let record = try pick(transaction, where: \.isLocallyDeleted), let entryId = record.soupEntryId else { return }
            _ = try transaction.update(LocalEdit.undeleted(record), id: entryId, in: "contacts")
            undeleted = record["LastName"]?.stringValue
        }
        guard let undeleted else { return }
        for field in Self.fields {
            for head in model.heads(undeleted, field) where head.side == .local && VersionModel.isDeletion(head.value) {
                model.discardOnly(head.value, undeleted, field)
            }
        }
        note("  undelete \(undeleted) \(moment)")
    }

    func createLocally(at moment: String) throws {
        let number = created.withLock {
            $0 += 1
            return $0
        }
        let name = "P\(seed)-\(number)"
        var values: JSONObject = ["LastName": .string(name)]
        for field in Self.fields { values[field] = model.newValue("L") }
        _ = try local.store.create(LocalEdit.created(fields: values, sObjectType: "Contact", localId: "local_p\(number)"), in: "contacts")
        model.created(name, values: values, by: .local)
        note("  create \(name) \(moment)")
    }

    // MARK: Another user's changes

    func changeOnServer(at moment: String) async throws {
        switch roll(0..<10) {
        case 0: try await createOnServer(at: moment)
        case 1: try await deleteOnServer(at: moment)
        default: try await editOnServer(at: moment)
        }
    }

    /// A contact the server has, by the id the store knows.
    func serverId() throws -> String? {
        var records = try local.documents("contacts").filter { !LocalField.isLocalId($0["Id"]?.stringValue ?? "local_") }
        if chance(85), records.contains(where: isHot) { records = records.filter(isHot) }
        return records.isEmpty ? nil : records[roll(0..<records.count)]["Id"]?.stringValue
    }

    /// If-Unmodified-Since compares whole seconds, so another user's change must not share a
    /// second with a version the engine read or wrote: it happens alone in a second of its own.
    func inASecondOfItsOwn<T>(_ body: () throws -> T) async throws -> T {
        try await Self.untilTheNextSecond()
        let result = try body()
        try await Self.untilTheNextSecond()
        return result
    }

    static func untilTheNextSecond() async throws {
        let fraction = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1)
        try await Task.sleep(for: .milliseconds(Int((1 - fraction) * 1000) + 15))
    }

    func editOnServer(at moment: String) async throws {
        guard let id = try serverId() else { return }
        let field = Self.fields[roll(0..<Self.fields.count)]
        let value = model.newValue("S")
        let output: String
        do {
            output = try await inASecondOfItsOwn {
                try server.command(["edit", "Contact", id, "\(field)=\(value.stringValue ?? "")", "--print-previous"])
            }
        } catch {
            return  // deleted on the server meanwhile: nothing was written
        }
        let previous = try JSONParser.parse(output).objectValue ?? [:]
        guard let name = previous["LastName"]?.stringValue else { return }
        model.wrote(name, field, value, by: .server, over: previous[field] ?? .null)
        note("  server edit \(name) \(field)=\(FieldText.of(value)) over \(FieldText.of(previous[field])) \(moment)")
    }

    func deleteOnServer(at moment: String) async throws {
        guard let id = try serverId() else { return }
        let output: String
        do {
            output = try await server.command(["delete", "Contact", id, "--print-previous"])
        } catch {
            return
        }
        let previous = try JSONParser.parse(output).objectValue ?? [:]
        guard let name = previous["LastName"]?.stringValue else { return }
        let deletion = model.deleted(name, by: .server, saw: previous)
        note("  server delete \(name) (\(FieldText.of(deletion))) \(moment)")
    }

    func createOnServer(at moment: String) async throws {
        let number = created.withLock {
            $0 += 1
            return $0
        }
        let name = "S\(seed)-\(number)"
        var values: JSONObject = ["LastName": .string(name)]
        for field in Self.fields { values[field] = model.newValue("S") }
        // The org refuses a share of requests with 503 before acting, so repeating a create is safe here.
        _ = try await PropertyRun.create("Contact", values, with: colleague)
        model.created(name, values: values, by: .server)
        note("  server create \(name) \(moment)")
    }
}
