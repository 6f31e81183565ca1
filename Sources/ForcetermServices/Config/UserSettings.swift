import ContactsApp
import ForceAPI
import Foundation
import TOMLKit
import TerminalUI

/// The user's `config.toml` ($XDG_CONFIG_HOME/forceterm/config.toml): keys, colours and list
/// settings for the terminal UI. A file that cannot be used is reported with its line, and the
/// TUI starts with every default rather than half of the file.
///
///     [keys]
///     sync = "S"                    # a command = a key, or a list of keys
///     quit = ["q", "ctrl-q"]
///     [colors]
///     theme = "default"             # or "mono": no colours, as --no-color
///     selection = "black on yellow bold"
///     [list]
///     sort = "first-name"           # last-name, first-name, account, last-modified
///     [list.columns]
///     contacts = "Email"            # the second column of a soup's list
///     [network]
///     connect-timeout = 15          # seconds for DNS, TCP and TLS together
///     stall-timeout = 20            # seconds a transfer may move no bytes
///     pages-in-flight = 1           # query pages a sync down asks for at once (1 to 8)
///     [security]
///     lock-after = 300              # seconds without a key before a passcode-protected TUI locks
///     [sync]
///     auto = true                   # saves go up and the server's changes come down by themselves
///     interval = 300                # seconds between syncs when nothing else started one
public struct UserSettings: Equatable {
    public var keys: [String: [Key]] = [:]
    public var styles: [StyleRole: CellStyle] = [:]
    public var monochrome = false
    public var sort: ListSort?
    public var columns: [String: String] = [:]
    /// Seconds to resolve, connect and finish the TLS handshake ([network] connect-timeout).
    public var connectTimeout: Double?
    /// Seconds a transfer may move no bytes before it is abandoned ([network] stall-timeout).
    public var stallTimeout: Double?
    /// Query pages a sync down asks for at once ([network] pages-in-flight).
    public var pagesInFlight: Int?
    /// One, the SDK's way: three pages of 600 at once, each on a connection of its own, measured
    /// slower and larger on every emulated link (`make bench-field`: satellite first sync 144 s
    /// against 86–108 s, 1.34–1.37x the gzip floor against 1.29–1.32x); only a drop cost less.
    public static let defaultPagesInFlight = 1
    /// Seconds without a key after which the TUI of a passcode-protected store locks its screen,
    /// and its unlocked key is forgotten ([security] lock-after); the org's policy, when shorter, wins.
    public var lockAfter: Int?
    /// Automatic sync ([sync] auto, interval and listen): on, listening to the org, every five minutes, unless the file says otherwise.
    public var automaticSync = AutoSyncSettings()

    public init() {}

    /// The transport's timeouts with the user's [network] settings.
    public func applied(to configuration: TransportConfiguration) -> TransportConfiguration {
        var configuration = configuration
        if let connectTimeout { configuration.connectTimeout = connectTimeout }
        if let stallTimeout { configuration.stallTimeout = stallTimeout }
        return configuration
    }

