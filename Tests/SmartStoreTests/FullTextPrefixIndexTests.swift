import ForceJSON
import GRDB
import Testing

@testable import SmartStore

/// The FTS5 prefix indexes that make one- and two-letter searches fast, and the migration that adds
/// them to stores made before (or by the Mobile SDK), checked on a real store file.
@Suite("Full-text prefix index")
struct FullTextPrefixIndexTests {
    let temporary: TemporaryStore
    var store: SmartStore { temporary.store }

    init() throws {
        temporary = try TemporaryStore()
        try store.registerSoup(
            "people",
            indexSpecs: [
                IndexSpec(path: "first", type: .fullText),
                IndexSpec(path: "last", type: .fullText),
                IndexSpec(path: "code", type: .string),
            ])
        _ = try store.create(
            [
                ["first": "José", "last": "Núñez", "code": "1"],
                ["first": "JOSE", "last": "Garcia", "code": "2"],
                ["first": "Zoë", "last": "Ærøskøbing", "code": "3"],
                ["first": "太郎", "last": "山田", "code": "4"],
                ["first": "Дмитрий", "last": "Иванов", "code": "5"],
                ["first": "Sam", "last": "Smith", "code": "6"],
                ["first": "Noa", "last": "Nunes", "code": "7"],
            ], in: "people")
    }

    /// Prefixes of one to three characters (the indexed lengths and one beyond), accented, in
    /// capitals and in other scripts.
    static let prefixes = ["j", "jo", "jos", "JO", "é", "n", "Ñ", "nú", "nu", "z", "zo", "æ", "山", "山田", "и", "Ив", "s", "sm", "x"]

    func codes(matching prefix: String) throws -> [String] {
        guard let terms = FullTextQuery.prefixTerms(prefix) else { return [] }
        return try store.query(.match("people", path: nil, matchKey: terms, orderPath: "code", pageSize: 50))
            .compactMap { $0["code"]?.stringValue }
    }

    func createStatement() throws -> String {
        try temporary.raw { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'TABLE_1_fts'") } ?? ""
    }

    /// Makes the soup's FTS table as stores made before the prefix index have it.
    func makeTableWithoutPrefixIndex() throws {
        try store.write { transaction in
            try transaction.db.execute(
                sql: """
                    DROP TABLE TABLE_1_fts;
                    CREATE VIRTUAL TABLE TABLE_1_fts USING fts5(TABLE_1_0, TABLE_1_1, tokenize = 'unicode61 remove_diacritics 2');
                    INSERT INTO TABLE_1_fts (rowid, TABLE_1_0, TABLE_1_1) SELECT id, TABLE_1_0, TABLE_1_1 FROM TABLE_1;
                    """)
        }
    }

    @Test func newSoupsHaveThePrefixIndex() throws {
        #expect(try createStatement().contains("prefix = '1 2'"))
        #expect(try store.ensureFullTextPrefixIndex(soup: "people") == false, "nothing to do on a new soup")
    }

    @Test func prefixSearchesFindTheSameRecordsWithAndWithoutTheIndex() throws {
        let withIndex = try Self.prefixes.map(codes(matching:))
        try makeTableWithoutPrefixIndex()
        let withoutIndex = try Self.prefixes.map(codes(matching:))
        #expect(withIndex == withoutIndex)
        #expect(try codes(matching: "jo") == ["1", "2"], "accents and case ignored")
        #expect(try codes(matching: "nu") == ["1", "7"])
        #expect(try codes(matching: "山") == ["4"])
        #expect(try codes(matching: "ив") == ["5"])
        #expect(try codes(matching: "s") == ["6"])
    }

    @Test func anExistingStoreGetsTheIndexOnceWithItsEntriesKept() throws {
        try makeTableWithoutPrefixIndex()
        #expect(try !createStatement().contains("prefix"))
        let before = try Self.prefixes.map(codes(matching:))

        // Another handle on the file, as the next start of the TUI opens it.
        let reopened = try temporary.reopen()
        #expect(try reopened.ensureFullTextPrefixIndex(soup: "people") == true)
        #expect(try createStatement().contains("prefix = '1 2'"))
        #expect(try reopened.ensureFullTextPrefixIndex(soup: "people") == false, "done once")
        #expect(try Self.prefixes.map(codes(matching:)) == before)
        let rows = try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM TABLE_1_fts") }
        #expect(rows == 7)

        // Writes after the migration keep the rebuilt table in step.
        let added = try store.create(["first": "Saoirse", "last": "Ó Súilleabháin", "code": "8"], in: "people")
        #expect(try codes(matching: "sú") == ["8"])
        _ = try store.update(["first": "Saoirse", "last": "Murphy", "code": "8"], id: added[SmartStore.soupEntryId]?.int64Value ?? 0, in: "people")
        #expect(try codes(matching: "sú").isEmpty)
        #expect(try codes(matching: "mu") == ["8"])
    }

    /// Letters unicode61 does not fold (Æ, ø) are found by their plain spelling, and a CJK word
    /// inside a run; writes, updates and a rebuilt table all index them.
    @Test func foldedLettersAndWordsInsideCJKRunsAreFound() throws {
        _ = try store.create(
            [
                ["first": "Łukasz", "last": "Østergaard", "code": "8"],
                ["first": "東京テクノ", "last": "Partners", "code": "9"],
            ], in: "people")
        #expect(try codes(matching: "aero") == ["3"], "Ærøskøbing")
        #expect(try codes(matching: "ostergaard") == ["8"])
        #expect(try codes(matching: "lukasz oster") == ["8"])
        #expect(try codes(matching: "Øster") == ["8"], "as written still works")
        #expect(try codes(matching: "テクノ") == ["9"])
        #expect(try codes(matching: "田") == ["4"], "山田")
        #expect(try codes(matching: "東京") == ["9"])
        #expect(try codes(matching: "京テ partners") == ["9"])
        #expect(try codes(matching: "テクニカル").isEmpty)
        // A table filled before the extras existed is rebuilt once, with them.
        try makeTableWithoutPrefixIndex()
        #expect(try codes(matching: "テクノ").isEmpty && codes(matching: "東京") == ["9"], "without the extras, only a word's start")
        #expect(try temporary.reopen().ensureFullTextPrefixIndex(soup: "people") == true)
        #expect(try codes(matching: "テクノ") == ["9"] && codes(matching: "ostergaard") == ["8"])
        #expect(try createStatement().contains(SoupSchema.fullTextExtrasMarker))
    }

    @Test func aSoupWithoutFullTextNeedsNothing() throws {
        try store.registerSoup("plain", indexSpecs: [IndexSpec(path: "code", type: .string)])
        #expect(try store.ensureFullTextPrefixIndex(soup: "plain") == false)
    }

    @Test func anUnknownSoupIsAnError() throws {
        #expect(throws: SmartStoreError.self) { try store.ensureFullTextPrefixIndex(soup: "nope") }
    }
}
