import ForceJSON
import Foundation
import Testing

/// `forceterm list`, `show` and `addresses` through the built binary, on a real store file: what
/// scripts, fzf pickers and mail clients read.
@Suite("list, show and addresses for scripts and mail clients")
struct RecordCommandTests {
    func fixture() throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.add(accounts: [["Id": "001000000000001AAA", "Name": "Nordlys AS", "__local__": false]])
        var contacts = SampleRecords.mixedScriptContacts
        contacts[0]["AccountId"] = "001000000000001AAA"
        contacts[0]["Title"] = "Buyer\twith a tab"
        contacts[2]["Title"] = "部長"
        contacts.append(["Id": "local_42", "LastName": "Created Here", "Email": "new@example.com", "__local__": true, "__locally_created__": true])
        try fixture.add(contacts: contacts)
        return fixture
    }

    @Test("list: a header, one line per record in the list's order, ids and states; --search finds as / does; json has the same records")
    func list() throws {
        let store = try fixture()
        let output = try Forceterm.run(["list", "--store", store.path])
        #expect(output.exitCode == 0, "\(output)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines.first == "Id\tState\tFirstName\tLastName\tTitle\tMobilePhone\tEmail\tDepartment\tHomePhone\tAccountId\tPhone\tSalutation\t"
                + "MailingStreet\tMailingCity\tMailingState\tMailingPostalCode\tMailingCountry\tDescription")
        #expect(lines.count == 6)
        #expect(lines.contains { $0.hasPrefix("local_42\tcreated\t") })
        #expect(lines.contains { $0.hasPrefix("003000000000001\tclean\tAna\tSmith\tBuyer with a tab\t") }, "a tab in a value is a space")
        #expect(lines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 18 })

        let found = try Forceterm.run(["list", "contacts", "--search", "taro", "--store", store.path])
        #expect(found.standardOutput.split(separator: "\n").count == 2 && found.standardOutput.contains("山田"), "\(found)")
        let accented = try Forceterm.run(["list", "--search", "jose", "--store", store.path])
        #expect(accented.standardOutput.contains("Müller"), "accents ignored: \(accented)")

        let json = try JSONParser.parse(try Forceterm.run(["list", "accounts", "--format", "json", "--store", store.path]).standardOutput)
        #expect(json.arrayValue?.count == 1 && json.arrayValue?.first?["Name"] == "Nordlys AS" && json.arrayValue?.first?["state"] == "clean")
        let unknown = try Forceterm.run(["list", "leads", "--store", store.path])
        #expect(unknown.exitCode != 0 && unknown.standardError.contains("contacts, accounts"), "\(unknown)")
    }

    @Test("search finds what unicode61 does not fold (ostergaard, lukasz) and a word inside a CJK run (テクノ)")
    func searchFoldsAndFindsInsideCJK() throws {
        let store = try fixture()
        try store.add(contacts: [
            SampleRecords.contact("Łukasz", "Østergaard", email: "lukasz@example.dk", id: "003000000000011"),
            SampleRecords.contact("花子", "東京テクノ", email: nil, id: "003000000000012"),
        ])
        for (typed, name) in [("ostergaard", "Østergaard"), ("lukasz", "Łukasz"), ("Øster", "Østergaard"), ("テクノ", "東京テクノ"), ("京テ", "東京テクノ")] {
            let found = try Forceterm.run(["list", "--search", typed, "--store", store.path])
            #expect(found.standardOutput.split(separator: "\n").count == 2 && found.standardOutput.contains(name), "\(typed): \(found)")
        }
    }

    @Test("show: by Salesforce id, local id or entry id; the account by name; --json for scripts")
    func show() throws {
        let store = try fixture()
        let shown = try Forceterm.run(["show", "003000000000001", "--store", store.path])
        #expect(shown.exitCode == 0, "\(shown)")
        #expect(shown.standardOutput.hasPrefix("Ana Smith (contact, clean)"))
        #expect(shown.standardOutput.contains("Nordlys AS (001000000000001AAA)"))
        #expect(try Forceterm.run(["show", "local_42", "--store", store.path]).standardOutput.contains("(contact, created)"))
        let json = try JSONParser.parse(try Forceterm.run(["show", "003000000000003", "--json", "--store", store.path]).standardOutput)
        #expect(json["LastName"] == "山田" && json["soup"] == "contacts" && json["__local__"] == nil)
        let entry = try #require(json["entryId"]?.int64Value)
        #expect(try Forceterm.run(["show", String(entry), "--store", store.path]).standardOutput.contains("太郎 山田"))
        let missing = try Forceterm.run(["show", "003NOPE", "--store", store.path])
        #expect(missing.exitCode == 1 && missing.standardError.contains("forceterm list --store \(store.path) shows the ids"))
    }

    @Test("addresses: mutt's format (a first line, then address, name and account), offline; --no-header for aerc; exit 1 when none")
    func addresses() throws {
        let store = try fixture()
        let mutt = try Forceterm.run(["addresses", "smith", "--store", store.path])
        #expect(mutt.exitCode == 0, "\(mutt)")
        #expect(mutt.standardOutput == "forceterm: 1 contact with an email match \"smith\"\nana@example.com\tAna Smith\tNordlys AS\n")
        let aerc = try Forceterm.run(["addresses", "--no-header", "example", "--store", store.path])
        let lines = aerc.standardOutput.split(separator: "\n")
        #expect(lines.count == 4, "José Müller has no email: \(aerc)")
        #expect(lines.contains("taro@example.jp\t太郎 山田\t部長"), "no account: the title")
        let none = try Forceterm.run(["addresses", "nobody", "--store", store.path])
        #expect(none.exitCode == 1 && none.standardOutput == "forceterm: 0 contacts with an email match \"nobody\"\n")
    }
}
