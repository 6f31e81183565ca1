import Foundation

/// The material Salesforce and others published (`../shared/real-salesforce/` beside the
/// project, or `$FORCETERM_REAL_SALESFORCE`): the Mobile SDK's config files, the Postman
/// collection, recorded responses. Read in place, never copied into the project. Tests that need
/// it are enabled only where it is (`isAvailable`), so a checkout without it shows them skipped.
public enum RealSalesforce {
    public static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["FORCETERM_REAL_SALESFORCE"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return LocalOrgProcess.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/real-salesforce")
    }()

    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("mobilesync-configs").path)
    }

    /// `mobilesync-configs/<name>`: one of the SDK's config directories.
    public static func mobileSyncConfig(_ name: String) -> URL {
        directory.appendingPathComponent("mobilesync-configs").appendingPathComponent(name)
    }

    /// Every directory of `mobilesync-configs/`, by name.
    public static var mobileSyncConfigNames: [String] {
        let root = directory.appendingPathComponent("mobilesync-configs").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
    }

    /// `restforce-fixtures/<name>.json`: a response body restforce recorded (`sobject/query_success_response`).
    public static func restforceFixture(_ name: String) -> URL {
        directory.appendingPathComponent("restforce-fixtures").appendingPathComponent(name + ".json")
    }

    /// A file's text, or nil when the directory lacks it.
    public static func text(_ url: URL) -> String? {
        try? String(contentsOf: url, encoding: .utf8)
    }
}
