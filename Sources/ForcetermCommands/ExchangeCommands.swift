import ArgumentParser
import ContactsApp
import ForcetermServices
import Foundation

extension ExchangeFormat: ExpressibleByArgument {}
extension AccountLinking: ExpressibleByArgument {}

/// `forceterm export SOUP [--format vcard|csv|json] [--query TEXT] [-o FILE]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write local records as vCard (4.0 or 3.0), CSV or JSON, for other address books and spreadsheets.",
        discussion: """
            Reads the local store only (no network). vCard carries names, account (ORG), title, \
            email, phones by type, the address and the Salesforce id (UID); CSV has a header row \
            of API names, Id first. Records marked deleted here are left out. `export all` writes \
            every soup into one file, accounts first (CSV with a Soup column), which `forceterm \
            import` reads back whole, links included. The format is \
            --format, else the -o file's extension (.vcf, .csv, .json), else vCard. -o writes the \
            whole file or nothing (a file that is there is replaced only at the end).

            Examples:
              forceterm export contacts -o contacts.vcf
              forceterm export all -o backup.json
              forceterm export contacts --vcard-version 3.0 -o phone.vcf
              forceterm export contacts --format csv --excel -o contacts.csv
              forceterm export accounts --format csv > accounts.csv
              forceterm export contacts --query acme --format json | jq '.[].Email'
            """)

    @Argument(help: ArgumentHelp("Which records: a record soup of the config, its plural (contacts, accounts), or all of them (all).", valueName: "soup"))
    var soup = "contacts"

    @Option(help: "vcard, csv or json (default: from the -o file's extension, else vcard).")
    var format: ExchangeFormat?

    @Option(help: ArgumentHelp("Only the records this text finds, as the terminal UI's / finds them.", valueName: "text"))
    var query: String?

    @Option(help: ArgumentHelp("4.0, or 3.0 for address books that want it (Android's, older Apple and Outlook ones).", valueName: "version"))
    var vcardVersion = "4.0"

    @Flag(help: "CSV for Excel: starts with a UTF-8 byte order mark, so accents and other scripts open right.")
    var excel = false

    @Option(
        name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"),
        completion: .file(extensions: ["vcf", "csv", "json"]))
    var output: String?

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .global, .config], in: "export")
        _ = try globalOptions.explicitPath(storeOptions)
        if output?.isEmpty == true { throw ValidationError("-o needs the path of the file to write.") }
        if !["3.0", "4.0"].contains(vcardVersion) { throw ValidationError("--vcard-version \(vcardVersion): give 4.0 or 3.0") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let catalog = try RecordCatalog(
                storePath: try globalOptions.location(storeOptions).path, global: globalOptions.global,
                configDirectory: configOptions.directory)
            let kinds = soup.lowercased() == "all" ? catalog.kinds : [try catalog.kind(named: soup)]
            let chosen = format ?? output.flatMap(ExchangeFormat.named(byPath:)) ?? .vcard
            var exporter = RecordExporter(store: catalog.store, schema: catalog.schema, kinds: kinds)
            exporter.vCardVersion = vcardVersion
            exporter.excel = excel
            if excel, chosen != .csv { StandardStreams.writeError("note: --excel shapes CSV only; this export is \(chosen.rawValue)\n") }
            if vcardVersion != "4.0", chosen != .vcard { StandardStreams.writeError("note: --vcard-version shapes vCard only; this export is \(chosen.rawValue)\n") }
            let what = kinds.count == 1 ? kinds[0] : nil
            let left = kinds.filter { !exporter.kinds(for: chosen).contains($0) }
            if !left.isEmpty {
                StandardStreams.writeError("note: vCard has no card for \(left.map(\.soupName).joined(separator: ", ")); use --format csv or json for them\n")
            }
            guard let output else {
                var sink = BufferedOutput { StandardStreams.write($0) }
                try exporter.export(as: chosen, search: query) { sink.append($0) }
                sink.flush()
                return
            }
            let file = try AtomicFile(path: output)
            var sink = BufferedOutput { file.write($0) }
            let count: Int
            do {
                count = try exporter.export(as: chosen, search: query) { sink.append($0) }
                sink.flush()
                try file.commit()
            } catch {
                file.discard()
                throw error
            }
            let noun = what.map { count == 1 ? $0.singular : $0.plural } ?? (count == 1 ? "record" : "records")
            StandardStreams.writeError("Exported \(count) \(noun) to \(output)\n")
        }
    }
}

