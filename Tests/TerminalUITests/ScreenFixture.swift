import ContactsApp
import ForceJSON
import Foundation
import MobileSync
import SmartStore
import TerminalUI
import Testing

/// A real store with a fixed, multilingual set of records (accents, CJK, emoji, over-long names),
/// and an app over it on the in-memory screen.
final class ScreenFixture {
    let directory: URL
    let store: SmartStore
    let screen: MemoryScreen
    var app: TerminalApp

    init(size: Size, colors: Bool = true, ascii: Bool = false, clock: AppClock = .system) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("screens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SmartStore(path: directory.appendingPathComponent("store.sqlite").path)
        try store.setup(from: StoreConfig(json: DefaultConfig.userstoreJSON))
        try Self.seed(store)
        var model = try AppModel(
            store: store, syncedFields: SyncedFields(usersyncsJSON: DefaultConfig.usersyncsJSON), timeZone: try #require(TimeZone(identifier: "UTC")))
        model.clock = clock
        screen = MemoryScreen(size: size)
        app = TerminalApp(model: model, screen: screen, theme: Theme(colors: colors, ascii: ascii))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static let clean: JSONObject = ["__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false]

    /// What MobileSync records when sync up is refused: the server's copy of Ömer Okafor.
    static let conflict: JSONObject = [
        "server": [
            "Id": "003G", "FirstName": "Ömer", "LastName": "Okafor", "Title": "Senior Buyer", "Email": "omer.okafor@example.org",
            "AccountId": "001A", "LastModifiedDate": "2025-03-04T10:00:00.000+0000",
        ],
        "detectedAt": 1_741_082_400_000,
    ]

    /// 2025-03-04 09:55:05 UTC, in epoch milliseconds.
    static let changesSavedAt: Int64 = 1_741_082_105_000

    static func seed(_ store: SmartStore) throws {
        let accounts: [(String, String, String, String)] = [
            ("001A", "Café Olé", "Retail", "Montréal"), ("001B", "東京精密", "Manufacturing", "東京"),
            ("001C", "Müller & Söhne", "Energy", "München"),
        ]
        for (id, name, industry, city) in accounts {
            var document: JSONObject = ["attributes": ["type": "Account"], "Id": .string(id), "Name": .string(name), "Industry": .string(industry), "BillingCity": .string(city)]
            for (key, value) in clean { document[key] = value }
            _ = try store.create(document, in: "accounts")
        }
        let contacts: [(String, String, String, String, String, JSONObject)] = [
            ("003A", "José", "García", "Directora Comercial", "001A", [:]),
            ("003B", "太郎", "山田", "営業部長", "001B", [:]),
            ("003C", "Zoë", "Ñúñez", "Field Engineer 🚀", "001C", ["__local__": true, "__locally_updated__": true]),
            ("003D", "Priya", "Lovelace", "👩‍💻 Lead Developer", "001A", ["__local__": true, "__locally_deleted__": true]),
            (
                "003E", "Maximiliano Alejandro", "de la Santísima Trinidad y Hernández-Oyarzábal", "Chief Procurement and Logistics Officer for the Iberian Peninsula", "001C",
                ["__local__": true, "__locally_updated__": true, "__last_error__": "FIELD_CUSTOM_VALIDATION_EXCEPTION: Title is too long for the Iberian region's approval workflow"]
            ),
            ("003F", "Ελένη", "Παπαδόπουλος", "CFO", "001B", ["__local__": true, "__locally_created__": true]),
            // A conflict is always on a record with local changes (MobileSync keeps it dirty).
            ("003G", "Ömer", "Okafor", "Buyer", "001A", ["__local__": true, "__locally_updated__": true, "__conflict__": .object(conflict)]),
        ]
        for (id, first, last, title, account, flags) in contacts {
            var document: JSONObject = [
                "attributes": ["type": "Contact"], "Id": .string(id), "FirstName": .string(first), "LastName": .string(last),
                "Title": .string(title), "Email": .string("\(id.lowercased())@example.com"), "AccountId": .string(account),
            ]
            for (key, value) in clean { document[key] = value }
            for (key, value) in flags { document[key] = value }
            // Saved here five minutes before the fixed "now" of the Syncs tab's snapshot.
            if flags["__local__"] == true { document["__local_since__"] = .int(Self.changesSavedAt) }
            _ = try store.create(document, in: "contacts")
        }
    }

    /// The named syncs of the built-in usersyncs.json, one done and one failed, at fixed times.
    func addSyncStates() throws {
        let syncs = try SyncsSoup(store: store)
        _ = try syncs.apply(SyncsConfig(json: DefaultConfig.usersyncsJSON))
        var done = try #require(try syncs.state(name: "syncDownContacts"))
        done.transition(to: .running, now: 1_741_082_400_000)
        done.transition(to: .done, now: 1_741_082_405_000)
        done.progress = 100
        done.totalSize = 7
        done.maxTimeStamp = 1_741_000_000_000
        try syncs.save(done)
        var failed = try #require(try syncs.state(name: "syncUpAccounts"))
        failed.transition(to: .running, now: 1_741_082_300_000)
        failed.transition(to: .failed, now: 1_741_082_301_000)
        failed.error = "cannot reach Salesforce (connection refused); check the network and sync again"
        try syncs.save(failed)
        try app.refreshModel()
    }

    /// Types `keys`, lets the app handle them all, and returns the last canvas drawn.
    @discardableResult
    func press(_ keys: [Key]) throws -> Canvas {
        screen.type(keys)
        _ = app.run(stopWhenIdle: true)
        return try #require(screen.presented)
    }

    func press(text: String) throws -> Canvas { try press(text.map { Key.character($0) }) }

    func resize(to size: Size) throws -> Canvas {
        screen.resize(to: size)
        _ = app.run(stopWhenIdle: true)
        return try #require(screen.presented)
    }
}

/// Compares a canvas with a stored text snapshot in Tests/TerminalUITests/Snapshots. Set
/// SNAPSHOT_RECORD=1 to (re)write the files; a missing file fails the test otherwise.
enum Snapshot {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func check(_ canvas: Canvas, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // Whatever the content, no row may be wider or narrower than the screen.
        for y in 0..<canvas.size.height {
            #expect(canvas.line(y).displayWidth == canvas.size.width, "row \(y) of \(name) is misaligned", sourceLocation: sourceLocation)
        }
        let text = canvas.text.split(separator: "\n", omittingEmptySubsequences: false).map { "|" + $0 + "|" }.joined(separator: "\n") + "\n"
        let url = directory.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        guard let stored = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("no snapshot \(name).txt; run with SNAPSHOT_RECORD=1 to record it", sourceLocation: sourceLocation)
            return
        }
        #expect(text == stored, "screen differs from Snapshots/\(name).txt", sourceLocation: sourceLocation)
    }
}
