import ForceJSON
import Foundation
import GRDB
import Testing

@testable import SmartStore

@Suite("Search pages read ahead on an encrypted store")
struct SearchPageWarmupTests {
    /// An encrypted store with enough contacts for its full-text index to span many pages, opened
    /// again, so its readers start with empty caches as a TUI's do.
    static func encryptedStore(contacts: Int = 3_000) throws -> (TemporaryStore, path: String, key: StoreKey) {
        let directory = try TemporaryStore()
        let path = directory.directory.appendingPathComponent("encrypted.sqlite").path
        let key = StoreKey.random()
        try StoreEncryptionTests.setUp(try SmartStore(path: path, encryption: .encrypted(key)), contacts: contacts)
        return (directory, path, key)
    }

    static func fullTextBytes(_ store: SmartStore) throws -> Int {
        try store.read { transaction in
            let table = try transaction.soupInfo("contacts").ftsTableName
            return try Int.fetchOne(transaction.db, sql: "SELECT sum(length(block)) FROM \(table)_data") ?? 0
        }
    }

    @Test func aSearchAfterTheWarmupReadsNothingFromTheFile() throws {
        let (directory, path, key) = try Self.encryptedStore()
        defer { _ = directory }
        let cold = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        let coldPages = try cold.pagesReadFromFile { _ = try cold.fullTextMatchIds(soup: "contacts", matching: "z*") }
        #expect(coldPages > 0, "a first search on a cold reader reads its pages")

        let warmed = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        let bytes = try warmed.warmFullTextPages(soups: ["accounts", "contacts", "no such soup"])
        #expect(bytes >= (try Self.fullTextBytes(warmed)), "every block of the contacts' index is read")
        var matches: [Int64] = []
        let warmPages = try warmed.pagesReadFromFile { matches = try warmed.fullTextMatchIds(soup: "contacts", matching: "z*") }
        #expect(warmPages == 0)
        #expect(matches.count == 3_000)
        #expect(matches == (try cold.fullTextMatchIds(soup: "contacts", matching: "z*")))
    }

    @Test func theBudgetStopsTheReading() throws {
        let (directory, path, key) = try Self.encryptedStore()
        defer { _ = directory }
        let store = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        let all = try Self.fullTextBytes(store)
        let some = try store.warmFullTextPages(soups: ["contacts"], budget: all / 4)
        #expect(some >= all / 4 && some < all / 2, "\(some) of \(all) bytes")
    }

    @Test func anUnencryptedStoreIsLeftToTheOperatingSystemsCache() throws {
        let directory = try TemporaryStore()
        try StoreEncryptionTests.setUp(directory.store, contacts: 100)
        #expect(try directory.store.warmFullTextPages(soups: ["contacts"]) == 0)
        // Nothing starts in the background either: this returns at once and nothing is pending.
        directory.store.warmFullTextPagesInBackground(soups: ["contacts"])
        #expect(!directory.store.searchPageWarmup.isRunning)
    }

    @Test func aRequestWhileOneRunsRunsItOnceMore() {
        let warmup = SearchPageWarmup()
        #expect(warmup.begin())
        #expect(!warmup.begin(), "one at a time")
        #expect(!warmup.begin())
        #expect(warmup.end(), "the requests that came meanwhile make one more run")
        #expect(!warmup.end())
        #expect(warmup.begin())
    }

    @Test func theBackgroundWarmupEndsWithTheReaderWarm() throws {
        let (directory, path, key) = try Self.encryptedStore()
        defer { _ = directory }
        let store = try SmartStore(path: path, mustExist: true, encryption: .encrypted(key))
        store.warmFullTextPagesInBackground(soups: ["contacts"])
        #expect(store.waitForSearchPageWarmup())
        let pages = try store.pagesReadFromFile { _ = try store.fullTextMatchIds(soup: "contacts", matching: "zbig*") }
        #expect(pages == 0)
    }
}
