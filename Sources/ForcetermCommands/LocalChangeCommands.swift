import ArgumentParser
import ContactsApp
import ForceJSON
import ForcetermServices
import Foundation
import SmartStore

/// `forceterm create SOUP Field=Value…`: a local create, recorded as the terminal UI records one.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a record in the local store; the next sync sends it.",
        discussion: """
            Works offline. The record is checked by the same rules as the terminal UI's form (the \
            org's, once a sync has kept its describe) and saved with the Mobile SDK's local flags, \
            so s in the terminal UI or forceterm sync sends it. Fields are named by their API name \
            or their label; a lookup (AccountId) takes an account's id or its name; a picklist one \
            of its values. Prints the new record's local id.

            Examples:
              forceterm create contacts LastName=García FirstName=Ana Email=ana@example.com AccountId="Acme Corp"
              forceterm create accounts Name="Northwind Traders" Phone="+1 555 0100"
            """)

    @Argument(help: ArgumentHelp("Which records: a record soup of the config, or its plural (contacts, accounts).", valueName: "soup"))
    var soup: String

    @Argument(help: ArgumentHelp("The fields to set, as Field=Value.", valueName: "field=value"))
    var assignments: [String] = []

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .config], in: "create")
        if assignments.isEmpty { throw ValidationError("give the new record's fields as Field=Value, for example LastName=García") }
        _ = try CommandFailure.checkingUsage { try FieldAssignments(assignments) }
    }

    func run() throws {
        try CommandFailure.reporting {
            let path = storeOptions.location.path
            let catalog = try RecordCatalog(storePath: path, configDirectory: configOptions.directory, whenMissing: .create)
            let kind = try catalog.kind(named: soup)
            try catalog.checkSyncedUp(kind)
            let draft = RecordDraft(schema: catalog.schema, store: catalog.store)
            let values: JSONObject
            do {
                values = try draft.values(kind: kind, record: nil, texts: try FieldAssignments(assignments).pairs)
            } catch let problems as RecordDraft.Problems {
                throw RecordCatalog.report(problems, record: "The new \(kind.singular) was")
            }
            let saved = try RecordRepository(store: catalog.store, kind: kind).create(fields: values)
            StandardStreams.write((saved.serverId ?? String(saved.entryId)) + "\n")
            StandardStreams.writeError(
                "Created \(kind.singular) \(kind.displayName(of: saved)) locally; "
                    + RecordCatalog.whereChangesGo(storePath: path, count: 1) + "\n")
        }
    }
}

/// `forceterm update ID Field=Value…`: a local edit, recorded as the terminal UI records one.
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change fields of a local record; the next sync sends the change.",
        discussion: """
            Works offline, with the terminal UI's rules, as create does. Only the fields given \
            change; Field= (nothing after =) clears one. ID is the Salesforce id, the local id of \
            a record created here (local_…), or the entry id forceterm list --format json prints.

            Example:
              forceterm update 003Ws00000A1b2cIAB Title="Head of Sales" MobilePhone=
            """)

    @Argument(help: ArgumentHelp("The record's Salesforce id, local id or entry id.", valueName: "id"))
    var id: String

    @Argument(help: ArgumentHelp("The fields to change, as Field=Value.", valueName: "field=value"))
    var assignments: [String] = []

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .config], in: "update")
        if assignments.isEmpty { throw ValidationError("give the fields to change as Field=Value, for example Title=\"Head of Sales\"") }
        _ = try CommandFailure.checkingUsage { try FieldAssignments(assignments) }
    }

    func run() throws {
        try CommandFailure.reporting {
            let path = storeOptions.location.path
            let catalog = try RecordCatalog(storePath: path, configDirectory: configOptions.directory)
            guard let (kind, record) = try catalog.record(id: id) else {
                throw ConfigError("no record with the id \(id) in the store; \(RecordCatalog.command("list", storePath: path)) shows the ids")
            }
            try catalog.checkSyncedUp(kind)
            let name = kind.displayName(of: record)
            if record.isLocallyDeleted {
                throw ConfigError("\(name) is marked deleted here; undelete it in the terminal UI (u) before changing it")
            }
            let draft = RecordDraft(schema: catalog.schema, store: catalog.store)
            let values: JSONObject
            do {
                values = try draft.values(kind: kind, record: record, texts: try FieldAssignments(assignments).pairs)
            } catch let problems as RecordDraft.Problems {
                throw RecordCatalog.report(problems, record: name)
            }
            let saved = try RecordRepository(store: catalog.store, kind: kind).update(entryId: record.entryId, fields: values)
            if saved.document == record.document {
                StandardStreams.writeError("Nothing changed: \(name) already has those values\n")
            } else {
                StandardStreams.writeError(
                    "Updated \(kind.singular) \(kind.displayName(of: saved)) locally; "
                        + RecordCatalog.whereChangesGo(storePath: path, count: 1) + "\n")
            }
        }
    }
}

/// `forceterm delete ID…`: marks records deleted, as the terminal UI's `d` does.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Mark local records deleted; the next sync deletes them in Salesforce.",
        discussion: """
            Works offline. The records stay in the store, marked deleted, until a sync sends the \
            deletion (the terminal UI's u takes the mark back before then). All or nothing: if one \
            id is not found, nothing is marked.

            Example:
              forceterm list contacts --search "old vendor" | tail -n +2 | cut -f1 | xargs forceterm delete
            """)

    @Argument(help: ArgumentHelp("The records' Salesforce ids, local ids or entry ids.", valueName: "id"))
    var ids: [String] = []

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .config], in: "delete")
        if ids.isEmpty { throw ValidationError("give the ids of the records to delete (forceterm list shows them)") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let path = storeOptions.location.path
            let catalog = try RecordCatalog(storePath: path, configDirectory: configOptions.directory)
            var found: [(RecordKind, LocalRecord)] = []
            for id in ids {
                guard let match = try catalog.record(id: id) else {
                    throw ConfigError("no record with the id \(id) in the store; nothing was deleted (\(RecordCatalog.command("list", storePath: path)) shows the ids)")
                }
                try catalog.checkSyncedUp(match.0)
                found.append(match)
            }
            try catalog.store.write { transaction in
                for (kind, record) in found where !record.isLocallyDeleted {
                    _ = try RecordRepository(store: catalog.store, kind: kind).delete(entryId: record.entryId, in: transaction)
                }
            }
            for (kind, record) in found {
                let already = record.isLocallyDeleted ? " (it already was)" : ""
                let sync = RecordCatalog.syncCommand(storePath: path)
                let outcome =
                    record.isLocallyCreated
                    ? "it was created here and never sent, so \(sync) just removes it from this store"
                    : "\(sync) deletes it in Salesforce"
                StandardStreams.writeError("Marked \(kind.singular) \(kind.displayName(of: record)) deleted\(already); \(outcome)\n")
            }
        }
    }
}
