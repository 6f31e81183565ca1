import ArgumentParser
import ContactsApp
import ForceJSON
import ForcetermServices
import Foundation
import MobileSync

/// `forceterm resolve ID`: a record's conflict shown side by side, and settled as the terminal
/// UI's conflict dialog settles it, for a user working over SSH in scripts or without the TUI.
struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Show a record's conflict, or settle it: keep mine or take the server's; save a duplicate anyway; settle a create in doubt.",
        discussion: """
            A sync that finds a field changed here and on the server to different values keeps \
            both and marks the record in conflict (forceterm status lists them). Without an \
            option, resolve shows the conflicting fields, mine beside the server's. --keep-mine \
            sends mine on the next sync (over the server's change); --take-server drops mine. \
            --field settles one field and leaves the others in conflict. Works offline; the next \
            forceterm sync sends the outcome.

            A create the org's duplicate rule refused (status names the records it matched): \
            --allow-duplicate sends it again, telling the org to save it anyway. A create whose \
            answer was lost and that the org's records could not settle waits in doubt with the \
            records that may be it: --adopt SERVER_ID takes one of them as this record, \
            --send-again creates it anew.

            Examples:
              forceterm resolve 003Ws00000A1b2cIAB
              forceterm resolve 003Ws00000A1b2cIAB --keep-mine --field Title
              forceterm resolve local_42 --allow-duplicate
              forceterm resolve local_43 --adopt 003Ws00000A1b2dIAB
              forceterm status --json | jq -r '…' | xargs -n1 forceterm resolve --take-server
            """)

    @Argument(help: ArgumentHelp("The record's Salesforce id, local id or entry id.", valueName: "id"))
    var id: String

    @Flag(help: "Keep my values: the next sync sends them over the server's.") var keepMine = false
    @Flag(help: "Take the server's values: my change of those fields is dropped.") var takeServer = false
    @Option(name: .customLong("field"), help: ArgumentHelp("Settle only this field (API name or label); repeat for more.", valueName: "field"))
    var fields: [String] = []
    @Flag(help: "A create the org refused as a duplicate: send it again, saved anyway.") var allowDuplicate = false
    @Option(help: ArgumentHelp("A create in doubt: take this server record as it.", valueName: "server-id")) var adopt: String?
    @Flag(help: "A create in doubt: none of the server's records is it; create it anew.") var sendAgain = false

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .config], in: "resolve")
        if keepMine && takeServer { throw ValidationError("--keep-mine and --take-server exclude each other; give one.") }
        if !fields.isEmpty && !keepMine && !takeServer { throw ValidationError("--field needs --keep-mine or --take-server.") }
        let decisions = [keepMine || takeServer, allowDuplicate, adopt != nil, sendAgain].filter { $0 }.count
        if decisions > 1 { throw ValidationError("Give one decision: --keep-mine / --take-server, --allow-duplicate, --adopt or --send-again.") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let path = storeOptions.location.path
            let catalog = try RecordCatalog(storePath: path, configDirectory: configOptions.directory)
            guard let (kind, record) = try catalog.record(id: id) else {
                throw ConfigError("no record with the id \(id) in the store; \(RecordCatalog.command("status", storePath: path)) lists the conflicts")
            }
            let resolver = ConflictResolver(store: catalog.store, soupName: kind.soupName)
            let name = kind.displayName(of: record)
            if allowDuplicate || adopt != nil || sendAgain {
                try decide(on: record, name: name, kind: kind, catalog: catalog, storePath: path)
                return
            }
            guard let conflict = try resolver.conflict(entryId: record.entryId) else {
                if let waiting = Self.createProblem(record, name: name, id: id) {
                    StandardStreams.write(waiting)
                    return
                }
                throw ConfigError("\(name) is not in conflict; nothing to resolve")
            }
            guard keepMine || takeServer else {
                StandardStreams.write(Self.describe(conflict, name: name, kind: kind, catalog: catalog, id: id))
                return
            }
            let named = try fields.map { try Self.fieldName($0, in: conflict, kind: kind) }
            try resolver.resolve(entryId: record.entryId, fields: named.isEmpty ? nil : named, choice: keepMine ? .keepMine : .takeServer)
            let left = try resolver.conflict(entryId: record.entryId)?.fields.map(\.name) ?? []
            let side = keepMine ? "kept yours" : "took the server's"
            let settled = named.isEmpty ? "" : " for " + named.joined(separator: ", ")
            // Taking the server's for every changed field leaves nothing of mine to send.
            // By entry id: keeping mine over a deletion on the server makes it a create, without its Id.
            let pending = try RecordRepository(store: catalog.store, kind: kind).record(entryId: record.entryId)?.hasLocalChanges ?? false
            let rest =
                !left.isEmpty
                ? "; still in conflict: " + left.joined(separator: ", ")
                : pending ? "; \(RecordCatalog.syncCommand(storePath: path)) sends the outcome" : "; nothing is left to send"
            StandardStreams.writeError("\(name): \(side)\(settled)\(rest)\n")
        }
    }

    /// Carries out --allow-duplicate, --adopt or --send-again.
    func decide(on record: LocalRecord, name: String, kind: RecordKind, catalog: RecordCatalog, storePath: String) throws {
        let decisions = CreateDecisions(store: catalog.store, soupName: kind.soupName)
        do {
            if allowDuplicate {
                try decisions.allowDuplicate(entryId: record.entryId)
                StandardStreams.writeError("\(name): \(RecordCatalog.syncCommand(storePath: storePath)) sends it again, saved although the org has records like it\n")
            } else if let adopt {
                try decisions.adopt(entryId: record.entryId, serverId: adopt)
                StandardStreams.writeError("\(name) is the server's \(adopt) now\n")
            } else {
                try decisions.sendAgain(entryId: record.entryId)
                StandardStreams.writeError("\(name): \(RecordCatalog.syncCommand(storePath: storePath)) creates it anew\n")
            }
        } catch let refusal as CreateDecisions.Refusal {
            throw ConfigError("\(name): \(refusal); forceterm status lists what waits for a decision")
        }
    }

    /// A record the org refused as a duplicate, or a create in doubt: what it waits for, and the ways out.
    static func createProblem(_ record: LocalRecord, name: String, id: String) -> String? {
        let errors = RecordError.stored(record.document[LocalField.lastError])
        if let duplicate = errors.first(where: { $0.errorCode == "DUPLICATES_DETECTED" }) {
            var lines = ["\(name): the org refused it as a duplicate (\(duplicate.message))"]
            lines += duplicate.duplicates.map { "  the org has \($0.label)" }
            lines.append("Save it anyway: forceterm resolve \(id) --allow-duplicate; or open the existing one (forceterm show ID) and delete this one")
            return lines.joined(separator: "\n") + "\n"
        }
        guard let doubt = record.document[LocalField.createInDoubt], !doubt.isNull else { return nil }
        var lines = ["\(name): its create may have reached the server (\(doubt["reason"]?.stringValue ?? "the answer was lost"))"]
        lines += (doubt["candidates"]?.arrayValue ?? []).compactMap(RecordReference.init).map { "  it may be \($0.label)" }
        lines.append("Decide: forceterm resolve \(id) --adopt SERVER_ID | --send-again")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The conflict in lines: each field's name, mine and the server's.
    static func describe(_ conflict: SyncConflict, name: String, kind: RecordKind, catalog: RecordCatalog, id: String) -> String {
        var lines: [String]
        switch conflict.kind {
        case let .fields(fields):
            lines = ["\(name) (\(kind.singular)): changed here and on the server"]
            let width = fields.map { FieldRule.rule(for: $0.name, of: kind).label.count }.max() ?? 0
            for field in fields {
                let label = FieldRule.rule(for: field.name, of: kind).label.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(label)  mine: \(Self.text(field.mine))   server's: \(Self.text(field.server))")
            }
        case .deletedOnServer:
            lines = [
                "\(name) (\(kind.singular)): changed here, deleted on the server",
                "  --keep-mine creates it again; --take-server removes it here too",
            ]
        case .deletedHere:
            lines = [
                "\(name) (\(kind.singular)): deleted here, changed on the server",
                "  --keep-mine deletes it anyway; --take-server keeps the record with the server's values",
            ]
        }
        lines.append("Settle it: forceterm resolve \(id) --keep-mine | --take-server [--field NAME]")
        return lines.joined(separator: "\n") + "\n"
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: "(empty)"
        case let .string(text): "\"\(text)\""
        default: JSONWriter.string(value)
        }
    }

    /// `given` as the API name of one of the conflict's fields (by API name or label, any case).
    static func fieldName(_ given: String, in conflict: SyncConflict, kind: RecordKind) throws -> String {
        let names = conflict.fields.map(\.name)
        if let match = names.first(where: {
            $0.caseInsensitiveCompare(given) == .orderedSame
                || FieldRule.rule(for: $0, of: kind).label.caseInsensitiveCompare(given) == .orderedSame
        }) {
            return match
        }
        let listed = names.isEmpty ? "none (the whole record is in conflict; leave --field out)" : names.joined(separator: ", ")
        throw ConfigError("\(given) is not one of the fields in conflict; they are: \(listed)")
    }
}