    /// Where the file is: $XDG_CONFIG_HOME/forceterm/config.toml, else ~/.config/forceterm/config.toml.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".config")
        return (base as NSString).appendingPathComponent("forceterm/config.toml")
    }

    /// The settings in the file at `path` (defaults when there is none), or the defaults and why
    /// the file could not be used, naming its line.
    public static func load(path: String) -> (settings: UserSettings, problem: String?) {
        guard FileManager.default.fileExists(atPath: path) else { return (UserSettings(), nil) }
        guard let data = FileManager.default.contents(atPath: path) else {
            return (UserSettings(), "\(path) cannot be read (permissions); using the defaults")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return (UserSettings(), "\(path) is not UTF-8 text; using the defaults")
        }
        do {
            return (try parse(text), nil)
        } catch let error as SettingsProblem {
            let place = error.line.map { "\(path) line \($0)" } ?? path
            return (UserSettings(), "\(place): \(error.reason); using the defaults")
        } catch {
            return (UserSettings(), "\(path): \(error); using the defaults")
        }
    }

    public static let sortNames: [String: ListSort] = [
        "last-name": .name, "name": .name, "first-name": .firstName, "account": .account, "last-modified": .lastModified,
    ]

    public static func parse(_ text: String) throws -> UserSettings {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw SettingsProblem(line: error.source.begin.line, reason: error.description)
        }
        var settings = UserSettings()
        func line(_ key: String, in section: String) -> Int? { Self.line(of: key, in: section, text: text) }
        for key in table.keys where !["keys", "colors", "list", "network", "security", "sync"].contains(key) {
            throw SettingsProblem(
                line: Self.line(ofSection: key, text: text) ?? line(key, in: ""),
                reason: "[\(key)] is not a section forceterm reads; it reads [keys], [colors], [list], [network], [security] and [sync]")
        }
        if let keys = table["keys"] {
            guard let keys = keys.table else { throw SettingsProblem(line: line("keys", in: ""), reason: "keys must be a table: [keys]") }
            for name in keys.keys {
                let values: [String]
                if let one = keys[name]?.string {
                    values = [one]
                } else if let many = keys[name]?.array, many.allSatisfy({ $0.string != nil }), !many.isEmpty {
                    values = many.compactMap(\.string)
                } else {
                    throw SettingsProblem(line: line(name, in: "keys"), reason: "\(name) takes a key (\"S\") or a list of keys ([\"q\", \"ctrl-q\"])")
                }
                settings.keys[name] = try values.map { value in
                    guard let key = Key(configName: value) else {
                        throw SettingsProblem(
                            line: line(name, in: "keys"), reason: "\(value) is not a key; write one character, ctrl-x, f1 to f12, enter, esc, tab, space, up, down, pgup, pgdn, home or end")
                    }
                    return key
                }
            }
            do {
                _ = try AppKeymap.table(rebinding: settings.keys)
            } catch {
                throw SettingsProblem(line: line(error.name, in: "keys"), reason: error.description)
            }
        }
        if let colors = table["colors"] {
            guard let colors = colors.table else { throw SettingsProblem(line: line("colors", in: ""), reason: "colors must be a table: [colors]") }
            for name in colors.keys {
                guard let value = colors[name]?.string else {
                    throw SettingsProblem(line: line(name, in: "colors"), reason: "\(name) takes a style in quotes, e.g. \"black on yellow bold\"")
                }
                if name == "theme" {
                    guard ["default", "mono"].contains(value) else {
                        throw SettingsProblem(line: line(name, in: "colors"), reason: "theme is \"default\" or \"mono\"")
                    }
                    settings.monochrome = value == "mono"
                    continue
                }
                guard let role = Theme.role(named: name) else {
                    throw SettingsProblem(
                        line: line(name, in: "colors"),
                        reason: "\(name) is not a part of the screen; the parts are theme, "
                            + StyleRole.allCases.map(Theme.configName).joined(separator: ", "))
                }
                switch Theme.style(described: value) {
                case let .success(style): settings.styles[role] = style
                case let .failure(error): throw SettingsProblem(line: line(name, in: "colors"), reason: "\(name) = \(error)")
                }
            }
        }
        if let list = table["list"] {
            guard let list = list.table else { throw SettingsProblem(line: line("list", in: ""), reason: "list must be a table: [list]") }
            for name in list.keys {
                switch name {
                case "sort":
                    guard let value = list[name]?.string, let sort = sortNames[value] else {
                        throw SettingsProblem(line: line(name, in: "list"), reason: "sort is one of \"last-name\", \"first-name\", \"account\", \"last-modified\"")
                    }
                    settings.sort = sort
                case "columns":
                    guard let columns = list[name]?.table else {
                        throw SettingsProblem(line: line(name, in: "list"), reason: "columns is a table of soup = field: [list.columns] contacts = \"Email\"")
                    }
                    for soup in columns.keys {
                        guard let field = columns[soup]?.string, !field.isEmpty else {
                            throw SettingsProblem(line: line(soup, in: "list.columns"), reason: "\(soup) takes a field's API name in quotes, e.g. \"Email\"")
                        }
                        settings.columns[soup] = field
                    }
                default:
                    throw SettingsProblem(line: line(name, in: "list"), reason: "\(name) is not a list setting; [list] has sort and [list.columns]")
                }
            }
        }
        if let network = table["network"] {
            guard let network = network.table else { throw SettingsProblem(line: line("network", in: ""), reason: "network must be a table: [network]") }
            for name in network.keys {
                let value = network[name]?.double ?? network[name]?.int.map(Double.init)
                guard ["connect-timeout", "stall-timeout", "pages-in-flight"].contains(name) else {
                    throw SettingsProblem(
                        line: line(name, in: "network"),
                        reason: "\(name) is not a network setting; [network] has connect-timeout, stall-timeout and pages-in-flight")
                }
                if name == "pages-in-flight" {
                    guard let pages = network[name]?.int, (1...8).contains(pages) else {
                        throw SettingsProblem(line: line(name, in: "network"), reason: "pages-in-flight takes a whole number from 1 to 8, e.g. pages-in-flight = 3")
                    }
                    settings.pagesInFlight = pages
                    continue
                }
                guard let value, value >= 1, value <= 600 else {
                    throw SettingsProblem(line: line(name, in: "network"), reason: "\(name) takes seconds from 1 to 600, e.g. \(name) = 30")
                }
                if name == "connect-timeout" { settings.connectTimeout = value } else { settings.stallTimeout = value }
            }
        }
        if let security = table["security"] {
            guard let security = security.table else { throw SettingsProblem(line: line("security", in: ""), reason: "security must be a table: [security]") }
            for name in security.keys {
                guard name == "lock-after" else {
                    throw SettingsProblem(line: line(name, in: "security"), reason: "\(name) is not a security setting; [security] has lock-after")
                }
                guard let seconds = security[name]?.int, (1...86_400).contains(seconds) else {
                    throw SettingsProblem(line: line(name, in: "security"), reason: "lock-after takes seconds from 1 to 86400, e.g. lock-after = 300")
                }
                settings.lockAfter = seconds
            }
        }
        if let sync = table["sync"] {
            guard let sync = sync.table else { throw SettingsProblem(line: line("sync", in: ""), reason: "sync must be a table: [sync]") }
            settings.automaticSync = try automaticSync(sync, line: { line($0, in: "sync") })
        }
        return settings
    }

    static func automaticSync(_ table: TOMLTable, line: (String) -> Int?) throws -> AutoSyncSettings {
        var settings = AutoSyncSettings()
        for name in table.keys {
            switch name {
            case "auto":
                guard let on = table[name]?.bool else {
                    throw SettingsProblem(line: line(name), reason: "auto takes true or false, e.g. auto = false (then only s syncs)")
                }
                settings.enabled = on
            case "interval":
                let range = AutoSyncSettings.intervalRange
                guard let seconds = table[name]?.int, range.contains(seconds) else {
                    throw SettingsProblem(line: line(name), reason: "interval takes whole seconds from \(range.lowerBound) to \(range.upperBound), e.g. interval = 300")
                }
                settings.interval = TimeInterval(seconds)
            case "listen":
                guard let on = table[name]?.bool else {
                    throw SettingsProblem(line: line(name), reason: "listen takes true or false, e.g. listen = false (then the server's changes come on the timer)")
                }
                settings.serverPush = on
            default:
                throw SettingsProblem(line: line(name), reason: "\(name) is not a sync setting; [sync] has auto, interval and listen")
            }
        }
        return settings
    }

    /// The line where `key = …` is written under `[section]` ("" for the top), for a message.
    public static func line(of key: String, in section: String, text: String) -> Int? {
        var current = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                current = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")).replacingOccurrences(of: " ", with: "")
                continue
            }
            guard current == section, let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            if name == key { return index + 1 }
        }
        return nil
    }

    public static func line(ofSection name: String, text: String) -> Int? {
        text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { line in
            line.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "[] ")) == name
        }.map { $0 + 1 }
    }

    /// Soups in [list.columns] that are not record lists here, for the message.
    public func unknownColumnSoups(_ kinds: [RecordKind]) -> [String] {
        columns.keys.filter { soup in !kinds.contains { $0.soupName == soup } }.sorted()
    }
}

/// Why config.toml cannot be used: the line (when it can be found) and the reason.
public struct SettingsProblem: Error {
    public let line: Int?
    public let reason: String
}
