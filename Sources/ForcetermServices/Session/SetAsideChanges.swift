import ContactsApp
import ForceJSON
import Foundation
import SmartStore

/// The changes an org reset set aside (`OrgReset`), in a file of `set-aside/`: what the store held
/// unsent, names and emails included, so it is sealed with that store's key as the store was. What
/// says whose and when (org, user, store, time, count) stays readable, for `forceterm aside` to list
/// and to know which store's key opens it.
public enum SetAsideChanges {
    static let format = "forceterm set-aside changes, sealed:1"
    static let purpose = "forceterm set-aside changes"

    /// `document` sealed with the key of its store (the passcode's, the key file's or the one it
    /// shares); as it is for a store without a key (a file from elsewhere, unencrypted itself).
    static func sealed(_ document: JSONObject, count: Int, key: StoreKey?) throws -> JSONObject {
        guard let key else { return document }
        var envelope = document.filter { ["about", "organizationId", "username", "loginURL", "store", "setAsideAt"].contains($0.key) }
        envelope["format"] = .string(format)
        envelope["count"] = .int(Int64(count))
        envelope["sealed"] = .string(try SealedData.seal(Data(JSONWriter.string(.object(document)).utf8), with: key, purpose: purpose))
        return envelope
    }

    /// The file at `path` opened: the whole document, with the changes (unlocking the store whose
    /// key sealed it, if need be).
    public static func open(_ path: String) throws -> JSONValue {
        let file = try read(path)
        guard file["format"]?.stringValue == format else { return file }  // written unsealed
        guard let store = file["store"]?.stringValue, let sealed = file["sealed"]?.stringValue else {
            throw ConfigError("\(path) is damaged: it names no store or holds nothing sealed")
        }
        guard FileManager.default.fileExists(atPath: store), let key = try StoreKeys.openWithKey(store, mustExist: true).key else {
            throw ConfigError(
                "\(path) is sealed with the key of the store \(store), which is not there any more (set aside after a forgotten "
                    + "passcode? forceterm aside on it then needs that store back in its place, with its .passcode-key); it cannot be read")
        }
        guard let opened = SealedData.open(sealed, with: key, purpose: purpose) else {
            throw ConfigError("\(path) does not open with the key of the store \(store) (its key was replaced since); it cannot be read")
        }
        return try JSONParser.parse(opened)
    }

    /// The set-aside files in `directory`, oldest first, each with what its readable part says.
    public static func list(in directory: String) throws -> [(path: String, summary: JSONValue)] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let path = (directory as NSString).appendingPathComponent(name)
            return (path, try read(path))
        }
    }

    private static func read(_ path: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else { throw ConfigError("cannot read \(path): no such file, or not readable") }
        do { return try JSONParser.parse(data) } catch { throw ConfigError("\(path) is not a set-aside file forceterm wrote (\(error))") }
    }
}
