import ForceJSON
import Foundation
import Testing

/// The smaller promises around export and import: vCard 3.0 for address books that want it, CSV
/// for Excel, `list --json`, arguments that are not UTF-8, file names in the completions.
@Suite("export formats, list --json, argument encodings, completions")
struct ExportFormatsTests {
    func fixture() throws -> StoreFixture {
        let store = try StoreFixture()
        #expect(try Forceterm.run(["create", "accounts", "Name=Fjord Café", "--store", store.path]).exitCode == 0)
        let created = try Forceterm.run([
            "create", "contacts", "LastName=Lie", "FirstName=Åse", "AccountId=Fjord Café", "Phone=+47 22 00 00 00",
            "MailingCity=Bergen", "--store", store.path,
        ])
        #expect(created.exitCode == 0, "\(created)")
        return store
    }

    @Test("--vcard-version 3.0 writes Apple's X-ABShowAs for an organisation, an N on every card, UID without VALUE; it imports back")
    func vCard3() throws {
        let store = try fixture()
        let output = try Forceterm.run(["export", "all", "--vcard-version", "3.0", "--store", store.path])
        #expect(output.exitCode == 0, "\(output)")
        let text = output.standardOutput
        #expect(text.components(separatedBy: "VERSION:3.0\r\n").count == 3 && !text.contains("VERSION:4.0"), "\(text)")
        #expect(text.contains("X-ABSHOWAS:COMPANY\r\nFN:Fjord Café\r\nN:;;;;\r\n") || text.contains("X-ABSHOWAS:COMPANY\r\nN:;;;;\r\n"), "\(text)")
        #expect(!text.contains("KIND:") && !text.contains("VALUE=text"), "\(text)")
        #expect(text.contains("N:Lie;Åse;;;\r\n") && text.contains("ORG:Fjord Café\r\n") && text.contains("TEL;TYPE=work,voice:+47 22 00 00 00\r\n"), "\(text)")
        let file = store.absentPath("v3.vcf")
        try ExchangeCommandTests.write(text, to: file)
        let empty = try StoreFixture()
        let imported = try Forceterm.run(["import", file, "--store", empty.path])
        #expect(imported.exitCode == 0 && imported.standardError.contains("2 created"), "\(imported)")
        let lie = try #require(try ExchangeCommandTests.documents(empty.path).first)
        let account = try #require(try ExchangeCommandTests.documents(empty.path, "accounts").first)
        #expect(lie["AccountId"] == account["Id"] && account["Name"] == "Fjord Café" && lie["MailingCity"] == "Bergen", "\(lie)")
        let bad = try Forceterm.run(["export", "--vcard-version", "2.1", "--store", store.path])
        #expect(bad.exitCode != 0 && bad.standardError.contains("give 4.0 or 3.0"), "\(bad)")
    }

    @Test("--excel starts the CSV with a UTF-8 byte order mark; the import reads past it")
    func excel() throws {
        let store = try fixture()
        let file = store.absentPath("excel.csv")
        #expect(try Forceterm.run(["export", "contacts", "--excel", "-o", file, "--store", store.path]).exitCode == 0)
        let data = try #require(FileManager.default.contents(atPath: file))
        #expect(Array(data.prefix(6)) == [0xEF, 0xBB, 0xBF] + Array("Id,".utf8))
        let dry = try Forceterm.run(["import", file, "--dry-run", "--store", store.path])
        #expect(dry.exitCode == 0 && dry.standardOutput.contains("no change to contact Åse Lie (its id matches; same values)"), "\(dry)")
    }

    @Test("list --json is list --format json")
    func listJSON() throws {
        let store = try fixture()
        let flag = try Forceterm.run(["list", "--json", "--store", store.path])
        let format = try Forceterm.run(["list", "--format", "json", "--store", store.path])
        #expect(flag.exitCode == 0 && flag.standardOutput == format.standardOutput && flag.standardOutput.contains("\"Lie\""), "\(flag)")
    }

    @Test("A Field=Value argument that is not UTF-8 is refused, naming the fix, and changes nothing")
    func latin1Argument() throws {
        let store = try fixture()
        let shell = "\"$0\" create contacts \"LastName=$(printf 'Jos\\351')\" --store \"$1\""
        let output = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", shell, Forceterm.executable.path, store.path])
        #expect(output.exitCode != 0 && output.standardError.contains("is not UTF-8 text") && output.standardError.contains("iconv"), "\(output)")
        #expect(try ExchangeCommandTests.documents(store.path).count == 1)
    }

    @Test("bash completion offers files for import, export -o and --store, directories for --config")
    func completions() throws {
        let script = try Forceterm.run(["--generate-completion-script", "bash"]).standardOutput
        #expect(script.contains("-fX '!*.@(vcf|vcard|csv|json)'"), "import's FILE and export's -o")
        #expect(script.contains("-fX '!*.@(sqlite|db)'"), "--store")
        #expect(script.contains("-d"), "--config")
    }
}
