import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

/// Real address books (Tests/Fixtures/address-books) imported and synced into localorg answering
/// as a production org — duplicate rules, country picklists: nothing lost, nothing doubled, and
/// every record the org or forceterm refused named with its way out.
@Suite("Real address books into a strict org", .serialized)
struct StrictOrgImportTests {
    static let books = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/address-books")

    @Test("Every address book imports and syncs: countries mapped or refused by name, duplicates named, none sent twice")
    func addressBooksIntoAStrictOrg() throws {
        let user = try SyncCommandTests.SignedIn(contacts: 0)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0, "the describes, with the org's countries, come first")
        // Copies: --skip-invalid writes its rejects beside the file.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("strict-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.books.path).filter { $0.hasSuffix(".vcf") || $0.hasSuffix(".csv") }.sorted()
        var refusedCountries = 0
        for file in files {
            let copy = scratch.appendingPathComponent(file)
            try FileManager.default.copyItem(at: Self.books.appendingPathComponent(file), to: copy)
            var arguments = ["import", copy.path, "--skip-invalid"]
            if file == "thunderbird--shiftjis_addressbook.csv" { arguments += ["--encoding", "shift_jis"] }
            let imported = try user.forceterm(arguments)
            #expect([0, 3].contains(imported.exitCode), "\(file): \(imported)")
            // A country the org does not have is refused here, before anything is queued, naming it.
            refusedCountries += imported.standardError.components(separatedBy: "is not one of the org's countries").count - 1
        }
        #expect(refusedCountries > 0, "the books hold made-up countries (HomeCountry, CustomCountry)")
        let queued = try user.documents("contacts").filter { $0["__locally_created__"] == true }.count
        #expect(queued > 40)

        let first = try user.forceterm(["sync"])
        #expect([0, 3].contains(first.exitCode), "\(first)")
        // Whatever the org refused is named with its way out; none was created twice.
        let (status, json) = try user.json(["status"])
        let problems = (json["soups"]?.arrayValue ?? []).flatMap { $0["problems"]?.arrayValue ?? [] }
        for problem in problems {
            let codes = problem["errorCodes"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if codes.contains("DUPLICATES_DETECTED") {
                #expect(problem["duplicates"]?.arrayValue?.isEmpty == false, "a duplicate names its match: \(problem)")
                #expect(problem["detail"]?.stringValue?.contains("--allow-duplicate") == true, "\(problem)")
            }
            #expect(!codes.contains("FIELD_INTEGRITY_EXCEPTION"), "no country reached the org unmapped: \(problem)")
        }
        // Save the duplicates anyway: every contact is then on the server exactly once.
        for problem in problems where problem["errorCodes"]?.arrayValue?.contains("DUPLICATES_DETECTED") == true {
            let id = try #require(problem["id"]?.stringValue)
            #expect(try user.forceterm(["resolve", id, "--allow-duplicate"]).exitCode == 0)
        }
        let second = try user.forceterm(["sync"])
        #expect(second.exitCode == 0, "\(second)\n\(status)")
        let local = try user.documents("contacts")
        let leftover = try user.forceterm(["status"])
        #expect(local.allSatisfy { $0["__local__"] == false && $0["__last_error__"] == nil }, "\(leftover)")
        let token = try OrgREST.accessToken(user.server)
        let serverIds = Set(try OrgREST.query("SELECT Id FROM Contact", server: user.server, token: token).compactMap { $0["Id"]?.stringValue })
        let localIds = Set(local.compactMap { $0["Id"]?.stringValue })
        let difference = "only on the server: \(serverIds.subtracting(localIds).sorted()), only here: \(localIds.subtracting(serverIds).sorted())"
        #expect(serverIds == localIds, "the org and the store agree: nothing lost, nothing doubled; \(difference)")
        #expect(serverIds.count == queued)
    }
}
