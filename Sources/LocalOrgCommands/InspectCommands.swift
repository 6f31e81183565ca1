import ArgumentParser
import ForceJSON
import Foundation
import LocalOrg
import SalesforceTime

/// `localorg show ID`: one record, every field, as an administrator sees it.
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a record's fields (any object, also in the recycle bin), as an administrator sees it.",
        discussion: "Example: localorg show 003Lo0000000001IAA")

    @OptionGroup var data: DataOption
    @Argument(help: "The record id (15 or 18 characters).") var id: String
    @Flag(help: "Print the record as JSON, as the REST API returns it.") var json = false

    func run() async throws {
        let inspector = RecordInspector(store: try data.openStore())
        let found: (object: String, fields: [(name: String, value: JSONValue)])?
        do {
            found = try await inspector.record(id: id)
        } catch let error as APIError {
            throw OrgRefusal(error)
        }
        guard let found else { throw OrgRefusal("no record has the id \(id) in this org") }
        if json {
            var object: JSONObject = [:]
            for field in found.fields { object[field.name] = field.value }
            print(JSONWriter.string(.object(object), pretty: true))
            return
        }
        print("\(found.object) \(id)")
        let width = found.fields.map(\.name.count).max() ?? 0
        for field in found.fields where field.value != .null {
            print("  \(field.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(Self.text(field.value))")
        }
    }

    static func text(_ value: JSONValue) -> String { RecordInspector.displayText(value) ?? "" }
}

/// `localorg query "SOQL"`: what the org holds, for a trainer at the command line.
struct Query: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a SOQL query as an administrator (every record, whoever owns it) and print the rows.",
        discussion: """
            The same SOQL the REST API takes (relationship fields, aggregates, ORDER BY, LIMIT). Rows \
            are printed as columns separated by tabs, with a header; --json prints the records as the \
            API returns them.

            Example: localorg query "SELECT Name, LastModifiedBy.Username, LastModifiedDate FROM Contact ORDER BY LastModifiedDate DESC LIMIT 10"
            """)

    @OptionGroup var data: DataOption
    @Argument(help: "The SOQL query.") var soql: String
    @Flag(name: .customLong("all"), help: "Include records in the recycle bin (queryAll).") var includeDeleted = false
    @Flag(help: "Print the records as a JSON array.") var json = false

    func run() async throws {
        let inspector = RecordInspector(store: try data.openStore())
        let result: (totalSize: Int, records: [JSONValue])
        do {
            result = try await inspector.query(soql, includeDeleted: includeDeleted)
        } catch let error as APIError {
            throw OrgRefusal(error)
        }
        if json {
            print(JSONWriter.string(.array(result.records), pretty: true))
            return
        }
        let rows = result.records.map(Self.flattened)
        var columns: [String] = []
        for row in rows { for (name, _) in row where !columns.contains(name) { columns.append(name) } }
        if !columns.isEmpty {
            print(columns.joined(separator: "\t"))
            for row in rows {
                let values = Dictionary(row, uniquingKeysWith: { first, _ in first })
                print(
                    columns.map { (values[$0] ?? "").replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ") }
                        .joined(separator: "\t"))
            }
        }
        FileHandle.standardError.write(Data("\(result.totalSize) record\(result.totalSize == 1 ? "" : "s")\n".utf8))
    }

    /// A record's fields in the order the API gave them, a relationship's as `Parent.Field`.
    static func flattened(_ record: JSONValue) -> [(String, String)] {
        guard case let .object(object) = record else { return [] }
        var cells: [(String, String)] = []
        for (name, value) in object where name != "attributes" {
            if case .object = value {
                cells += flattened(value).map { ("\(name).\($0.0)", $0.1) }
            } else {
                cells.append((name, Show.text(value)))
            }
        }
        return cells
    }
}

/// `localorg history ID`: every change of a record, as Salesforce's field history shows it.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show every change of a record since the org was seeded: when, who, which field, old and new value.",
        discussion: """
            Changes made through the API (a trainee's sync) and with localorg edit|delete are kept; \
            seeded data starts without history, as records imported into Salesforce do.

            Example: localorg history 003Lo0000000001IAA
            """)

    @OptionGroup var data: DataOption
    @Argument(help: "The record id (15 or 18 characters).") var id: String
    @Flag(help: "Print the changes as a JSON array.") var json = false

    func run() async throws {
        guard let canonical = SalesforceId.canonical(id) else {
            throw ValidationError("\(id) is not a Salesforce id (15 or 18 letters and digits)")
        }
        let store = try data.openStore()
        let changes = try await store.history(of: canonical)
        if json {
            print(
                JSONWriter.string(
                    .array(
                        changes.map { change in
                            [
                                "time": .string(SalesforceDate.formatDateTime(change.time)), "username": .string(change.username),
                                "userId": .string(change.userId), "object": .string(change.object), "field": .string(change.field),
                                "oldValue": change.oldValue.map(JSONValue.string) ?? .null, "newValue": change.newValue.map(JSONValue.string) ?? .null,
                            ]
                        }), pretty: true))
            return
        }
        guard !changes.isEmpty else {
            print(try await store.recordExists(id: canonical) ? "No change to \(canonical) since the org was seeded." : "No record has the id \(id) in this org.")
            return
        }
        let formatter = ISO8601DateFormatter()
        let width = changes.map(\.username.count).max() ?? 0
        for change in changes {
            let time = formatter.string(from: Date(timeIntervalSince1970: Double(change.time)))
            let what: String
            switch change.field {
            case FieldChange.createdField: what = "created \(change.object)"
            case FieldChange.deletedField: what = "deleted \(change.object)"
            default: what = "\(change.field): \(Self.quoted(change.oldValue)) → \(Self.quoted(change.newValue))"
            }
            print("\(time)  \(change.username.padding(toLength: width, withPad: " ", startingAt: 0))  \(what)")
        }
    }

    static func quoted(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "(blank)" }
}
