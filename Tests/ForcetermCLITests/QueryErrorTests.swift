import Foundation
import Testing

@Suite("forceterm query refuses bad input with one clear line")
struct QueryErrorTests {
    /// The error contract: nothing on stdout, one line on stderr starting `forceterm: `, exit code 1.
    private func expectFailure(_ output: CommandOutput, mentioning fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.exitCode == 1, "\(output)", sourceLocation: sourceLocation)
        #expect(output.standardOutput.isEmpty, "\(output)", sourceLocation: sourceLocation)
        #expect(output.messages.hasPrefix("forceterm: "), "\(output)", sourceLocation: sourceLocation)
        #expect(output.messages.filter { $0 == "\n" }.count == 1, "one line: \(output)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(output.standardError.contains(fragment), "expected \"\(fragment)\" in: \(output)", sourceLocation: sourceLocation)
        }
    }

    @Test("An unknown soup is named, with where it appears")
    func unknownSoup() throws {
        let fixture = try StoreFixture()
        let output = try fixture.query("SELECT {leads:Name} FROM {leads}")
        expectFailure(output, mentioning: ["Unknown soup leads", "at character 8"])
    }

    @Test("A syntax error gives SQLite's message and the character in the Smart SQL as typed")
    func syntaxError() throws {
        let fixture = try StoreFixture()
        let output = try fixture.query("SELECT {contacts:LastName} FROM {contacts} ORDER {contacts:LastName}")
        // "ORDER" without "BY": SQLite stumbles on the reference after it, character 50 as typed.
        expectFailure(output, mentioning: ["syntax error", "at character 50"])
    }

    @Test("An unknown column is reported at its position")
    func unknownColumn() throws {
        let fixture = try StoreFixture()
        let output = try fixture.query("SELECT nosuch FROM {contacts}")
        expectFailure(output, mentioning: ["no such column: nosuch", "at character 8"])
    }

    @Test(
        "Statements that would change the store are refused, and the store is unchanged",
        arguments: ["DELETE FROM {contacts}", "UPDATE {contacts} SET soup = '{}'", "DROP TABLE {contacts}", "INSERT INTO {contacts} (soup) VALUES ('{}')"])
    func nonSelect(_ statement: String) throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.numberedContacts(3))
        let output = try fixture.query(statement)
        expectFailure(output, mentioning: ["Only SELECT"])
        let count = try fixture.query("SELECT count(*) AS n FROM {contacts}")
        #expect(count.standardOutput == "n\n-\n3\n", "\(count)")
    }

    @Test("A store that does not exist is reported, and no file is created")
    func missingStore() throws {
        let fixture = try StoreFixture()
        let missing = fixture.absentPath("nested/missing.sqlite")
        let output = try Forceterm.run(["query", "SELECT 1", "--store", missing])
        expectFailure(output, mentioning: ["no store at \(missing)"])
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: fixture.absentPath("nested")))
        let siblings = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
        #expect(siblings.sorted() == siblings.filter { $0.hasPrefix("store.sqlite") }.sorted(), "only the fixture's own store files: \(siblings)")
    }

    @Test("A text file is not a store")
    func textFile() throws {
        let fixture = try StoreFixture()
        let path = fixture.absentPath("notes.txt")
        try "Call Ana about the renewal\n".write(toFile: path, atomically: true, encoding: .utf8)
        let output = try Forceterm.run(["query", "SELECT 1", "--store", path])
        expectFailure(output, mentioning: ["\(path) is not a forceterm store", "not an SQLite database"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "Call Ana about the renewal\n")
    }

    @Test("An SQLite file without SmartStore's tables is not a store")
    func foreignSQLiteFile() throws {
        let fixture = try StoreFixture()
        let path = fixture.absentPath("other.sqlite")
        try SQLiteShell.execute("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('hello');", on: path)
        let output = try Forceterm.run(["query", "SELECT body FROM notes", "--store", path])
        expectFailure(output, mentioning: ["\(path) is not a forceterm store", "soup_attrs"])
    }

    @Test("An empty file (SQLite would take it for an empty database) is not a store either")
    func emptyFile() throws {
        let fixture = try StoreFixture()
        let path = fixture.absentPath("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let output = try Forceterm.run(["query", "SELECT 1", "--store", path])
        expectFailure(output, mentioning: ["\(path) is not a forceterm store"])
    }

    @Test("Checking a foreign SQLite file leaves it as it was (no WAL switch, no side files)")
    func foreignSQLiteFileUntouched() throws {
        let fixture = try StoreFixture()
        let path = fixture.absentPath("other.sqlite")
        try SQLiteShell.execute("CREATE TABLE notes(body TEXT);", on: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try Forceterm.run(["query", "SELECT 1", "--store", path])
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        // Refusing a foreign SQLite file must not change it (e.g. switch it to WAL mode).
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        // Header byte 18 is the write version: 1 for a rollback journal, 2 for WAL.
        #expect(after.dropFirst(18).first == before.dropFirst(18).first)
        #expect(after == before)
    }
}

@Suite("forceterm usage errors exit with 2")
struct UsageErrorTests {
    @Test(
        "Bad flags and values are usage errors",
        arguments: [
            ["query", "SELECT 1", "--page-size", "0"],
            ["query", "SELECT 1", "--page-size", "-5"],
            ["query", "SELECT 1", "--page", "0"],
            ["query", "SELECT 1", "--page-size", "ten"],
            ["query", "SELECT 1", "--no-such-flag"],
            ["query", "SELECT 1", "--store", ""],
            ["query"],
            ["no-such-command"],
        ])
    func usageErrors(_ arguments: [String]) throws {
        let output = try Forceterm.run(arguments)
        #expect(output.exitCode == 2, "\(output)")
        #expect(output.standardOutput.isEmpty)
        #expect(output.standardError.contains("Usage: forceterm"), "\(output)")
    }

    @Test("Help goes to stdout and succeeds")
    func help() throws {
        let output = try Forceterm.run(["query", "--help"])
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("USAGE: forceterm query <smart-sql>"))
        #expect(output.standardOutput.contains("--page-size"))
    }
}
