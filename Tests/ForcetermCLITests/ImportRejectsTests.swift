import ForceJSON
import Foundation
import SmartStore
import Testing

/// `forceterm import --skip-invalid`: the good records in, the bad ones written back unchanged
/// with the reason, ready to fix and import; and what a failed import leaves behind (nothing).
@Suite("import --skip-invalid and failed imports")
struct ImportRejectsTests {
    static let longName = String(repeating: "x", count: 49)

    @Test("CSV: the good rows are imported, the bad one goes to FILE.rejected.csv with an Import error column; fixed, it imports")
    func csvRejects() throws {
        let store = try StoreFixture()
        let file = store.absentPath("people.csv")
        try ExchangeCommandTests.write("Last Name,First Name,Email\r\nOk,Ana,ana@example.com\r\nLong,\(Self.longName),\"long@example.com\"\r\nFine,Bo,bo@example.com\r\n", to: file)
        let refused = try Forceterm.run(["import", file, "--store", store.path])
        #expect(refused.exitCode == 1 && refused.standardError.contains("or give --skip-invalid to import the others"), "\(refused)")

        let imported = try Forceterm.run(["import", file, "--skip-invalid", "--store", store.path])
        #expect(imported.exitCode == 0, "\(imported)")
        #expect(imported.standardError.contains("people.csv:3: First name is 49 characters; the limit is 40"), "\(imported)")
        #expect(
            imported.standardError.contains("Imported 2 records: 2 created, 0 updated, 0 unchanged; 1 skipped, written with the reason to \(store.absentPath("people.rejected.csv"))"), "\(imported)")
        #expect(try ExchangeCommandTests.documents(store.path).map { $0["LastName"] } == ["Ok", "Fine"])
        let rejects = try String(contentsOfFile: store.absentPath("people.rejected.csv"), encoding: .utf8)
        #expect(rejects == "Last Name,First Name,Email,Import error\r\nLong,\(Self.longName),long@example.com,First name is 49 characters; the limit is 40\r\n")

        // Fixed in place, the rejects file imports; its reason column is not data.
        try ExchangeCommandTests.write(rejects.replacingOccurrences(of: Self.longName, with: "Xavier"), to: store.absentPath("people.rejected.csv"))
        let again = try Forceterm.run(["import", store.absentPath("people.rejected.csv"), "--store", store.path])
        #expect(again.exitCode == 0 && again.standardOutput == "line 2: create contact Xavier Long\n", "\(again)")
        let xavier = try #require(try ExchangeCommandTests.documents(store.path).first { $0["LastName"] == "Long" })
        #expect(xavier["Description"] == nil || xavier["Description"] == .null, "the reason is not kept: \(xavier)")
    }

    @Test("vCard: a rejected card is written back as it was, with X-FORCETERM-IMPORT-ERROR before END:VCARD")
    func vCardRejects() throws {
        let store = try StoreFixture()
        let file = store.absentPath("cards.vcf")
        let bad = ["BEGIN:VCARD", "VERSION:2.1", "N:Long;\(Self.longName);;;", "TEL;CELL:+1 555 0100", "END:VCARD"]
        let good = ["BEGIN:VCARD", "VERSION:3.0", "N:Good;Gina;;;", "END:VCARD"]
        try ExchangeCommandTests.write((good + bad).joined(separator: "\r\n") + "\r\n", to: file)
        let imported = try Forceterm.run(["import", file, "--skip-invalid", "--rejects", store.absentPath("out.vcf"), "--store", store.path])
        #expect(imported.exitCode == 0 && imported.standardError.contains("1 skipped, written with the reason to \(store.absentPath("out.vcf"))"), "\(imported)")
        let rejects = try String(contentsOfFile: store.absentPath("out.vcf"), encoding: .utf8)
        #expect(rejects == (bad.dropLast() + ["X-FORCETERM-IMPORT-ERROR:First name is 49 characters\\; the limit is 40", "END:VCARD"]).joined(separator: "\r\n") + "\r\n")
        let dry = try Forceterm.run(["import", store.absentPath("out.vcf"), "--dry-run", "--store", store.path])
        #expect(dry.standardError.contains("out.vcf:1: First name is 49 characters"), "the reason is read past, the card still too long: \(dry)")
        #expect(!dry.standardError.contains("X-FORCETERM"), "\(dry)")
    }

    @Test("A failed import into a store that was not there leaves no store; a directory and an open quote are named")
    func failuresLeaveNothing() throws {
        let store = try StoreFixture()
        let fresh = store.absentPath("fresh/store.sqlite")
        try FileManager.default.createDirectory(atPath: store.absentPath("fresh"), withIntermediateDirectories: true)
        let file = store.absentPath("bad.csv")
        try ExchangeCommandTests.write("Last Name,Email\n,\n\"Open,x@example.com\n", to: file)
        let open = try Forceterm.run(["import", file, "--store", fresh])
        #expect(open.exitCode == 1 && open.standardError.contains("line 3: a quote does not close"), "\(open)")
        try ExchangeCommandTests.write("First Name\nNoLast\n", to: file)
        let refused = try Forceterm.run(["import", file, "--store", fresh])
        #expect(refused.exitCode == 1 && refused.standardError.contains("Last name is required"), "\(refused)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.absentPath("fresh")).isEmpty, "no empty store left behind")
        let directory = try Forceterm.run(["import", store.absentPath("fresh"), "--store", fresh])
        #expect(directory.exitCode == 1 && directory.standardError.contains("is a directory; import its files one at a time"), "\(directory)")
        let stdin = try Forceterm.run(["import", "-", "--skip-invalid", "--store", fresh])
        #expect(stdin.exitCode != 0 && stdin.standardError.contains("--skip-invalid with standard input needs --rejects FILE"), "\(stdin)")
    }
}
