import ContactsApp
import ForceAPI
import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// `userstore.json` and `usersyncs.json`: from `--config DIR` when it has them, else built in
/// (ContactsApp's copy of the repo's `config/`). The TUI and the sync commands read them here.
public struct SyncConfiguration {
    public let store: StoreConfig
    public let syncs: SyncsConfig
    /// The usersyncs.json text, from which the edit form takes its fields.
    public let syncsJSON: String

    /// Where `data` stops being UTF-8 (0-based), for the message: the first byte that does not
    /// start a well-formed character.
    public static func firstInvalidUTF8Byte(in data: Data) -> Int {
        let bytes = [UInt8](data)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            guard length > 0, index + length <= bytes.count,
                String(bytes: bytes[index..<(index + length)], encoding: .utf8) != nil
            else { return index }
            index += length
        }
        return index
    }

    /// Without `directory`, the built-in files. With it, its files; one it lacks is replaced as the
    /// SDK's own config sets do: no usersyncs.json means no named syncs (the SmartStore test app
    /// ships soups alone), no userstore.json means forceterm's soups (the MobileSync test app
    /// ships syncs alone, into an `accounts` soup).
    public static func load(directory: String?, global: Bool = false) throws -> SyncConfiguration {
        let storeName = global ? "globalstore.json" : "userstore.json"
        let syncsName = global ? "globalsyncs.json" : "usersyncs.json"
        func file(_ name: String) throws -> (text: String, source: String)? {
            guard let directory else { return nil }
            let path = (directory as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigError("cannot read \(path); check its permissions")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                let offset = Self.firstInvalidUTF8Byte(in: data)
                throw ConfigError("\(path) is not UTF-8 text (byte \(offset) is not); save it as UTF-8")
            }
            return (text, path)
        }
        let storeFile = try file(storeName)
        let syncsFile = try file(syncsName)
        // A globalstore.json alone (the SmartStore test app's) registers its soups, as a
        // userstore.json alone does; with neither file there is nothing global to use.
        if global, directory == nil {
            throw ConfigError("no global syncs are built in; give --config the directory with the SDK's globalstore.json and globalsyncs.json")
        }
        if let directory, storeFile == nil, syncsFile == nil {
            throw ConfigError("\(directory) has neither \(storeName) nor \(syncsName); give --config the directory that holds them")
        }
        let storeText = storeFile ?? (DefaultConfig.userstoreJSON, "the built-in userstore.json")
        let syncsText =
            syncsFile
            ?? (directory == nil
                ? (DefaultConfig.usersyncsJSON, "the built-in usersyncs.json")
                : (#"{"syncs": []}"#, "no \(syncsName)"))
        let store: StoreConfig
        do {
            store = try StoreConfig(json: storeText.text)
        } catch {
            throw ConfigError("\(storeText.source) is not a valid \(storeName): \(error)")
        }
        let syncs: SyncsConfig
        do {
            syncs = try SyncsConfig(json: syncsText.text)
        } catch {
            throw ConfigError("\(syncsText.source) is not a valid \(syncsName): \(error)")
        }
        let missing = syncs.soupProblems(soups: Set(store.soups.map(\.name)))
        if !missing.isEmpty {
            throw ConfigError(
                "\(syncsText.source) does not match \(storeText.source): "
                    + (missing.count == 1
                        ? missing[0]
                        : "\(missing.count) problems:\n  - " + missing.joined(separator: "\n  - ")))
        }
        return SyncConfiguration(store: store, syncs: syncs, syncsJSON: syncsText.text)
    }
}
