import Foundation
import Testing

@Suite("forceterm finds the store where XDG says")
struct StoreLocationTests {
    @Test("Without --store, the store is $XDG_DATA_HOME/forceterm/store.sqlite")
    func xdgDataHome() throws {
        let fixture = try StoreFixture()
        let dataHome = fixture.directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dataHome.appendingPathComponent("forceterm"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: dataHome.appendingPathComponent("forceterm/store.sqlite").path)
        let output = try Forceterm.run(["query", "SELECT count(*) AS soups FROM soup_attrs"], environment: ["XDG_DATA_HOME": dataHome.path])
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput == "soups\n-----\n    3\n")
    }

    @Test("Without XDG_DATA_HOME the store is ~/.local/share/forceterm/store.sqlite, and is not created")
    func homeFallback() throws {
        let fixture = try StoreFixture()
        let home = fixture.directory.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let expected = home.appendingPathComponent(".local/share/forceterm/store.sqlite").path
        let output = try Forceterm.run(["query", "SELECT 1"], environment: ["XDG_DATA_HOME": nil, "HOME": home.path])
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardError.contains("no store at \(expected)"), "\(output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
    }

    @Test("A relative XDG_DATA_HOME is ignored, as the XDG spec says")
    func relativeDataHomeIgnored() throws {
        let fixture = try StoreFixture()
        let home = fixture.directory.appendingPathComponent("home")
        let output = try Forceterm.run(["query", "SELECT 1"], environment: ["XDG_DATA_HOME": "relative/data", "HOME": home.path])
        #expect(output.standardError.contains("no store at \(home.path)/.local/share/forceterm/store.sqlite"), "\(output)")
    }

    @Test("--store before the subcommand works as well as after it")
    func storeBeforeSubcommand() throws {
        let fixture = try StoreFixture()
        let output = try Forceterm.run(["--store", fixture.path, "query", "SELECT count(*) AS n FROM {contacts}"])
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput == "n\n-\n0\n")
    }
}
