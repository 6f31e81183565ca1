import ArgumentParser
import ContactsApp
import ForceJSON
import ForcetermServices
import Foundation
import SmartStore

/// `forceterm list [contacts|accounts] [--search TEXT] [--format tsv|json]`: the records, with ids,
/// for scripts and pickers such as fzf.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the local records of a soup, with their ids, as TSV or JSON.",
        discussion: """
            Reads the local store only (no network). The order is the list's; --search finds \
            records as the terminal UI's / does (accents and case ignored). TSV has a header row: \
            Id, State (clean, created, updated, deleted, error, conflict), then the fields the \
            sync up sends.

            Examples:
              forceterm list contacts --search garcía
              forceterm list accounts --format json
              forceterm list | fzf --header-lines 1 | cut -f1 | xargs forceterm show
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case tsv, json }

    @Argument(help: ArgumentHelp("Which records: a record soup of the config, or its plural (contacts, accounts).", valueName: "soup"))
    var soup = "contacts"

    @Option(help: ArgumentHelp("Only the records this text finds.", valueName: "text"))
    var search: String?

    @Option(help: "tsv (default) or json.")
    var format: Format = .tsv

    @Flag(help: "The same as --format json, as show --json.")
    var json = false

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .global, .config], in: "list")
        _ = try globalOptions.explicitPath(storeOptions)
        if json, format == .tsv, CommandLine.arguments.contains(where: { $0 == "--format" || $0.hasPrefix("--format=") }) {
            throw ValidationError("--json and --format tsv say different things; give one")
        }
    }

    func run() throws {
        try CommandFailure.reporting {
            let catalog = try RecordCatalog(
                storePath: try globalOptions.location(storeOptions).path, global: globalOptions.global,
                configDirectory: configOptions.directory)
            let kind = try catalog.kind(named: soup)
            let fields = catalog.fieldNames(for: kind)
            switch json ? .json : format {
            case .tsv:
                StandardStreams.write((["Id", "State"] + fields).joined(separator: "\t") + "\n")
                try catalog.forEachRecord(of: kind, search: search) { record in
                    let values = [record.serverId ?? String(record.entryId), record.state.rawValue] + fields.map { record.string($0) }
                    StandardStreams.write(values.map(RecordCatalog.cell).joined(separator: "\t") + "\n")
                }
            case .json:
                var records: [JSONValue] = []
                try catalog.forEachRecord(of: kind, search: search) { records.append(RecordExporter.json($0, kind: kind)) }
                StandardStreams.write(JSONWriter.string(.array(records), pretty: true) + "\n")
            }
        }
    }
}

/// `forceterm show ID [--json]`: one record, found by any of its ids.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print one local record: its fields in the config's order, then every other field.",
        discussion: """
            ID is the Salesforce id, the local id of a record created here (local_…), or the \
            entry id that forceterm list --format json prints. Reads the local store only.
            """)

    @Argument(help: ArgumentHelp("The record's Salesforce id, local id or entry id.", valueName: "id"))
    var id: String

    @Flag(help: "Print the record as JSON.") var json = false

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .global, .config], in: "show")
        _ = try globalOptions.explicitPath(storeOptions)
    }

    func run() throws {
        try CommandFailure.reporting {
            let path = try globalOptions.location(storeOptions).path
            let catalog = try RecordCatalog(storePath: path, global: globalOptions.global, configDirectory: configOptions.directory)
            guard let (kind, record) = try catalog.record(id: id) else {
                let list = globalOptions.global ? "forceterm list --global" : RecordCatalog.command("list", storePath: path)
                throw ConfigError("no record with the id \(id) in the store; \(list) shows the ids")
            }
            if json {
                StandardStreams.write(JSONWriter.string(RecordExporter.json(record, kind: kind), pretty: true) + "\n")
                return
            }
            let fields = catalog.fieldNames(for: kind)
            let others = record.document.keys.filter { !fields.contains($0) && !ConflictComparison.isBookkeeping($0) }
            let labels = fields.map { FieldRule.rule(for: $0, of: kind).label } + others
            let width = labels.map(\.count).max() ?? 0
            var lines = ["\(kind.displayName(of: record)) (\(kind.singular), \(record.state.rawValue))"]
            for (label, field) in zip(labels, fields + others) {
                lines.append(label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + catalog.display(field, of: record))
            }
            StandardStreams.write(lines.joined(separator: "\n") + "\n")
        }
    }
}

/// `forceterm addresses QUERY`: contacts with an email, in the format mutt's `query_command` and
/// aerc's `address-book-cmd` read.
struct AddressesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "addresses",
        abstract: "Print the contacts a query finds as email, name and account lines for mail clients.",
        discussion: """
            Searches the local store (no network), as the terminal UI's / does. Each contact with \
            an email gives one line: address, name and account (or title), separated by tabs. \
            The first line says how many were found, as mutt expects; --no-header leaves it out.

            mutt (~/.muttrc):   set query_command = "forceterm addresses %s"
            aerc (aerc.conf):   address-book-cmd = forceterm addresses --no-header %s
            """)

    @Argument(help: ArgumentHelp("What to look for: a name, an email, a title, a phone.", valueName: "query"))
    var query: String

    @Flag(help: "Leave out the first line (aerc and other clients that read addresses only).")
    var noHeader = false

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .config], in: "addresses")
    }

    func run() throws {
        try CommandFailure.reporting {
            let catalog = try RecordCatalog(
                storePath: StoreLocation(explicitPath: storeOptions.storePath).path,
                configDirectory: configOptions.directory)
            guard let contacts = catalog.kinds.first(where: { $0.role == .contact }) else {
                throw ConfigError("the config has no contacts soup to search")
            }
            let accounts = catalog.kinds.first { $0.role == .account }.map { RecordRepository(store: catalog.store, kind: $0) }
            var lines: [String] = []
            try catalog.forEachRecord(of: contacts, search: query) { record in
                let email = record.string("Email")
                guard !email.isEmpty, !record.isLocallyDeleted else { return }
                let accountId = record.string("AccountId")
                let account = accountId.isEmpty ? "" : (try? accounts?.record(id: accountId))??.string("Name") ?? ""
                let extra = account.isEmpty ? record.string("Title") : account
                lines.append([email, contacts.displayName(of: record), extra].map(RecordCatalog.cell).joined(separator: "\t"))
            }
            if !noHeader {
                StandardStreams.write("forceterm: \(lines.count) contact\(lines.count == 1 ? "" : "s") with an email match \"\(query)\"\n")
            }
            for line in lines { StandardStreams.write(line + "\n") }
            if lines.isEmpty { throw ExitCode(1) }
        }
    }
}
