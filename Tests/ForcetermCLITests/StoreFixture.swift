import ForceJSON
import Foundation
import SmartStore

/// A temporary directory holding a store set up from the repo's `config/userstore.json` (contacts and
/// accounts soups), removed when the fixture goes away.
final class StoreFixture {
    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
        let store = try SmartStore(path: path)
        let config = try StoreConfig(contentsOf: Forceterm.packageRoot.appendingPathComponent("config/userstore.json"))
        try store.setup(from: config)
    }

    /// A path in the fixture's directory that nothing has created.
    func absentPath(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func add(contacts: [JSONObject]) throws {
        _ = try SmartStore.asForcetermOpensIt(path).create(contacts, in: "contacts")
    }

    func add(accounts: [JSONObject]) throws {
        _ = try SmartStore.asForcetermOpensIt(path).create(accounts, in: "accounts")
    }

    /// Runs `forceterm query <smartSql> --store <this store> extraArguments…`.
    func query(_ smartSql: String, _ extraArguments: String...) throws -> CommandOutput {
        try Forceterm.run(["query", smartSql, "--store", path] + extraArguments)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

enum SampleRecords {
    static func contact(_ first: String, _ last: String, email: String?, id: String) -> JSONObject {
        var contact: JSONObject = ["Id": .string(id), "FirstName": .string(first), "LastName": .string(last)]
        contact["Email"] = email.map(JSONValue.string) ?? .null
        return contact
    }

    /// Latin, accented (precomposed and combining) and CJK names, and one contact without an email.
    static let mixedScriptContacts: [JSONObject] = [
        contact("Ana", "Smith", email: "ana@example.com", id: "003000000000001"),
        contact("José", "Müller", email: nil, id: "003000000000002"),
        contact("太郎", "山田", email: "taro@example.jp", id: "003000000000003"),
        contact("Zoe\u{301}", "Ørsted", email: "zoe@example.dk", id: "003000000000004"),
    ]

    /// `count` contacts named `Contact001`… in order.
    static func numberedContacts(_ count: Int) -> [JSONObject] {
        (1...count).map { number in
            let suffix = String(repeating: "0", count: max(0, 3 - String(number).count)) + String(number)
            return contact("First\(suffix)", "Contact\(suffix)", email: "c\(suffix)@example.com", id: "003NUM\(suffix)")
        }
    }
}

extension SmartStore {
    /// An existing store opened as forceterm opens one it made: with the key file beside it, when
    /// it has one (every store forceterm creates without a passcode), else unencrypted (a fixture).
    static func asForcetermOpensIt(_ path: String) throws -> SmartStore {
        let keyFile = path + ".key"
        guard FileManager.default.fileExists(atPath: keyFile) else { return try SmartStore(path: path, mustExist: true) }
        return try SmartStore(path: path, mustExist: true, encryption: .encrypted(try StoreKey(contentsOfFile: keyFile)))
    }
}
