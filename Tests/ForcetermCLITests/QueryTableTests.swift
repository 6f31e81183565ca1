import ForceJSON
import Foundation
import Testing

@Suite("forceterm query prints an aligned table")
struct QueryTableTests {
    @Test("Latin, accented and CJK names line up column by column; NULL is spelled out")
    func mixedScriptTable() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.mixedScriptContacts)
        let output = try fixture.query(
            "SELECT {contacts:FirstName}, {contacts:LastName}, {contacts:Email} FROM {contacts} ORDER BY {contacts:Id}")
        #expect(output.exitCode == 0, "\(output)")
        let expected = """
            FirstName  LastName  Email
            ---------  --------  ---------------
            Ana        Smith     ana@example.com
            José       Müller    NULL
            太郎       山田      taro@example.jp
            Zoe\u{301}        Ørsted    zoe@example.dk

            """
        #expect(output.standardOutput == expected)
        // Byte for byte too: the combining accent is kept as it was stored, not normalised.
        #expect(Array(output.standardOutput.utf8) == Array(expected.utf8))
        #expect(output.messages == "4 rows\n")
    }

    @Test("Numbers are right-aligned; aliases and expressions keep their names")
    func numbersAndAliases() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.mixedScriptContacts)
        let output = try fixture.query(
            "SELECT {contacts:_soupEntryId} AS entry, {contacts:LastName}, length({contacts:LastName}) AS letters FROM {contacts} "
                + "WHERE {contacts:_soupEntryId} IN (1, 3) ORDER BY entry")
        #expect(output.exitCode == 0, "\(output)")
        #expect(
            output.standardOutput == """
                entry  LastName  letters
                -----  --------  -------
                    1  Smith           5
                    3  山田            2

                """)
    }

    @Test("An unindexed field read through json_extract is headed by its path")
    func unindexedPathHeader() throws {
        let fixture = try StoreFixture()
        try fixture.add(accounts: [["Id": "001A", "Name": "Acme", "Website": "acme.example"]])
        let output = try fixture.query("SELECT {accounts:Name}, {accounts:Website} FROM {accounts}")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput == "Name  Website\n----  ------------\nAcme  acme.example\n")
        #expect(output.messages == "1 row\n")
    }

    @Test("A whole document shows as compact JSON, cut to 60 columns with an ellipsis")
    func documentsInCells() throws {
        let fixture = try StoreFixture()
        try fixture.add(accounts: [
            ["Id": "001A", "Name": "Acme", "Industry": "Manufacturing", "BillingCity": "Tokyo", "Tags": ["a", "b"]],
            ["Id": "001B", "Name": "B"],
        ])
        let output = try fixture.query("SELECT {accounts:_soup} FROM {accounts} ORDER BY {accounts:Id}")
        #expect(output.exitCode == 0, "\(output)")
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 5, "header, separator, two rows, trailing newline: \(lines)")
        guard lines.count == 5 else { return }
        #expect(lines[0] == "soup")
        #expect(lines[1] == String(repeating: "-", count: 60))
        #expect(lines[2].hasPrefix(#"{"Id":"001A","Name":"Acme","Industry":"Manufacturing","#))
        #expect(lines[2].hasSuffix("…"))
        #expect(lines[2].count == 60, "the long document fills the 60-column maximum exactly")
        #expect(lines[3].hasPrefix(#"{"Id":"001B","Name":"B","_soupEntryId":2,"#))
    }

    @Test("Control characters in data are escaped, never sent to the terminal")
    func controlCharactersEscaped() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: [SampleRecords.contact("Line\nBreak", "Esc\u{1B}[31mape", email: "tab\there", id: "003C")])
        let output = try fixture.query("SELECT {contacts:FirstName}, {contacts:LastName}, {contacts:Email} FROM {contacts}")
        #expect(output.exitCode == 0, "\(output)")
        #expect(!output.standardOutput.unicodeScalars.contains("\u{1B}"))
        #expect(output.standardOutput.contains(#"Line\nBreak  Esc\u001b[31mape  tab\there"#))
        #expect(output.standardOutput.split(separator: "\n").count == 3)
    }

    @Test("An empty result still shows the header")
    func emptyResult() throws {
        let fixture = try StoreFixture()
        let output = try fixture.query("SELECT {contacts:LastName} FROM {contacts}")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput == "LastName\n--------\n")
        #expect(output.messages == "0 rows\n")
    }

    @Test("Full-text search through {soup}_fts MATCH finds accented names either way they were typed")
    func fullTextSearch() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.mixedScriptContacts)
        let output = try fixture.query(
            "SELECT {contacts:LastName} FROM {contacts} WHERE {contacts:_soupEntryId} IN "
                + "(SELECT rowid FROM {contacts}_fts WHERE {contacts}_fts MATCH 'jose')")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput == "LastName\n--------\nMüller\n")
    }
}
