import Foundation
import SmartStore
import Testing

/// A store the user may read but not write (the file 0444 in a 0555 folder, with no WAL files:
/// a copy on a read-only disk): the read-only commands work, changes are refused with the reason,
/// and the TUI shows the records and says it is read-only. As root, permissions do not bind, so
/// the binary runs as `nobody` (setpriv) from a copy it may execute.
private struct CopyFailure: Error, CustomStringConvertible {
    let description: String
}

@Suite("a read-only store", .serialized)
struct ReadOnlyStoreTests {
    final class ReadOnlyStore {
        let directory: URL
        let store: String
        /// How to run forceterm as a user the permissions bind: the command's first words.
        let prefix: [String]

        init() throws {
            let fixture = try StoreFixture()
            try fixture.add(contacts: SampleRecords.mixedScriptContacts)
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-ro-\(UUID().uuidString)")
            let data = directory.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            store = data.appendingPathComponent("store.sqlite").path
            try FileManager.default.copyItem(atPath: fixture.path, toPath: store)
            #expect(!FileManager.default.fileExists(atPath: fixture.path + "-wal"), "a cleanly closed store: no WAL to copy")
            let fileManager = FileManager.default
            if getuid() == 0 {
                let binary = directory.appendingPathComponent("forceterm").path
                // Copied by cp, not in this process: a child another test forks meanwhile would
                // inherit our write descriptor of the copy, and running it would fail with ETXTBSY.
                let copy = try ChildProcess.run(URL(fileURLWithPath: "/bin/cp"), [Forceterm.executable.path, binary])
                guard copy.exitCode == 0 else { throw CopyFailure(description: "cp forceterm: \(copy)") }
                for path in [directory.path, data.path, store, binary] {
                    try fileManager.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: path)
                }
                try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
                prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=\(directory.path)", binary]
            } else {
                prefix = ["env", "HOME=\(directory.path)", Forceterm.executable.path]
            }
            try fileManager.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store)
            try fileManager.setAttributes([.posixPermissions: 0o555], ofItemAtPath: data.path)
        }

        func forceterm(_ arguments: [String]) throws -> CommandOutput {
            try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), prefix + arguments + ["--store", store])
        }

        deinit {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.appendingPathComponent("data").path)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("status, list, show, query, addresses and export read it; create and import say it is read-only (a dry run works); nothing is written")
    func commands() throws {
        let readOnly = try ReadOnlyStore()
        let before = try Data(contentsOf: URL(fileURLWithPath: readOnly.store))
        let status = try readOnly.forceterm(["status"])
        #expect(status.exitCode == 0 && status.standardOutput.contains("contacts: 0 pending"), "\(status)")
        let list = try readOnly.forceterm(["list"])
        #expect(list.exitCode == 0 && list.standardOutput.split(separator: "\n").count == 5, "\(list)")
        #expect(try readOnly.forceterm(["show", "003000000000003"]).standardOutput.contains("山田"))
        let query = try readOnly.forceterm(["query", "SELECT count(*) FROM {contacts}"])
        #expect(query.exitCode == 0 && query.standardOutput.contains("4"), "\(query)")
        #expect(try readOnly.forceterm(["addresses", "smith"]).standardOutput.contains("ana@example.com"))
        let export = try readOnly.forceterm(["export", "contacts", "--format", "csv"])
        #expect(export.exitCode == 0 && export.standardOutput.contains("Ørsted"), "\(export)")

        let create = try readOnly.forceterm(["create", "contacts", "LastName=Nowak"])
        #expect(create.exitCode == 1 && create.standardError.contains("is read-only for you") && create.standardError.contains("chmod u+w"), "\(create)")
        let cards = readOnly.directory.appendingPathComponent("card.vcf")
        try Data("BEGIN:VCARD\nVERSION:3.0\nN:Nowak;Anna;;;\nEND:VCARD\n".utf8).write(to: cards)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: cards.path)
        let dryRun = try readOnly.forceterm(["import", cards.path, "--dry-run"])
        #expect(dryRun.exitCode == 0 && dryRun.standardOutput.contains("create contact Anna Nowak"), "a dry run only reads: \(dryRun)")
        let imported = try readOnly.forceterm(["import", cards.path])
        #expect(imported.exitCode == 1 && imported.standardError.contains("is read-only for you"), "\(imported)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: readOnly.store)) == before, "the file is untouched")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (readOnly.store as NSString).deletingLastPathComponent)
        #expect(leftovers == ["store.sqlite"], "no WAL or lock files could be made, and none were needed: \(leftovers)")
    }

    @Test("the TUI opens it, lists and searches, says read-only on the status line, and refuses e, n, d and s with the reason")
    func terminalUI() throws {
        let readOnly = try ReadOnlyStore()
        let session = try TmuxSession(command: readOnly.prefix + ["--store", readOnly.store], width: 120, height: 30)
        try session.waitFor("Contacts (4)")
        try session.waitFor("read-only store")
        for key in ["e", "n", "d", "s"] {
            try session.send(key)
            try session.waitFor("Read-only store: nothing can change or sync")
            try session.send("Escape")
        }
        try session.send("/")
        try session.send("taro", literal: true)
        try session.waitFor("1 found")
        session.kill()
    }
}
