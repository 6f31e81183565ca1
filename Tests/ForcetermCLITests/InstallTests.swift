import Foundation
import Testing

/// `--version`, the generated completions and man page, and `scripts/install.sh` (what
/// `make install` runs) against the built binaries, into a temporary prefix.
@Suite("version, completions, man page and make install")
struct InstallTests {
    static var binDirectory: URL { Forceterm.executable.deletingLastPathComponent() }

    static func run(_ executable: String, _ arguments: [String]) throws -> CommandOutput {
        try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [executable] + arguments)
    }

    /// The Makefile's `VERSION := …`.
    static func makefileVersion() throws -> String {
        let makefile = try String(contentsOf: Forceterm.packageRoot.appendingPathComponent("Makefile"), encoding: .utf8)
        let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("VERSION := ") })
        return String(line.dropFirst("VERSION := ".count))
    }

    /// The subcommands `forceterm --help` lists, read from its SUBCOMMANDS section.
    static func subcommands() throws -> [String] {
        let help = try Forceterm.run(["--help"]).standardOutput
        let section = try #require(help.components(separatedBy: "SUBCOMMANDS:").last)
        // A subcommand's line starts with two spaces and its name; wrapped abstracts are indented further.
        return section.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), line.dropFirst(2).first?.isLowercase == true, let word = line.split(separator: " ").first else { return nil }
            return String(word)
        }
    }

    @Test("--version of forceterm, localorg and smartstore-tool is the Makefile's VERSION, exit 0")
    func versions() throws {
        let version = try Self.makefileVersion()
        for tool in ["forceterm", "localorg", "smartstore-tool"] {
            let output = try Self.run(Self.binDirectory.appendingPathComponent(tool).path, ["--version"])
            #expect(output.exitCode == 0 && output.standardOutput == "\(tool) \(version)\n", "\(tool): \(output)")
        }
    }

    @Test("every binary loads forceterm's own SQLite (the one that encrypts), never the system's")
    func everyBinaryLinksForcetermsOwnSQLite() throws {
        for binary in ["forceterm", "localorg", "smartstore-tool"] {
            let linked = try Self.run("ldd", [Self.binDirectory.appendingPathComponent(binary).path])
            #expect(linked.standardOutput.contains("libforceterm-sqlite3.so.0 => /"), "\(binary): \(linked.standardOutput)")
            #expect(!linked.standardOutput.contains("libsqlite3.so.0"), "\(binary): \(linked.standardOutput)")
        }
    }

    @Test("the install script puts binaries, man pages and completions under the prefix; they work; uninstall removes them")
    func installAndUninstall() throws {
        let commands = try Self.subcommands()
        #expect(commands.contains("import") && commands.contains("sync") && !commands.contains("See") && commands.count >= 12, "\(commands)")
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let script = Forceterm.packageRoot.appendingPathComponent("scripts/install.sh").path
        let installed = try Self.run("bash", [script, Self.binDirectory.path, prefix.path])
        #expect(installed.exitCode == 0, "\(installed)")
        let fileManager = FileManager.default
        for binary in ["forceterm", "localorg", "smartstore-tool"] {
            #expect(fileManager.isExecutableFile(atPath: prefix.appendingPathComponent("bin/\(binary)").path), "bin/\(binary)")
        }
        // forceterm's own SQLite comes along, and the installed binaries load that copy.
        let sqlite = prefix.appendingPathComponent("lib/forceterm/libforceterm-sqlite3.so.0").path
        #expect(fileManager.fileExists(atPath: sqlite))
        let linked = try Self.run("ldd", [prefix.appendingPathComponent("bin/forceterm").path])
        let loaded = linked.standardOutput.split(separator: "\n").first { $0.contains("libforceterm-sqlite3.so.0 =>") } ?? ""
        #expect(loaded.contains(prefix.path) && loaded.contains("/lib/forceterm/"), "\(linked.standardOutput)")
        #expect(!linked.standardOutput.contains("libsqlite3.so.0"), "the system's SQLite is not linked: \(linked.standardOutput)")
        // One binary under three names: each name runs its own command.
        for tool in ["forceterm", "localorg", "smartstore-tool"] {
            let version = try Self.run(prefix.appendingPathComponent("bin/\(tool)").path, ["--version"])
            #expect(version.standardOutput == "\(tool) \(try Self.makefileVersion())\n", "the installed \(tool) runs: \(version)")
        }
        for tool in ["localorg", "smartstore-tool"] {
            let target = try? fileManager.destinationOfSymbolicLink(atPath: prefix.appendingPathComponent("bin/\(tool)").path)
            #expect(target == "forceterm", "bin/\(tool) is a link to the one binary: \(target ?? "not a link")")
        }
        let serveHelp = try Self.run(prefix.appendingPathComponent("bin/localorg").path, ["serve", "--help"])
        #expect(serveHelp.exitCode == 0 && serveHelp.standardOutput.contains("--ready-file"), "localorg's own subcommands: \(serveHelp)")

        let bash = prefix.appendingPathComponent("share/bash-completion/completions/forceterm").path
        let zsh = prefix.appendingPathComponent("share/zsh/site-functions/_forceterm").path
        let fish = prefix.appendingPathComponent("share/fish/vendor_completions.d/forceterm.fish").path
        for path in [bash, zsh, fish] {
            let script = try String(contentsOfFile: path, encoding: .utf8)
            for command in commands { #expect(script.contains(command), "\(path) completes \(command)") }
            #expect(script.contains("dry-run") && script.contains("store"), "\(path) completes options too")
        }
        #expect(try Self.run("bash", ["-n", bash]).exitCode == 0, "bash reads its completion script")
        let completion = try Self.run("bash", ["-c", "source \(bash); COMP_WORDS=(forceterm imp); COMP_CWORD=1; _forceterm; printf '%s\\n' \"${COMPREPLY[@]}\""])
        #expect(completion.standardOutput.split(separator: "\n").contains("import"), "Tab after imp offers import: \(completion)")

        let page = prefix.appendingPathComponent("share/man/man1/forceterm.1").path
        let source = try String(contentsOfFile: page, encoding: .utf8)
        #expect(source.contains(".Dt FORCETERM 1") && source.contains(".Sh FILES") && source.components(separatedBy: "EXIT STATUS").count == 2)
        // Plain text, no overstrike (-P-cbou), as man shows it on a terminal.
        let rendered = try Self.run("groff", ["-mdoc", "-Tutf8", "-P-cbou", page])
        #expect(rendered.exitCode == 0, "\(rendered.standardError)")
        let text = rendered.standardOutput
        for command in commands { #expect(text.contains("     \(command)"), "the man page describes \(command)") }
        #expect(text.contains("FILES") && text.contains("store.sqlite") && text.contains("128+N"), "\(text.suffix(800))")
        #expect(fileManager.fileExists(atPath: prefix.appendingPathComponent("share/man/man1/localorg.1").path))

        let removed = try Self.run("bash", [script, "--uninstall", prefix.path])
        #expect(removed.exitCode == 0, "\(removed)")
        for path in [bash, zsh, fish, page, sqlite] + ["forceterm", "localorg", "smartstore-tool"].map({ prefix.appendingPathComponent("bin/\($0)").path }) {
            #expect((try? fileManager.attributesOfItem(atPath: path)) == nil, "\(path) removed")
        }
        let noBuild = try Self.run("bash", [script, prefix.path + "/nowhere", prefix.path])
        #expect(noBuild.exitCode == 1 && noBuild.standardError.contains("is missing; build first"), "\(noBuild)")
    }
}
