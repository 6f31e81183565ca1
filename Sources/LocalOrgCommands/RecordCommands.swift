import ArgumentParser
import ForceJSON
import Foundation
import LocalOrg

// The commands that change the org as a named user: edit, delete, approve a device sign-in.

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a record as another user, to show a server-side change or a conflict.",
        discussion: "Example: localorg edit Contact 003Lo0000000001AAA Title='Head of Sales' Phone=")

    @OptionGroup var data: DataOption
    @Argument(help: "The object, e.g. Contact.") var object: String
    @Argument(help: "The record id (15 or 18 characters).") var id: String
    @Argument(help: "Field=Value pairs; an empty value clears the field.") var assignments: [String]
    @Option(name: .customLong("as"), help: "Username to act as (default: the non-admin demo user).") var actingUsername: String?
    @Flag(help: "Print the record as it was just before the change, as JSON, instead of a sentence.") var printPrevious = false

    func run() async throws {
        let store = try data.openStore()
        var body: JSONObject = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else { throw ValidationError("'\(assignment)' is not Field=Value.") }
            let value = String(assignment[assignment.index(after: equals)...])
            body[String(assignment[..<equals])] = value.isEmpty ? .null : typedValue(value)
        }
        let previous = try await CommandRecordEditor(store: store).run { editor in
            try await editor.update(object: object, id: id, body: body, actingUsername: actingUsername)
        }
        print(printPrevious ? JSONWriter.string(.object(previous)) : "Updated \(object) \(id).")
    }

    /// `true`/`false` and numbers become JSON booleans and numbers; everything else stays text.
    private func typedValue(_ text: String) -> JSONValue {
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let integer = Int64(text), text.first != "0" || text == "0" { return .int(integer) }
        return .string(text)
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Move a record to the recycle bin as another user.")

    @OptionGroup var data: DataOption
    @Argument(help: "The object, e.g. Contact.") var object: String
    @Argument(help: "The record id (15 or 18 characters).") var id: String
    @Option(name: .customLong("as"), help: "Username to act as (default: the non-admin demo user).") var actingUsername: String?
    @Flag(help: "Print the record as it was just before the delete, as JSON, instead of a sentence.") var printPrevious = false

    func run() async throws {
        let store = try data.openStore()
        let previous = try await CommandRecordEditor(store: store).run { editor in
            try await editor.delete(object: object, id: id, actingUsername: actingUsername)
        }
        print(printPrevious ? JSONWriter.string(.object(previous)) : "Deleted \(object) \(id).")
    }
}

/// The org refused what a command asked (a value too long, no such record or user): said in one
/// line, `CODE: message`, with exit status 1 and no usage text, which is for mistyped commands.
struct OrgRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
    init(_ error: APIError) { self.init("\(error.errorCode): \(error.message)") }
}

/// LocalOrg's record editor for a command: its Salesforce-style errors become one-line failures.
struct CommandRecordEditor {
    let editor: LocalOrg.RecordEditor

    init(store: OrgStore) { editor = LocalOrg.RecordEditor(store: store) }

    func run<T>(_ body: (LocalOrg.RecordEditor) async throws -> T) async throws -> T {
        do { return try await body(editor) } catch let error as APIError {
            throw OrgRefusal(error)
        }
    }
}

struct Approve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Approve a device-flow sign-in by the code the device shows.",
        discussion: "The same as signing in at the verification page (https://localhost:PORT/setup/connect) and pressing Connect.")

    @OptionGroup var data: DataOption
    @Argument(help: "The code the device shows, e.g. ABCD2345.") var code: String
    @Option(name: .customLong("as"), help: "Username the device signs in as (default: demo@localorg.test).") var username = "demo@localorg.test"
    @Flag(help: "Deny the sign-in instead.") var deny = false

    func run() async throws {
        let store = try data.openStore()
        guard let userId = try store.userId(username: username) else { throw OrgRefusal("No user \(username).") }
        guard try await DeviceAuthorization(store: store).decide(userCode: code, userId: userId, approve: !deny) else {
            throw OrgRefusal("No pending sign-in with code \(code) (unknown, expired or already decided).")
        }
        print(deny ? "Denied \(code)." : "Approved \(code) as \(username).")
    }
}
