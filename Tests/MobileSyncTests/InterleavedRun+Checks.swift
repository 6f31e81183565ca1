import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import SmartStore
import Synchronization
import Testing

@testable import MobileSync

/// The interleaved run's conflicts (observed and resolved as a user would) and its final check.
extension InterleavedRun {
    // MARK: Conflicts

    /// Every conflict in the store must be between writes made without knowledge of each other.
    func observeConflicts() {
        guard let conflicts = try? ConflictResolver(store: local.store, soupName: "contacts").conflicts() else { return }
        for conflict in conflicts {
            guard let name = conflict.local["LastName"]?.stringValue else { continue }
            let justified: Bool
            switch conflict.kind {
            case let .fields(fields):
                for field in fields where Self.fields.contains(field.name) {
                    #expect(
                        model.knows(name, field.name, field.mine) && model.knows(name, field.name, field.server),
                        "\(name).\(field.name) holds a value nobody wrote: \(field)\n\(model.history(name))\n\(trail)")
                }
                justified =
                    !fields.isEmpty
                    && fields.allSatisfy { field in
                        Self.fields.contains(field.name) ? model.areConcurrent(field.mine, field.server, name, field.name) : true
                    }
            case .deletedHere:
                justified = Self.fields.contains { field in
                    let deletion = model.heads(name, field).first { $0.side == .local && VersionModel.isDeletion($0.value) }?.value
                    return deletion.map { model.areConcurrent($0, conflict.server?[field] ?? .null, name, field) } ?? false
                }
            case .deletedOnServer:
                justified = Self.fields.contains { field in
                    model.heads(name, field).contains { head in
                        head.side == .server && VersionModel.isDeletion(head.value)
                            && model.areConcurrent(head.value, conflict.local[field] ?? .null, name, field)
                    }
                }
            }
            #expect(
                justified, "a conflict of \(name) (\(conflict.kind)) between writes that knew of each other\n\(model.history(name))\nstored: \(JSONWriter.string(.object(conflict.local)))\n\(trail)")
        }
    }

    /// The user settles conflicts one way or another, as `c` (per field or whole) or "revert" do,
    /// and the model discards what the user chose to lose. `settling` resolves every one.
    func resolveConflicts(settling: Bool) throws {
        let resolver = ConflictResolver(store: local.store, soupName: "contacts")
        for conflict in try resolver.conflicts() where settling || chance(70) {
            guard let name = conflict.local["LastName"]?.stringValue else { continue }
            let server = conflict.server ?? [:]
            if case let .fields(fields) = conflict.kind, chance(60) {
                for field in fields {
                    let keep = chance(50)
                    try resolver.resolve(entryId: conflict.entryId, fields: [field.name], choice: keep ? .keepMine : .takeServer)
                    if keep {
                        model.discard(field.server, inFavourOf: field.mine, name, field.name)
                    } else {
                        model.discard(field.mine, inFavourOf: field.server, name, field.name)
                    }
                    note("  \(keep ? "keep mine" : "take server's") \(name).\(field.name)")
                }
                continue
            }
            if chance(25) {
                do {
                    try LocalChangeReverter(store: local.store, soupName: "contacts").revert(entryId: conflict.entryId)
                } catch {
                    continue
                }
                note("  revert \(name) (\(conflict.kind))")
                resolveWhole(conflict, name: name, mineWins: false, server: server, everyField: true)
                continue
            }
            let mineWins = chance(50)
            if mineWins { try resolver.keepLocal(entryId: conflict.entryId) } else { try resolver.takeServer(entryId: conflict.entryId) }
            note("  \(mineWins ? "keep mine" : "take server's") \(name) (\(conflict.kind))")
            resolveWhole(conflict, name: name, mineWins: mineWins, server: server)
        }
    }

    /// The model's side of a whole-record resolution; `everyField` (a revert) also drops the
    /// record's other local changes.
    func resolveWhole(_ conflict: SyncConflict, name: String, mineWins: Bool, server: JSONObject, everyField: Bool = false) {
        for field in Self.fields {
            let theirs: JSONValue?
            let mine: JSONValue?
            switch conflict.kind {
            case .fields:
                guard everyField || conflict.fields.contains(where: { $0.name == field }) else { continue }
                mine = conflict.local[field]
                theirs = server[field]
            case .deletedHere:
                mine = model.heads(name, field).first { $0.side == .local && VersionModel.isDeletion($0.value) }?.value
                theirs = server[field]
            case .deletedOnServer:
                mine = conflict.local[field]
                theirs = model.heads(name, field).first { $0.side == .server && VersionModel.isDeletion($0.value) }?.value
            }
            guard let winner = mineWins ? mine : theirs, let loser = mineWins ? theirs : mine else { continue }
            model.discard(loser, inFavourOf: winner, name, field)
        }
    }

    // MARK: Settling and checking

    /// The same org without faults (restarted on its data), syncs and resolutions until nothing is
    /// pending, then ghost cleaning.
    func settle() async throws {
        server.stop()
        server = try await LocalOrgProcess(dataDirectory: server.dataDirectory)
        client = try await LiveSync.signIn(to: server)
        let manager = try SyncManager(store: local.store, remote: ForceClientRemote(client: client))
        var settled = false
        for _ in 0..<8 where !settled {
            note("quiet sync")
            for name in LiveSync.syncOrder { _ = try await manager.reSync(name: name) }
            watch()
            observeConflicts()
            try resolveConflicts(settling: true)
            let pending = try local.documents("contacts") + local.documents("accounts")
            settled = !pending.contains { $0.isDirty || $0.hasConflict }
        }
        #expect(settled, "changes still pending after eight quiet syncs\n\(trail)")
        _ = try await manager.cleanResyncGhosts(name: "syncDownContacts", force: true)
    }

    func serverContacts() async throws -> [JSONObject] {
        try await client.query("SELECT Id, LastName, FirstName, Title, Department, LastModifiedDate FROM Contact").records.compactMap(\.objectValue)
    }

    func check() async throws {
        if ProcessInfo.processInfo.environment["FORCETERM_SYNC_MODEL_LOG"] != nil { print(trail) }
        let serverRecords = try await serverContacts()
        let contacts = try local.documents("contacts")
        let serverNames = serverRecords.compactMap { $0["LastName"]?.stringValue }
        #expect(Set(serverNames).count == serverNames.count, "a contact exists twice on the server\n\(trail)")
        #expect(Set(contacts.compactMap { $0["Id"]?.stringValue }).count == contacts.count, "duplicate ids in the store\n\(trail)")
        #expect(
            contacts.allSatisfy { !$0.isDirty && !$0.hasConflict && $0[LocalField.lastError] == nil },
            "records left dirty, in conflict or with errors\n\(trail)")
        let onServer = Dictionary(
            serverRecords.compactMap { record in record["LastName"]?.stringValue.map { ($0, record) } },
            uniquingKeysWith: { first, _ in first })
        let inStore = Dictionary(
            contacts.compactMap { record in record["LastName"]?.stringValue.map { ($0, record) } },
            uniquingKeysWith: { first, _ in first })
        for name in Set(onServer.keys).union(inStore.keys) where !model.isKnown(name) {
            Issue.record("\(name) exists but nobody created it\n\(trail)")
        }
        for name in model.names {
            var expected: JSONObject = [:]
            var gone = false
            for field in Self.fields {
                let heads = model.heads(name, field)
                if heads.count > 1, heads.allSatisfy({ VersionModel.isDeletion($0.value) }) {
                    gone = true  // deleted on both sides: they agree
                    continue
                }
                guard heads.count == 1, let head = heads.first else {
                    Issue.record("\(name).\(field) has \(heads.count) heads \(heads): concurrent writes never reconciled (an edit lost, or a conflict never raised)\n\(model.history(name))\n\(trail)")
                    continue
                }
                if VersionModel.isDeletion(head.value) { gone = true } else { expected[field] = head.value }
            }
            let server = onServer[name]
            let stored = inStore[name]
            if gone {
                #expect(server == nil && stored == nil, "\(name) should be gone\n\(model.history(name))\n\(trail)")
                continue
            }
            guard let server, let stored else {
                let state = stored.map { record in record.filter { $0.key.hasPrefix("__") }.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ") } ?? ""
                Issue.record("\(name) was lost (server: \(server != nil), store: \(stored != nil)) \(state)\n\(model.history(name))\n\(trail)")
                continue
            }
            #expect(stored["Id"] == server["Id"], "\(name): the store and the server disagree on its id\n\(trail)")
            for field in Self.fields {
                #expect(
                    FieldText.same(server[field], expected[field]) && FieldText.same(stored[field], expected[field]),
                    "\(name).\(field): expected \(FieldText.of(expected[field])), server \(FieldText.of(server[field])), store \(FieldText.of(stored[field]))\n\(model.history(name))\n\(trail)")
            }
        }

        // One more sync sends nothing and changes nothing, here or there.
        let manager = try SyncManager(store: local.store, remote: ForceClientRemote(client: client))
        let storeBefore = try local.documents("contacts")
        for name in LiveSync.syncOrder { _ = try await manager.reSync(name: name) }
        _ = try await manager.cleanResyncGhosts(name: "syncDownContacts")
        let sent = await manager.lastSyncUpSummary.values.reduce(0) { $0 + $1.sent }
        #expect(sent == 0, "a quiet sync sent \(sent) changes\n\(trail)")
        #expect(try local.documents("contacts") == storeBefore, "a quiet sync changed the store\n\(trail)")
        #expect(try await serverContacts() == serverRecords, "a quiet sync changed the server\n\(trail)")
    }
}
