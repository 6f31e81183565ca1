import ForceJSON
import Foundation
import Testing

@testable import SmartStore

@Suite("userstore.json")
struct StoreConfigTests {
    static let repoConfig = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config/userstore.json")

    @Test func theShippedConfigSetsUpContactsAndAccounts() throws {
        let config = try StoreConfig(contentsOf: Self.repoConfig)
        let temporary = try TemporaryStore()
        let changes = try temporary.store.setup(from: config)
        #expect(changes == [.registered(soup: "contacts"), .registered(soup: "accounts"), .registered(soup: "sobject_metadata")])
        let contactPaths = try temporary.store.indexSpecs(soup: "contacts").map(\.path)
        for path in [
            "Id", "LastName", "FirstName", "AccountId", "__local__", "__locally_created__", "__locally_updated__",
            "__locally_deleted__", "__sync_id__",
        ] {
            #expect(contactPaths.contains(path), "contacts must index \(path)")
        }
        #expect(try temporary.store.soupInfo("contacts").hasFullTextSearch)
        #expect(try temporary.store.setup(from: config).isEmpty, "a second setup is a no-op")
    }

    @Test func aConfigThatGainsAnIndexAltersTheExistingSoup() throws {
        let temporary = try TemporaryStore()
        let before = try StoreConfig(json: #"{"soups":[{"soupName":"contacts","indexes":[{"path":"Id","type":"string"}]}]}"#)
        try temporary.store.setup(from: before)
        _ = try temporary.store.create([["Id": "003A", "Email": "ada@example.com", "__local__": true]], in: "contacts")
        let after = try StoreConfig(
            json: """
                {"soups":[{"soupName":"contacts","indexes":[{"path":"Id","type":"string"},
                 {"path":"Email","type":"full_text"},{"path":"__local__","type":"string"}]}]}
                """)
        let changes = try temporary.store.setup(from: after)
        #expect(changes == [.indexesAdded(soup: "contacts", specs: [IndexSpec(path: "Email", type: .fullText), IndexSpec(path: "__local__", type: .string)])])
        #expect(try temporary.store.query(.exact("contacts", path: "__local__", matchKey: true)).count == 1, "existing entries are reindexed")
        #expect(try temporary.store.query(.match("contacts", path: "Email", matchKey: "ada")).count == 1)
        #expect(try temporary.store.setup(from: after).isEmpty)
    }

    @Test(arguments: [
        ("{", "invalid JSON"),
        (#"{"soup": []}"#, "expected {\"soups\": [...]}"),
        (#"{"soups": [{"indexes": []}]}"#, "needs a \"soupName\""),
        (#"{"soups": [{"soupName": "a"}]}"#, "needs an \"indexes\" array"),
        (#"{"soups": [{"soupName": "a", "indexes": []}]}"#, "No indexSpecs"),
        (#"{"soups": [{"soupName": "a", "indexes": [{"path": "x", "type": "text"}]}]}"#, "unknown type \"text\""),
        (#"{"soups": [{"soupName": "a", "indexes": [{"type": "string"}]}]}"#, "non-empty \"path\""),
    ])
    func malformedConfigsAreExplained(text: String, expected: String) throws {
        do {
            _ = try StoreConfig(json: text)
            Issue.record("\(text) must be refused")
        } catch let error as SmartStoreError {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test func errorsNameTheFile() throws {
        let temporary = try TemporaryStore()
        let file = temporary.directory.appendingPathComponent("userstore.json")
        try "{\"soups\": 3}".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: SmartStoreError.invalidConfig("\(file.path): expected {\"soups\": [...]} at the top level")) {
            try StoreConfig(contentsOf: file)
        }
    }
}
