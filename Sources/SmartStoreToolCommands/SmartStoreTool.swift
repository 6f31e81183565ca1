import ArgumentParser
import ForceJSON
import ForcetermServices
import Foundation
import SmartStore

public struct SmartStoreTool: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "smartstore-tool",
        abstract: "Developer tools for forceterm's SmartStore: demo data, load tests and benchmarks.",
        // The Makefile's VERSION, as forceterm's (a test checks all three).
        version: "smartstore-tool 0.22.0",
        subcommands: [Seed.self, Load.self, Encrypt.self, Bench.self, BenchCase.self])

    public init() {}
}

/// Options shared by the commands that open a store with the app's soups.
struct StoreOptions: ParsableArguments {
    @Option(help: "The store file to write (created if missing).")
    var store: String

    @Option(help: "The directory holding userstore.json.")
    var config: String = "config"

    @Option(
        help: ArgumentHelp(
            "A file holding the store's key (64 hexadecimal digits): the store is encrypted with it, an unencrypted one first in place.",
            discussion: """
                Without it, the store's key is found as forceterm finds it: the key file beside the store, or the key \
                its passcode seals (unlocked in this login by forceterm unlock, or given in FORCETERM_PASSCODE, or \
                asked at the terminal), or the key of the store it shares one with. A new store with none of them is \
                written unencrypted, for the benchmarks.
                """))
    var keyFile: String?

    var encryption: StoreEncryption {
        get throws {
            if let keyFile { return .encrypted(try StoreKey(contentsOfFile: keyFile)) }
            return try StoreKeys.encryption(forStore: store)
        }
    }

    func open() throws -> SmartStore {
        let smartStore = try SmartStore(path: store, encryption: try encryption)
        let configURL = URL(fileURLWithPath: config).appendingPathComponent("userstore.json")
        try smartStore.setup(from: StoreConfig(contentsOf: configURL))
        return smartStore
    }
}

struct Seed: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fill a store with demo contacts and accounts, as if synced down from an org.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "How many contacts to write.")
    var contacts = 500

    @Option(help: "How many accounts to write (by default one per ten contacts).")
    var accounts: Int?

    func validate() throws {
        guard contacts >= 0 else { throw ValidationError("--contacts must be zero or more") }
    }

    func run() throws {
        let store = try storeOptions.open()
        let accountCount = accounts ?? max(1, contacts / 10)
        let accountDocuments = (0..<accountCount).lazy.map(AccountGenerator.document)
        try store.write { transaction in
            try transaction.upsert(contentsOf: accountDocuments.map(SyncedRecord.mark), in: "accounts", externalIdPath: "Id")
            try transaction.upsert(
                contentsOf: ContactGenerator(count: contacts).lazy.map(SyncedRecord.mark), in: "contacts", externalIdPath: "Id")
        }
        print("Seeded \(storeOptions.store) with \(accountCount) accounts and \(contacts) contacts.")
    }
}

/// Marks a document the way a sync down leaves it: clean, with all local flags false.
enum SyncedRecord {
    static func mark(_ document: JSONObject) -> JSONObject {
        var record = document
        for flag in ["__local__", "__locally_created__", "__locally_updated__", "__locally_deleted__"] {
            record[flag] = false
        }
        return record
    }
}

enum AccountGenerator {
    static let names = [
        "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Soylent", "Stark", "Wayne",
        "Tyrell", "Cyberdyne", "Aperture", "Müller & Söhne", "Café Olé", "東京精密", "北京贸易",
    ]
    static let industries = ["Technology", "Manufacturing", "Retail", "Energy", "Healthcare", "Finance"]
    static let cities = ["Sevilla", "München", "Kraków", "São Paulo", "東京", "Lagos", "Montréal", "Reykjavík"]

    static func document(_ n: Int) -> JSONObject {
        let id = ContactGenerator.salesforceId(prefix: "001", n)
        return [
            "attributes": ["type": "Account", "url": .string("/services/data/v59.0/sobjects/Account/\(id)")],
            "Id": .string(id),
            "Name": .string("\(names[n % names.count]) \(n / names.count + 1)"),
            "Industry": .string(industries[n % industries.count]),
            "Phone": .string("+1 212 555 \(1000 + n % 9000)"),
            "Website": .string("https://example.com/\(n)"),
            "BillingCity": .string(cities[n % cities.count]),
        ]
    }
}

struct Load: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upsert contact-sized documents into the contacts soup in ONE transaction.",
        discussion: """
            Used by the crash-safety tests, which kill this process in the middle of the batch. With --bulk, \
            the load is a bulk load (the soup's indexes built once at the end) committed --batch documents at a time.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "How many documents the batch holds.")
    var count = 20_000

    @Option(help: "After this many documents, print LOADING on stdout (the test's cue to kill).")
    var announceAfter = 1_000

    @Flag(help: "Defer the contacts soup's indexes (all but Id's) until the load ends, when it is empty.")
    var bulk = false

    @Option(help: "With --bulk: documents per transaction.")
    var batch = 1_000

    func validate() throws {
        if batch < 1 { throw ValidationError("--batch must be at least 1.") }
    }

    func run() throws {
        let store = try storeOptions.open()
        let announceAt = announceAfter
        let documents = ContactGenerator(count: count).enumerated().lazy.map { index, document -> JSONObject in
            if index == announceAt {
                FileHandle.standardOutput.write(Data("LOADING\n".utf8))
            }
            return document
        }
        guard bulk else {
            print("DONE \(try store.upsert(contentsOf: documents, in: "contacts", externalIdPath: "Id"))")
            return
        }
        let load = try store.beginBulkLoad(soups: ["contacts"], keeping: ["Id"])
        var written = 0
        var pending: [JSONObject] = []
        for document in documents {
            pending.append(document)
            if pending.count == batch {
                written += try store.upsert(contentsOf: pending, in: "contacts", externalIdPath: "Id")
                pending.removeAll(keepingCapacity: true)
            }
        }
        written += try store.upsert(contentsOf: pending, in: "contacts", externalIdPath: "Id")
        try load?.finish()
        print("DONE \(written)")
    }
}