/// `forceterm import FILE [--format …] [--into SOUP] [--dry-run] [--map FIELD=COLUMN …]`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add records from a vCard, CSV or JSON file to the local store; the next sync sends them.",
        discussion: """
            Works offline. Each record becomes a local create, or an update when its id (a CSV's \
            Id column, a vCard's UID) or, for a contact, its email matches a stored record; the \
            output says which, line by line. An update sets the fields the file gives and leaves \
            the others (an empty cell clears nothing). Every record is checked by the terminal \
            UI's rules; if one is bad, every bad line is reported and nothing is written. \
            --dry-run shows what would happen.

            vCard 2.1, 3.0 and 4.0 (several cards per file; organisation cards become accounts). \
            CSV needs a header row; Outlook's, Google's and Thunderbird's layouts are known, other \
            columns are matched to fields by API name or label (LastName, "Last name"), and --map \
            Field=Column names the rest. A contact's company (ORG, a Company column) links it to \
            the account of that name, case and accents ignored, or creates one (--accounts). \
            What has no field of its own (a second email, a nickname) goes into Description when \
            the config syncs it; the summary names it, and what was dropped, with counts. A \
            record with a Salesforce id this store lacks is stored as a copy of the org's record \
            (nothing is sent for it). A file that is not UTF-8 is read as Windows-1252 line by \
            line unless --encoding says otherwise. FILE - reads standard input.

            Examples:
              forceterm import ~/Downloads/contacts.vcf --dry-run
              forceterm import leads.csv --map LastName=Surname --map Email="E-mail 1"
              forceterm import accounts.csv --into accounts
              forceterm import google.csv --skip-invalid    # the bad rows go to google.rejected.csv
            """)

    @Argument(help: ArgumentHelp("The file to read (- for standard input).", valueName: "file"), completion: .file(extensions: ["vcf", "vcard", "csv", "json"]))
    var file: String

    @Option(help: "vcard, csv or json (default: from the file's extension, else from its content).")
    var format: ExchangeFormat?

    @Option(help: ArgumentHelp("The soup CSV and JSON records go to (contacts, accounts); vCard sorts people and organisations itself.", valueName: "soup"))
    var into = "contacts"

    @Flag(help: "Show what would be created and updated; write nothing.")
    var dryRun = false

    @Flag(help: "Import the good records and write the bad ones, unchanged, with the reason, to FILE.rejected.csv (.vcf, .json) beside the file; without it one bad record stops the whole import.")
    var skipInvalid = false

    @Option(help: ArgumentHelp("Where --skip-invalid writes the records it skips (default: beside the file).", valueName: "file"), completion: .file())
    var rejects: String?

    @Option(
        help: ArgumentHelp(
            "The file's text encoding when it is neither UTF-8 nor UTF-16 with a BOM (shift_jis, windows-1250, iso-8859-2…; default: UTF-8, else Windows-1252 line by line).", valueName: "name"))
    var encoding: String?

    @Option(
        help: ArgumentHelp(
            """
            A contact's company that no account is named after: create the account (sent by the next \
            sync), match (link to existing accounts only) or ignore companies.
            """, valueName: "create|match|ignore"))
    var accounts: AccountLinking = .create

    @Option(
        name: .customLong("map"), parsing: .singleValue,
        help: ArgumentHelp("Read a field from a CSV column of another name (repeatable).", valueName: "field=column"))
    var columnMaps: [String] = []

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .config], in: "import")
        if file.isEmpty { throw ValidationError("give the file to import, or - for standard input") }
        _ = try columnMap()
        if skipInvalid, file == "-", rejects == nil { throw ValidationError("--skip-invalid with standard input needs --rejects FILE, where the skipped records go") }
        if rejects != nil, !skipInvalid { throw ValidationError("--rejects names where --skip-invalid writes the records it skips; give --skip-invalid too") }
        if let encoding, TextEncodingName.encoding(named: encoding) == nil {
            throw ValidationError(
                "--encoding \(encoding): not one forceterm reads; give utf-8, utf-16, windows-1252, iso-8859-1, iso-8859-2, windows-1250, windows-1251, shift_jis, euc-jp or iso-2022-jp")
        }
    }

    func columnMap() throws -> [String: String] {
        var map: [String: String] = [:]
        for entry in columnMaps {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex, entry.index(after: equals) != entry.endIndex else {
                throw ValidationError("--map \(entry): write it as Field=Column, for example --map LastName=Surname")
            }
            map[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return map
    }

    func run() throws {
        try CommandFailure.reporting {
            let data = try input()
            let path = storeOptions.location.path
            let existed = FileManager.default.fileExists(atPath: path)
            // Files beside a store not made yet (a key file made at sign-in, which seals the session) stay.
            let before = Set([".key-of", ".key"].filter { FileManager.default.fileExists(atPath: path + $0) })
            do {
                try importing(data, storePath: path)
            } catch {
                // A store this import made and then did not fill is not left behind.
                if !existed, !dryRun {
                    for suffix in ["", "-wal", "-shm", "-journal", ".key-of", ".key"] where !before.contains(suffix) {
                        try? FileManager.default.removeItem(atPath: path + suffix)
                    }
                }
                throw error
            }
        }
    }

    func input() throws -> Data {
        if file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else { throw ConfigError("there is no file \(file)") }
        if isDirectory.boolValue {
            throw ConfigError("\(file) is a directory; import its files one at a time (forceterm import \(file)/contacts.vcf)")
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw ConfigError("cannot read \(file): permission denied") }
        return data
    }

    /// Reads, plans and (unless a dry run) writes; the catalog is closed when this returns.
    func importing(_ data: Data, storePath path: String) throws {
        let catalog = try RecordCatalog(storePath: path, configDirectory: configOptions.directory, whenMissing: dryRun ? .scratch : .create)
        let kind = try catalog.kind(named: into)
        let forced = encoding.flatMap(TextEncodingName.encoding(named:))
        if let forced, String(data: data, encoding: forced) == nil {
            throw ConfigError("\(file) is not \(encoding ?? "") text (some bytes mean nothing in it); nothing was imported")
        }
        let (text, encodingNote) = ImportReader.text(of: data, encoding: forced)
        let chosen = format ?? ExchangeFormat.named(byPath: file) ?? ImportReader.sniff(text)
        let reader = ImportReader(schema: catalog.schema, kind: kind)
        let importer = RecordImporter(store: catalog.store, schema: catalog.schema)
        let plan: ImportPlan
        let rows: [ImportRow]
        do {
            let read = try reader.rows(text, format: chosen, columnMap: try columnMap())
            rows = read.rows
            plan = try importer.plan(rows, notes: (encodingNote.map { [$0] } ?? []) + read.notes, accounts: accounts)
        } catch let problem as ImportProblem {
            throw ConfigError("\(file): \(problem); nothing was imported")
        }
        for note in plan.notes { StandardStreams.writeError("note: \(note)\n") }
        let rejected = Set(plan.problems.map(\.line)).count
        if rejected > 0 {
            for problem in plan.problems { StandardStreams.writeError("\(file):\(problem.line): \(problem.message)\n") }
            guard skipInvalid else {
                let of = rows.count == 1 ? "The record cannot be imported" : "\(rejected) of \(rows.count) records cannot be imported"
                throw ConfigError(
                    "\(of); nothing was written. Fix \(rejected == 1 ? "that line" : "those lines") and run the import again\(rows.count > rejected ? ", or give --skip-invalid to import the others" : "")"
                )
            }
        }
        for action in plan.actions { StandardStreams.write("line \(action.line): \(action.summary)\n") }
        let created = plan.count { if case .create = $0 { true } else { false } }
        let updated = plan.count { if case .update = $0 { true } else { false } }
        let copies = plan.count { if case .copy = $0 { true } else { false } }
        let unchanged = plan.actions.count - created - updated - copies
        let copyCount = copies == 0 ? "" : ", \(copies) to store as copies of the org's records"
        let skipped = rejected == 0 ? "" : "; \(rejected) skipped"
        if dryRun {
            StandardStreams.writeError("Dry run: \(created) to create, \(updated) to update\(copyCount), \(unchanged) unchanged\(skipped); nothing was written\n")
            return
        }
        var rejectsNote = ""
        var rejectsWritten: String?
        if rejected > 0 {
            // Written before the store, so a rejects file that cannot be written leaves nothing half done.
            let rejectsPath = rejects ?? ImportRejects.path(beside: file, format: chosen)
            let header = chosen == .csv ? (try? CSVText.read(text).header) ?? [] : []
            let output = try AtomicFile(path: rejectsPath)
            output.write(ImportRejects.text(format: chosen, rows: rows, problems: plan.problems, header: header))
            try output.commit()
            rejectsWritten = rejectsPath
            rejectsNote = "; \(rejected) skipped, written with the reason to \(rejectsPath) (fix them there and import that file)"
        }
        do {
            try importer.apply(plan, skippingProblems: skipInvalid)
        } catch {
            // Nothing was imported, so a rejects file would say the rest went in: it goes too.
            if let rejectsWritten { try? FileManager.default.removeItem(atPath: rejectsWritten) }
            throw error
        }
        let copied = copies == 0 ? "" : ", \(copies) stored as copies of the org's records (the next sync refreshes them; nothing of theirs is sent)"
        StandardStreams.writeError(
            "Imported \(plan.actions.count) record\(plan.actions.count == 1 ? "" : "s"): \(created) created, \(updated) updated\(copied), \(unchanged) unchanged\(rejectsNote); \(RecordCatalog.whereChangesGo(storePath: path, count: created + updated))\n"
        )
    }
}
