import ContactsApp
import ForceAPI
import ForcetermServices
import Foundation
import Testing

/// Files the commands write whole, the config files they read, and the command-line values they
/// take apart: on real files in a scratch directory.
@Suite("Files, configuration and command-line values")
struct FilesAndSettingsTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("services-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    @Test("An atomic file replaces the old one only when committed; a discarded one leaves it as it was")
    func atomicFile() throws {
        let path = directory + "/contacts.vcf"
        try "old\n".write(toFile: path, atomically: true, encoding: .utf8)
        let discarded = try AtomicFile(path: path)
        discarded.write("half a")
        discarded.discard()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
        #expect(!FileManager.default.fileExists(atPath: discarded.temporaryPath))

        let file = try AtomicFile(path: path)
        file.write("new\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n", "not before the commit")
        try file.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(throws: ConfigError.self) { try AtomicFile(path: directory + "/no/such/dir/x.vcf") }
    }

    @Test("Field=Value splits at the first =; a bare word or a field given twice is a usage error")
    func fieldAssignments() throws {
        let pairs = try FieldAssignments(["Title=Head of Sales", "Description=a=b", "Email="]).pairs
        #expect(pairs.map(\.field) == ["Title", "Description", "Email"])
        #expect(pairs.map(\.text) == ["Head of Sales", "a=b", ""])
        #expect(throws: UsageError.self) { try FieldAssignments(["LastName"]) }
        #expect(throws: UsageError.self) { try FieldAssignments(["=x"]) }
        #expect(throws: UsageError.self) { try FieldAssignments(["Title=a", "title=b"]) }
    }

    @Test("Without --config the built-in files; a directory with neither file, or a file that is not UTF-8, is named")
    func syncConfiguration() throws {
        let builtIn = try SyncConfiguration.load(directory: nil)
        #expect(builtIn.syncsJSON == DefaultConfig.usersyncsJSON)
        #expect(!builtIn.syncs.entries.isEmpty)

        #expect { try SyncConfiguration.load(directory: directory) } throws: { error in
            "\(error)".contains("has neither userstore.json nor usersyncs.json")
        }
        FileManager.default.createFile(atPath: directory + "/usersyncs.json", contents: Data([0x7B, 0x20, 0xE9, 0x7D]))
        #expect { try SyncConfiguration.load(directory: directory) } throws: { error in
            "\(error)".contains("is not UTF-8 text (byte 2 is not)")
        }
        #expect(SyncConfiguration.firstInvalidUTF8Byte(in: Data("José".utf8)) == 5)
    }

    @Test("The store is --store when given, else the signed-out store in the data directory")
    func storeLocation() {
        let environment = ["XDG_DATA_HOME": directory]
        #expect(StoreLocation(explicitPath: "/tmp/mine.sqlite", environment: environment).path == "/tmp/mine.sqlite")
        let signedOut = StoreLocation(explicitPath: nil, environment: environment).path
        #expect(signedOut == directory + "/forceterm/store.sqlite")
        #expect(StoreLocation.isSignedOutStore(signedOut, environment: environment))
        #expect(!StoreLocation.isSignedOutStore("/tmp/mine.sqlite", environment: environment))
        #expect(StoreLocation.global(environment: environment).path == directory + "/forceterm/global.sqlite")
    }

    @Test("A store that does not exist has no local changes to strand")
    func noStoreNoChanges() throws {
        let changes = try LocalChanges.count(storePath: directory + "/none.sqlite")
        #expect(changes.total == 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/none.sqlite"), "counting creates nothing")
    }
}

extension FilesAndSettingsTests {
    @Test("[network] sets the transport's timeouts; a value out of range is named with its line")
    func networkSettings() throws {
        let settings = try UserSettings.parse("[network]\nconnect-timeout = 30\nstall-timeout = 45.5\n")
        let configuration = settings.applied(to: TransportConfiguration())
        #expect(configuration.connectTimeout == 30 && configuration.stallTimeout == 45.5)
        #expect(UserSettings().applied(to: TransportConfiguration()).connectTimeout == 15, "the default fits a 3 s round trip")
        #expect { try UserSettings.parse("[network]\nconnect-timeout = 0\n") } throws: { error in
            (error as? SettingsProblem)?.line == 2 && (error as? SettingsProblem)?.reason.contains("seconds from 1 to 600") == true
        }
        #expect { try UserSettings.parse("[network]\nretries = 3\n") } throws: { error in
            (error as? SettingsProblem)?.reason.contains("connect-timeout, stall-timeout and pages-in-flight") == true
        }
    }

    @Test("[network] pages-in-flight: a whole number from 1 to 8, one when unset")
    func pagesInFlightSetting() throws {
        #expect(try UserSettings.parse("[network]\npages-in-flight = 3\n").pagesInFlight == 3)
        #expect(try UserSettings.parse("[network]\nconnect-timeout = 30\n").pagesInFlight == nil)
        #expect(UserSettings.defaultPagesInFlight == 1)
        for bad in ["0", "9", "2.5", "\"3\""] {
            #expect { try UserSettings.parse("[network]\npages-in-flight = \(bad)\n") } throws: { error in
                (error as? SettingsProblem)?.line == 2 && (error as? SettingsProblem)?.reason.contains("from 1 to 8") == true
            }
        }
    }

    @Test("[sync] auto, interval and listen: on, listening, every five minutes when unset; off or another interval from the file; bad values named with their line")
    func syncSettings() throws {
        #expect(UserSettings().automaticSync == AutoSyncSettings(enabled: true, interval: 300))
        let off = try UserSettings.parse("[sync]\nauto = false\n")
        #expect(!off.automaticSync.enabled)
        #expect(try UserSettings.parse("[sync]\ninterval = 60\n").automaticSync == AutoSyncSettings(enabled: true, interval: 60))
        #expect(UserSettings().automaticSync.serverPush)
        #expect(try !UserSettings.parse("[sync]\nlisten = false\n").automaticSync.serverPush)
        for (bad, says) in [
            ("auto = \"no\"", "true or false"), ("interval = 2", "from 5 to 86400"), ("interval = 90.5", "whole seconds"),
            ("listen = 1", "listen takes true or false"), ("push = true", "[sync] has auto, interval and listen"),
        ] {
            #expect { try UserSettings.parse("# mine\n[sync]\n\(bad)\n") } throws: { error in
                (error as? SettingsProblem)?.line == 3 && (error as? SettingsProblem)?.reason.contains(says) == true
            }
        }
    }
}
