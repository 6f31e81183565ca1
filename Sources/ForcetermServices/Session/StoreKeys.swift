import Foundation
import SmartStore

/// Which key opens one of forceterm's stores. A store with a key file beside it (`<store>.key`,
/// 0600) is encrypted with that key: the demo's store is, with a key of its own, so the demo runs
/// on the same encrypted files as everyone's without asking anything. A store without one is
/// opened unencrypted, as before.
public enum StoreKeys {
    public static func keyFile(forStore path: String) -> String { path + ".key" }

    /// How the store at `path` is opened.
    public static func encryption(forStore path: String) throws -> StoreEncryption {
        let file = keyFile(forStore: path)
        guard FileManager.default.fileExists(atPath: file) else { return .plain }
        return .encrypted(try StoreKey(contentsOfFile: file))
    }

    /// Opens the store at `path` with its key; an unencrypted store that has a key file is encrypted first.
    public static func open(_ path: String, mustExist: Bool = false) throws -> SmartStore {
        try SmartStore(path: path, mustExist: mustExist, encryption: try encryption(forStore: path))
    }

    /// Gives the store at `path` a new random key file unless it has one; the store, new or from
    /// before (unencrypted), is encrypted with it when next opened.
    public static func createKeyFile(forStore path: String) throws {
        let file = keyFile(forStore: path)
        guard !FileManager.default.fileExists(atPath: file) else { return }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try StoreKey.random().write(toFile: file)
    }
}
