import ForceJSON
import Foundation
import Testing

@Suite("forceterm query pages through long results")
struct QueryPagingTests {
    static let query = "SELECT {contacts:LastName} FROM {contacts} ORDER BY {contacts:LastName}"

    @Test("The first page says which rows it holds and how to get the next")
    func firstPage() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.numberedContacts(25))
        let output = try fixture.query(Self.query, "--page-size", "10")
        #expect(output.exitCode == 0, "\(output)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 12)
        #expect(lines.dropFirst(2).first == "Contact001")
        #expect(lines.last == "Contact010")
        #expect(output.messages == "rows 1–10 of 25 (page 1 of 3); use --page 2 for more\n")
    }

    @Test("A middle page and the last page")
    func laterPages() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.numberedContacts(25))
        let middle = try fixture.query(Self.query, "--page-size", "10", "--page", "2")
        #expect(middle.exitCode == 0, "\(middle)")
        #expect(middle.standardOutput.split(separator: "\n").dropFirst(2).first == "Contact011")
        #expect(middle.messages == "rows 11–20 of 25 (page 2 of 3); use --page 3 for more\n")

        let last = try fixture.query(Self.query, "--page-size", "10", "--page", "3")
        #expect(last.exitCode == 0, "\(last)")
        #expect(Array(last.standardOutput.split(separator: "\n").dropFirst(2)) == ["Contact021", "Contact022", "Contact023", "Contact024", "Contact025"])
        #expect(last.messages == "rows 21–25 of 25 (page 3 of 3)\n")
    }

    @Test("A page past the end prints only the header and says how many pages there are")
    func pastTheEnd() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.numberedContacts(25))
        let output = try fixture.query(Self.query, "--page-size", "10", "--page", "4")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput == "LastName\n--------\n")
        #expect(output.messages == "page 4 is past the end: 25 rows make 3 pages of 10\n")
    }

    @Test("The default page holds 100 rows")
    func defaultPageSize() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.numberedContacts(130))
        let output = try fixture.query(Self.query)
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.split(separator: "\n").count == 102)
        #expect(output.messages == "rows 1–100 of 130 (page 1 of 2); use --page 2 for more\n")
    }

    @Test("Exactly one full page is all the rows, not a first page of one")
    func exactlyOnePage() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.numberedContacts(10))
        let output = try fixture.query(Self.query, "--page-size", "10")
        #expect(output.messages == "10 rows\n")
    }
}

@Suite("forceterm query --json")
struct QueryJSONTests {
    @Test("Columns, rows and paging in one pretty-printed object; documents stay nested objects")
    func shape() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.mixedScriptContacts)
        let output = try fixture.query(
            "SELECT {contacts:LastName}, {contacts:Email}, {contacts:_soup} FROM {contacts} ORDER BY {contacts:Id}", "--json")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.messages.isEmpty, "JSON output has no footer: \(output.standardError)")
        #expect(output.standardOutput.hasPrefix("{\n  \"columns\": ["), "pretty-printed")
        let root = try JSONParser.parse(output.standardOutput)
        #expect(root["columns"] == ["LastName", "Email", "soup"])
        #expect(root["page"] == 1)
        #expect(root["pageSize"] == 100)
        #expect(root["totalRows"] == 4)
        let rows = root["rows"]?.arrayValue ?? []
        #expect(rows.count == 4)
        #expect(rows.first?.arrayValue?.first == "Smith")
        #expect(rows.dropFirst().first?.arrayValue?.dropFirst().first == .null, "José has no email: JSON null")
        let document = rows.dropFirst(2).first?.arrayValue?.last
        #expect(document?["LastName"] == "山田")
        #expect(document?["_soupEntryId"] == 3)
    }

    @Test("A later page reports its page, its size and the total")
    func paging() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.numberedContacts(25))
        let output = try fixture.query(
            "SELECT {contacts:LastName} FROM {contacts} ORDER BY {contacts:LastName}", "--json", "--page-size", "10", "--page", "3")
        #expect(output.exitCode == 0, "\(output)")
        let root = try JSONParser.parse(output.standardOutput)
        #expect(root["page"] == 3)
        #expect(root["pageSize"] == 10)
        #expect(root["totalRows"] == 25)
        #expect(root["rows"] == [["Contact021"], ["Contact022"], ["Contact023"], ["Contact024"], ["Contact025"]])
    }

    @Test("Counts come back as numbers")
    func counts() throws {
        let fixture = try StoreFixture()
        try fixture.add(contacts: SampleRecords.numberedContacts(7))
        let output = try fixture.query("SELECT count(*) AS total FROM {contacts}", "--json")
        let root = try JSONParser.parse(output.standardOutput)
        #expect(root["columns"] == ["total"])
        #expect(root["rows"] == [[7]])
    }
}
