import ContactsApp
import ForceAPI
import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// The org a user signs in to again is not the one their store was synced with: same login host
/// and username, another organization id — a sandbox refresh, or a localorg snapshot restore or
/// set up again. Its store stays where it is (stores are per org), so nothing of the old org is
/// shown as the new org's; its unsent changes are written to a file aside, never sent to the new
/// org, for the user to look at and bring over by hand if they still want them.
public struct OrgReset {
    /// Whether `next` signs in to a new org where `previous` was: the same user at the same login
    /// URL, another organization id.
    public static func isReset(from previous: OAuthCredentials, to next: OAuthCredentials) -> Bool {
        previous.organizationId != next.organizationId
            && previous.username.lowercased() == next.username.lowercased()
            && sameServer(previous.loginURL, next.loginURL)
    }

    /// Two login URLs for one server: case, a trailing slash and the default port aside.
    public static func sameServer(_ first: String, _ second: String) -> Bool {
        func normalized(_ url: String) -> String {
            guard let components = URLComponents(string: url.lowercased()), let host = components.host else { return url.lowercased() }
            let scheme = components.scheme ?? "https"
            let port = components.port ?? (scheme == "http" ? 80 : 443)
            return "\(scheme)://\(host):\(port)\(components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/")))"
        }
        return normalized(first) == normalized(second)
    }

    /// `set-aside/` in forceterm's data directory.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (CredentialStore.defaultDirectory(environment: environment) as NSString).appendingPathComponent("set-aside")
    }

    /// Writes the unsent changes of the store at `storePath` (synced with `previous`'s org) to a
    /// JSON file in `directory` and returns its path and how many records it holds; nil when there
    /// are none. The store itself is not changed.
    public static func setAside(storePath: String, previous: OAuthCredentials, directory: String, now: Date = Date()) throws -> (path: String, count: Int)? {
        guard FileManager.default.fileExists(atPath: storePath) else { return nil }
        let (store, storeKey) = try StoreKeys.openWithKey(storePath, mustExist: true)
        var changes: [JSONValue] = []
        for soup in try store.soupNames().sorted() where !LocalChanges.bookkeepingSoups.contains(soup) {
            let records = try store.query(LocalChanges.flagged(LocalField.local, soup: soup, in: store, pageSize: Int(Int32.max)))
                .compactMap { $0.objectValue ?? $0.arrayValue?.first?.objectValue }
            for record in records {
                let change =
                    record[LocalField.locallyDeleted]?.boolValue == true
                    ? "deleted"
                    : record[LocalField.locallyCreated]?.boolValue == true ? "created" : "updated"
                var fields: JSONObject = [:]
                for (key, value) in record where !ConflictComparison.isBookkeeping(key) { fields[key] = value }
                var entry: JSONObject = ["soup": .string(soup), "change": .string(change), "record": .object(fields)]
                // What was changed here, against what the old org had then, and the server's side of
                // a conflict: enough to make the same change again by hand in the new org.
                if let base = record[LocalField.base]?.objectValue, !base.isEmpty {
                    entry["changedFields"] = .array(base.keys.sorted().map(JSONValue.string))
                    entry["serverValuesBefore"] = .object(base)
                }
                if let conflict = record[LocalField.conflict]?.objectValue {
                    entry["inConflictWith"] = conflict["server"] ?? .null
                }
                changes.append(.object(entry))
            }
        }
        guard !changes.isEmpty else { return nil }
        let stamp = ISO8601DateFormatter().string(from: now)
        let document: JSONObject = [
            "about": .string(
                "Local changes made for the org \(previous.organizationId) at \(previous.loginURL), which was replaced by a new org (a sandbox refresh or a localorg snapshot restore) before they were sent. They were not sent to the new org."
            ),
            "organizationId": .string(previous.organizationId), "username": .string(previous.username),
            "loginURL": .string(previous.loginURL), "store": .string(storePath), "setAsideAt": .string(stamp),
            "changes": .array(changes),
        ]
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let safeStamp = stamp.replacingOccurrences(of: ":", with: "")
        let path = (directory as NSString).appendingPathComponent("\(CredentialStore.safeSegment(previous.organizationId))-\(safeStamp).json")
        // Sealed with the old store's key, as the records were in the store: forceterm aside reads it.
        let text = JSONWriter.string(.object(try SetAsideChanges.sealed(document, count: changes.count, key: storeKey)), pretty: true)
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return (path, changes.count)
    }
}
