import ForceJSON
import Foundation
import SmartStore
import Testing

/// The real `forceterm` binary in a real terminal (tmux), through real ncurses, on a real store file.
@Suite("forceterm's TUI in tmux", .serialized)
struct TUITmuxTests {
    /// A store seeded through the store API with a few synced contacts, as a sync down leaves them.
    static func seededStore() throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-tui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try SmartStore(path: path)
        try store.setup(from: StoreConfig(contentsOf: Forceterm.packageRoot.appendingPathComponent("config/userstore.json")))
        for (id, first, last) in [("003A", "José", "García"), ("003B", "太郎", "山田"), ("003C", "Zoë", "Ñúñez")] {
            _ = try store.create(
                [
                    "attributes": ["type": "Contact"], "Id": .string(id), "FirstName": .string(first), "LastName": .string(last),
                    "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false,
                ], in: "contacts")
        }
        return (directory, path)
    }

    @Test("Create and edit a contact with keys, quit, and find both changes in the store with the SDK's flags")
    func createAndEdit() throws {
        let (directory, path) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try TmuxSession(command: [Forceterm.executable.path, "--store", path, "--offline"], width: 100, height: 30)
        try session.waitFor("Contacts (3)")
        try session.waitFor("Zoë Ñúñez")

        try session.send("n")
        try session.waitFor("New contact")
        try session.send("Ngozi", literal: true)
        try session.send("Tab")
        try session.send("Okafor", literal: true)
        try session.send("Tab")
        try session.send("Field Engineer", literal: true)
        try session.send("C-s")
        try session.waitFor("Saved locally")
        try session.waitFor("Contacts (4)")

        // Search for José and give him a title through the edit form.
        try session.send("/")
        try session.send("jose", literal: true)
        try session.waitFor("1 found")
        try session.send("Enter")
        try session.send("e")
        try session.waitFor("Edit José García")
        try session.send("Tab", "Tab")
        try session.send("CFO", literal: true)
        try session.send("F2")
        try session.waitFor("Saved locally")
        try session.waitFor("2 local changes")
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: path), "forceterm quits on q")
        session.kill()

        let store = try SmartStore.asForcetermOpensIt(path)
        let created = try #require(store.query(.exact("contacts", path: "LastName", matchKey: "Okafor")).first?.objectValue)
        #expect(created["FirstName"] == "Ngozi")
        #expect(created["Title"] == "Field Engineer")
        #expect(created["__locally_created__"] == true)
        #expect(created["__local__"] == true)
        #expect(created["attributes"]?["type"] == "Contact")
        #expect(created["Id"]?.stringValue?.hasPrefix("local_") == true)
        let edited = try #require(store.query(.exact("contacts", path: "Id", matchKey: "003A")).first?.objectValue)
        #expect(edited["Title"] == "CFO")
        #expect(edited["__locally_updated__"] == true)
        #expect(edited["__locally_created__"] == false)
    }

    @Test("y puts the email on the terminal's clipboard through OSC 52 (tmux with set-clipboard on keeps it as a buffer); Y the whole record")
    func copyToClipboard() throws {
        let (directory, path) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SmartStore.asForcetermOpensIt(path)
        let jose = try #require(try store.query(.exact("contacts", path: "Id", matchKey: "003A")).first?.objectValue)
        var withEmail = jose
        withEmail["Email"] = "jose.garcia@example.es"
        withEmail["Title"] = "Jefe de compras"
        _ = try store.update(withEmail, id: try #require(jose["_soupEntryId"]?.int64Value), in: "contacts")
        let session = try TmuxSession(command: [Forceterm.executable.path, "--store", path, "--offline"], width: 100, height: 30)
        try session.tmux(["set-option", "-g", "set-clipboard", "on"])
        try session.waitFor("Zoë Ñúñez")
        try session.send("/")
        try session.send("garcia", literal: true)
        try session.waitFor("1 found")
        try session.send("Enter")
        try session.send("y")
        try session.waitFor("Copied jose.garcia@example.es to the clipboard")
        #expect(try session.tmux(["show-buffer"]) == "jose.garcia@example.es", "the OSC 52 sequence reached the terminal")
        try session.send("Y")
        try session.waitFor("Copied José García")
        let record = try session.tmux(["show-buffer"])
        #expect(record.hasPrefix("José García\n") && record.contains("Title: Jefe de compras") && record.contains("Email: jose.garcia@example.es"), "\(record)")
        try session.send("Escape")
        try session.send("/")
        try session.send("zoe", literal: true)
        try session.waitFor("1 found")
        try session.send("Enter")
        try session.send("y")
        try session.waitFor("Nothing to copy: no email, phone or website")
        #expect(try session.tmux(["show-buffer"]) == record, "the clipboard keeps what was there")
        session.kill()
    }

    @Test("What another process writes (forceterm create and import in another terminal) shows in the running TUI within a tick, no key pressed")
    func showsOtherProcessesWrites() throws {
        let (directory, path) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try TmuxSession(command: [Forceterm.executable.path, "--store", path, "--offline"], width: 100, height: 30)
        try session.waitFor("Contacts (3)")
        let created = try Forceterm.run(["create", "contacts", "LastName=Okafor", "FirstName=Ngozi", "--store", path])
        #expect(created.exitCode == 0, "\(created)")
        try session.waitFor("Contacts (4)")
        try session.waitFor("Ngozi Okafor")
        try session.waitFor("1 local change")
        let cards = directory.appendingPathComponent("two.vcf")
        try Data("BEGIN:VCARD\r\nVERSION:3.0\r\nN:Abara;Chidi;;;\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nN:Bello;Amina;;;\r\nEND:VCARD\r\n".utf8).write(to: cards)
        // While a form is open nothing moves under it; the import shows once it closes.
        try session.send("e")
        try session.waitFor("Edit ")
        #expect(try Forceterm.run(["import", cards.path, "--store", path]).exitCode == 0)
        usleep(300_000)
        #expect(try session.screen().contains("Contacts (4)"), "the list under the form stays put")
        try session.send("Escape")
        try session.waitFor("Contacts (6)")
        try session.waitFor("3 local changes")
        session.kill()
    }

    @Test("o sorts by first name, then account, then last modified, and back; the header names the order")
    func sortOrders() throws {
        let (directory, path) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try TmuxSession(command: [Forceterm.executable.path, "--store", path, "--offline"], width: 100, height: 30)
        try session.waitFor("Contacts (3)")
        func order() throws -> [String] {
            // The list's rows only: the left column (the detail beside it names the selected one).
            try session.screen().split(separator: "\n").dropFirst(2).compactMap { line in
                ["José García", "太郎 山田", "Zoë Ñúñez"].first { line.prefix(30).contains($0) }
            }
        }
        #expect(try order() == ["José García", "Zoë Ñúñez", "太郎 山田"], "García, Ñúñez, 山田")
        try session.send("o")
        try session.waitFor("Contacts (3) by first name")
        #expect(try order() == ["José García", "Zoë Ñúñez", "太郎 山田"], "José, Zoë, 太郎")
        try session.send("o")
        try session.waitFor("Contacts (3) by account")
        try session.send("o")
        try session.waitFor("Contacts (3) by last modified")
        #expect(try order() == ["Zoë Ñúñez", "太郎 山田", "José García"], "the latest written first")
        try session.send("o")
        try session.waitFor("Sorted by last name")
        #expect(try session.screen().split(separator: "\n").dropFirst().first?.contains("Contacts (3) by") == false)
        session.kill()
    }

    @Test("An SSH drop (the terminal killed, SIGHUP) ends forceterm and leaves saved changes committed")
    func hangup() throws {
        let (directory, path) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try TmuxSession(command: [Forceterm.executable.path, "--store", path], width: 80, height: 24)
        try session.waitFor("Contacts (3)")
        try session.send("d")
        try session.waitFor("y = yes")
        try session.send("y")
        try session.waitFor("1 local change")
        // Leave an unsaved form open, then drop the terminal.
        try session.send("n")
        try session.waitFor("New contact")
        try session.send("Unsaved", literal: true)
        session.kill()
        #expect(ProcessWatch.waitUntilGone(argument: path), "forceterm exits when its terminal goes away")

        let store = try SmartStore.asForcetermOpensIt(path)
        #expect(try store.count(.all("contacts")) == 3, "the unsaved form wrote nothing")
        #expect(try store.count(.exact("contacts", path: "__locally_deleted__", matchKey: true)) == 1)
        let integrity = try store.query(.smart("SELECT count(*) FROM {contacts}", pageSize: 1))
        #expect(integrity.first?.arrayValue?.first == .int(3))
    }

    @Test("Resizing the terminal re-lays out at once: detail beside the list only from 100 columns")
    func resize() throws {
        let (directory, path) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try TmuxSession(command: [Forceterm.executable.path, "--store", path, "--ascii"], width: 120, height: 30)
        let wide = try session.waitFor("Local state")
        #expect(wide.contains("Contacts (3)"))
        try session.tmux(["resize-window", "-t", "0", "-x", "80", "-y", "24"])
        let deadline = Date().addingTimeInterval(20)
        var narrow = try session.screen()
        // A capture can land between the clear and the redraw, so wait for the finished screen.
        while narrow.contains("Local state") || !narrow.contains("Contacts (3)"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            narrow = try session.screen()
        }
        #expect(!narrow.contains("Local state"), "at 80 columns the list stands alone")
        #expect(narrow.contains("Contacts (3)"))
        try session.send("q")
        #expect(ProcessWatch.waitUntilGone(argument: path))
    }

    @Test("Without a terminal the TUI refuses in one line and exits 1")
    func noTerminal() throws {
        let (directory, path) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try Forceterm.run(["--store", path])
        #expect(output.exitCode == 1)
        #expect(output.standardError.hasPrefix("forceterm: the TUI needs a terminal"))
        #expect(output.standardError.split(separator: "\n").count == 1)
    }
}

extension TUITmuxTests {
    @Test("With a locale that is not UTF-8 (LANG=C over SSH) names are drawn in ASCII, not as blanks, and the TUI says how to fix it")
    func asciiWithoutUTF8Locale() throws {
        let (directory, path) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try TmuxSession(
            command: [Forceterm.executable.path, "--store", path, "--offline"], width: 120, height: 30,
            environment: ["LANG": "C", "LC_ALL": "C"])
        let screen = try session.waitFor("Zoe Nunez")
        #expect(screen.contains("is not UTF-8: names are shown in ASCII; run export LANG=C.UTF-8"), "\(screen)")
        #expect(!screen.contains("Zoë"), "no character ncurses would draw as a blank")
        try session.send("q")
    }
}
