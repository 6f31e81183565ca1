import ForceJSON
import Foundation

/// The data directory of one org: its database and its TLS files.
public struct OrgDirectory: Sendable {
    public let path: String

    /// `--data DIR`, else `$XDG_DATA_HOME/localorg`, else `~/.local/share/localorg`.
    public init(path: String?) {
        if let path {
            self.path = path
        } else if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !xdg.isEmpty {
            self.path = xdg + "/localorg"
        } else {
            self.path = FileManager.default.homeDirectoryForCurrentUser.path + "/.local/share/localorg"
        }
    }

    public var databasePath: String { path + "/org.sqlite" }
    /// Optional: `{"connectedApps":[{"clientId":"…","clientSecret":"…","mobilePolicy":{"pinLength":6,"screenLock":10},"passwordFlow":false}]}`
    /// (`mobilePolicy` and `passwordFlow` optional too).
    public var connectedAppsPath: String { path + "/connected-apps.json" }

    /// The connected apps configured for this org (client id → secret); none when the file is absent.
    public func connectedApps() throws -> [String: String] {
        var apps: [String: String] = [:]
        for (id, app) in try connectedAppEntries() {
            guard let secret = app["clientSecret"]?.stringValue, !secret.isEmpty else {
                throw SchemaError(description: "\(connectedAppsPath): every connected app needs a clientId and a clientSecret")
            }
            apps[id] = secret
        }
        return apps
    }

    /// The mobile policies of the connected apps that set one (client id → policy); an app with an
    /// empty `mobilePolicy` has none, an app without the key takes `serve`'s.
    public func connectedAppPolicies() throws -> [String: OrgSettings.MobilePolicy] {
        var policies: [String: OrgSettings.MobilePolicy] = [:]
        for (id, app) in try connectedAppEntries() {
            guard let given = app["mobilePolicy"] else { continue }
            let known: Set<String> = ["pinLength", "screenLock"]
            guard let fields = given.objectValue, Set(fields.keys).isSubset(of: known),
                fields.values.allSatisfy({ $0.int64Value != nil })
            else {
                throw SchemaError(description: "\(connectedAppsPath): \(id)'s mobilePolicy takes pinLength (characters) and screenLock (minutes), both numbers")
            }
            let policy = OrgSettings.MobilePolicy(
                pinLength: fields["pinLength"]?.int64Value.map { Int($0) },
                screenLockMinutes: fields["screenLock"]?.int64Value.map { Int($0) })
            if let problem = policy.problem { throw SchemaError(description: "\(connectedAppsPath): \(id)'s mobilePolicy: \(problem)") }
            policies[id] = policy
        }
        return policies
    }

    /// The apps whose username-password flow is blocked (`"passwordFlow": false`).
    public func passwordFlowBlockedApps() throws -> Set<String> {
        var blocked = Set<String>()
        for (id, app) in try connectedAppEntries() {
            switch app["passwordFlow"] {
            case nil, .bool(true)?: continue
            case .bool(false)?: blocked.insert(id)
            default: throw SchemaError(description: "\(connectedAppsPath): \(id)'s passwordFlow is true or false")
            }
        }
        return blocked
    }

    /// Each app of `connected-apps.json` by its client id.
    private func connectedAppEntries() throws -> [(id: String, app: JSONValue)] {
        guard FileManager.default.fileExists(atPath: connectedAppsPath) else { return [] }
        let document: JSONValue
        do { document = try JSONParser.parse(try Data(contentsOf: URL(fileURLWithPath: connectedAppsPath))) } catch {
            throw SchemaError(description: "\(connectedAppsPath): \(error)")
        }
        return try (document["connectedApps"]?.arrayValue ?? []).map { app in
            guard let id = app["clientId"]?.stringValue, !id.isEmpty else {
                throw SchemaError(description: "\(connectedAppsPath): every connected app needs a clientId and a clientSecret")
            }
            return (id, app)
        }
    }
    public var certificateAuthority: LocalCertificateAuthority { LocalCertificateAuthority(directory: path) }

    /// Optional briefcase rules for the Mobile SDK's briefcase sync.
    public var briefcasesPath: String { path + "/briefcases.json" }

    /// The org's briefcase rules; none when `briefcases.json` is absent.
    public func briefcases(schema: OrgSchema) throws -> BriefcaseConfiguration {
        guard FileManager.default.fileExists(atPath: briefcasesPath) else { return BriefcaseConfiguration(rules: []) }
        let document: JSONValue
        do { document = try JSONParser.parse(try Data(contentsOf: URL(fileURLWithPath: briefcasesPath))) } catch {
            throw SchemaError(description: "\(briefcasesPath): \(error)")
        }
        return try BriefcaseConfiguration.parse(document, schema: schema)
    }

    /// An org's own schema; without it the schema shipped with localorg is used.
    public var schemaPath: String { path + "/schema.json" }

    /// The org's schema: `schema.json` in the data directory when there is one (custom-schema.json
    /// is the usual way to add fields or objects), else the one compiled into localorg.
    public func schema() throws -> OrgSchema {
        let base = FileManager.default.fileExists(atPath: schemaPath) ? URL(fileURLWithPath: schemaPath) : nil
        let additions = FileManager.default.fileExists(atPath: customSchemaPath) ? URL(fileURLWithPath: customSchemaPath) : nil
        return try OrgSchema.load(from: base, additions: additions)
    }

    /// Optional: custom objects and custom fields (`__c`) added to the schema, so a team can mirror
    /// its own org: `{"objects": [...], "fields": {"Contact": [...]}}`, each in schema.json's form.
    public var customSchemaPath: String { path + "/custom-schema.json" }

    /// Where a new org's made-up administrator password is kept (mode 0600) for the trainer.
    public var administratorPasswordPath: String { path + "/admin-password" }

    /// Creates the directory (owner-only) and opens the org in it, creating it on first use with
    /// `firstUsers`; a new org's administrator password is written to `administratorPasswordPath`.
    public func openStore(firstUsers: OrgStore.FirstUsers = .administrator) throws -> OrgStore {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = try OrgStore(path: databasePath, schema: try schema(), firstUsers: firstUsers)
        if let administrator = store.createdAdministrator {
            let text = "\(administrator.username)\n\(administrator.password)\n"
            guard FileManager.default.createFile(atPath: administratorPasswordPath, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw SchemaError(description: "could not write \(administratorPasswordPath); give \(administrator.username) a password with localorg user passwd")
            }
        }
        return store
    }
}
