import ContactsApp
import ForceAPI
import ForceJSON
import Foundation

/// The connected app forceterm signs in with, from `bootconfig.json` in the config directory
/// (`--config DIR`, else `$XDG_CONFIG_HOME/forceterm`, else `~/.config/forceterm`). The keys are
/// the Mobile SDK's: `remoteAccessConsumerKey`, plus forceterm's optional `loginUrl`. Without a
/// file the consumer key is `forceterm`, which localorg knows.
public struct ConnectedAppConfig: Equatable, Sendable {
    public var consumerKey = OAuthClient.defaultClientId
    public var loginURL: String?
    /// The file the consumer key came from; nil for the built-in one.
    public var source: String?

    public static let fileName = "bootconfig.json"

    public static func directory(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit { return explicit }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/forceterm" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/forceterm"
    }

    /// Reads the file if there is one; a file that is there but wrong is an error, not ignored.
    public static func load(directory: String) throws -> ConnectedAppConfig {
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return ConnectedAppConfig() }
        guard let data = FileManager.default.contents(atPath: path), let json = try? JSONParser.parse(Array(data)), json.objectValue != nil else {
            throw ConfigError("\(path) is not a JSON object; fix it or remove it to use the default consumer key")
        }
        var config = ConnectedAppConfig()
        if let key = json["remoteAccessConsumerKey"] {
            guard let text = key.stringValue, !text.isEmpty else { throw ConfigError("remoteAccessConsumerKey in \(path) must be a non-empty string") }
            config.consumerKey = text
            config.source = path
        }
        config.loginURL = json["loginUrl"]?.stringValue
        return config
    }
}
