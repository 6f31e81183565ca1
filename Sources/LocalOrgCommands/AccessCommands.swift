import ArgumentParser
import Foundation
import LocalOrg

/// `localorg rules`: which of a production org's rules this org enforces.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Show or switch the production rules this org enforces (all on in a new org).",
        discussion: """
            A new org answers as a production Salesforce org does: field-level security, long text \
            areas that cannot be filtered, duplicate rules, country and state picklists, record \
            locking, flows that change values on save, DELETE without preconditions, and the \
            request size limit. A trainer who wants a lenient room switches rules off; a running \
            localorg serve applies a change within a second.

            Examples:
              localorg rules
              localorg rules set duplicate-rules off
              localorg rules lenient        # every rule off
              localorg rules strict         # every rule on again
              localorg rules duplicate-action Account block
            """,
        subcommands: [ShowRules.self, SetRule.self, LenientRules.self, StrictRules.self, DuplicateActionRule.self],
        defaultSubcommand: ShowRules.self)
}

struct ShowRules: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "List the rules, each on or off.")
    @OptionGroup var data: DataOption

    func run() throws {
        let rules = try data.openStore().productionRules()
        let width = ProductionRules.Rule.allCases.map(\.rawValue.count).max() ?? 0
        for rule in ProductionRules.Rule.allCases {
            print("\(rule.rawValue.padding(toLength: width, withPad: " ", startingAt: 0))  \(rules.isOn(rule) ? "on " : "off")  \(rule.summary)")
        }
        let actions = ["Contact", "Account"].map { "\($0) \((rules.duplicateActions[$0] ?? .alert).rawValue)" }
        print("Duplicate rules answer a match with: \(actions.joined(separator: ", ")) (localorg rules duplicate-action OBJECT alert|block).")
    }
}

struct SetRule: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Switch one rule on or off.")
    @OptionGroup var data: DataOption
    @Argument(help: ArgumentHelp("The rule, as localorg rules lists it.", valueName: "rule")) var name: String
    @Argument(help: ArgumentHelp("on or off.", valueName: "on|off")) var state: String

    func run() throws {
        guard let rule = ProductionRules.Rule(rawValue: name.lowercased()) else {
            throw OrgRefusal("no rule \(name); the rules are \(ProductionRules.Rule.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard ["on", "off"].contains(state.lowercased()) else { throw OrgRefusal("say on or off, not \(state)") }
        let store = try data.openStore()
        var rules = try store.productionRules()
        rules.set(rule, on: state.lowercased() == "on")
        try store.setProductionRules(rules)
        print("\(rule.rawValue) is \(state.lowercased()) (a running localorg serve applies it within a second).")
    }
}

struct DuplicateActionRule: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicate-action",
        abstract: "What an object's standard duplicate rule does with a matching create: alert (the default; the API refuses it unless allowSave=true) or block.")
    @OptionGroup var data: DataOption
    @Argument(help: "Contact or Account.") var object: String
    @Argument(help: ArgumentHelp("alert or block.", valueName: "alert|block")) var action: String

    func run() throws {
        guard let chosen = DuplicateAction(rawValue: action.lowercased()) else { throw OrgRefusal("say alert or block, not \(action)") }
        try data.openStore().setDuplicateAction(chosen, for: object)
        print(
            "The standard \(object) duplicate rule now answers a match with \(chosen == .block ? "Block: refused whatever the request says" : "an alert: refused unless the request allows the save").")
    }
}

struct LenientRules: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lenient", abstract: "Switch every rule off: a lenient room.")
    @OptionGroup var data: DataOption

    func run() throws {
        try data.openStore().setProductionRules(.lenient)
        print("Every production rule is off; localorg rules strict switches them on again.")
    }
}

struct StrictRules: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "strict", abstract: "Switch every rule on: a production org.")
    @OptionGroup var data: DataOption

    func run() throws {
        try data.openStore().setProductionRules(.strict)
        print("Every production rule is on.")
    }
}

/// `localorg profile …`: profiles and permission sets with field-level security.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Profiles and permission sets: which fields each user may read and edit.",
        discussion: """
            Every org has System Administrator (every field) and Standard User (every field, but \
            those the schema keeps to administrators read-only). A profile of your own starts from \
            Standard User and hides fields or makes them read-only; a permission set grants more \
            on top of a user's profile (the most any of them grants wins, as in Salesforce). A \
            field hidden from a user is missing from their describe, and SOQL or a write naming it \
            is refused as if the field did not exist. Required and system fields cannot be restricted.

            Examples:
              localorg profile add "Field Sales" --hidden Contact.Department --read-only Contact.HomePhone
              localorg profile add "Phone Editors" --permission-set --edit Contact.HomePhone
              localorg user profile trainee01@class.test "Field Sales"
              localorg user permission-set trainee01@class.test "Phone Editors"
            """,
        subcommands: [ListProfiles.self, AddProfile.self, RemoveProfile.self])
}

struct ListProfiles: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the profiles and permission sets, their fields and users.")
    @OptionGroup var data: DataOption

    func run() throws {
        let store = try data.openStore()
        let assignments = try store.accessAssignments()
        let names = Dictionary(uniqueKeysWithValues: try store.userSummaries().map { ($0.id, $0.username) })
        func users(_ predicate: ((profile: String, permissionSets: [String])) -> Bool) -> String {
            let matching = assignments.filter { predicate($0.value) }.compactMap { names[$0.key] }.sorted()
            return matching.isEmpty ? "nobody" : matching.joined(separator: ", ")
        }
        print("profile \(AccessDefinition.systemAdministrator): every field — \(users { $0.profile == AccessDefinition.systemAdministrator })")
        print("profile \(AccessDefinition.standardUser): every field; admin-only fields read-only — \(users { $0.profile == AccessDefinition.standardUser })")
        for definition in try store.accessDefinitions() {
            let kind = definition.kind == .profile ? "profile" : "permission set"
            let fields = definition.fields.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.word)" }.joined(separator: ", ")
            let holders =
                definition.kind == .profile
                ? users { $0.profile.caseInsensitiveCompare(definition.name) == .orderedSame }
                : users { $0.permissionSets.contains { $0.caseInsensitiveCompare(definition.name) == .orderedSame } }
            print("\(kind) \(definition.name): \(fields.isEmpty ? "no field changed" : fields) — \(holders)")
        }
    }
}

struct AddProfile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a profile or permission set, or replace the fields of one of that name.")
    @OptionGroup var data: DataOption
    @Argument(help: "Its name, e.g. \"Field Sales\".") var name: String
    @Flag(help: "A permission set (grants on top of a profile) instead of a profile.") var permissionSet = false
    @Option(name: .customLong("hidden"), help: ArgumentHelp("A field the users may not see: Object.Field. Repeatable.", valueName: "field"))
    var hidden: [String] = []
    @Option(name: .customLong("read-only"), help: ArgumentHelp("A field the users may read but not edit. Repeatable.", valueName: "field"))
    var readOnly: [String] = []
    @Option(name: .customLong("edit"), help: ArgumentHelp("A field the users may read and edit. Repeatable.", valueName: "field"))
    var edit: [String] = []

    func validate() throws {
        if permissionSet && !hidden.isEmpty { throw ValidationError("A permission set only grants access; --hidden belongs to a profile.") }
        let all = (hidden + readOnly + edit).map { $0.lowercased() }
        if Set(all).count != all.count { throw ValidationError("Each field takes one of --hidden, --read-only and --edit.") }
    }

    func run() throws {
        var fields: [String: FieldAccess.Level] = [:]
        for field in hidden { fields[field] = .hidden }
        for field in readOnly { fields[field] = .read }
        for field in edit { fields[field] = .edit }
        try data.openStore().saveAccessDefinition(AccessDefinition(name: name, kind: permissionSet ? .permissionSet : .profile, fields: fields))
        print("Saved \(permissionSet ? "permission set" : "profile") \(name) (a running localorg serve applies it at each user's next request).")
    }
}

struct RemoveProfile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a profile (its users get Standard User) or a permission set (taken from its users).")
    @OptionGroup var data: DataOption
    @Argument(help: "Its name.") var name: String

    func run() throws {
        try data.openStore().removeAccessDefinition(named: name)
        print("Removed \(name).")
    }
}

struct UserProfile: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "profile", abstract: "Give a user a profile (localorg profile list shows them).")
    @OptionGroup var data: DataOption
    @Argument(help: "The username.") var username: String
    @Argument(help: "The profile, e.g. \"Field Sales\" or \"Standard User\".") var profile: String

    func run() throws {
        try data.openStore().setProfile(username: username, profile)
        print("\(username) has the profile \(profile).")
    }
}

struct UserPermissionSet: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "permission-set", abstract: "Assign a permission set to a user, or take it away.")
    @OptionGroup var data: DataOption
    @Argument(help: "The username.") var username: String
    @Argument(help: "The permission set.") var permissionSet: String
    @Flag(help: "Take the permission set away instead.") var remove = false

    func run() throws {
        let store = try data.openStore()
        try store.assignPermissionSet(permissionSet, toUserId: try store.signInUserId(username: username), remove: remove)
        print(remove ? "Took \(permissionSet) away from \(username)." : "\(username) has the permission set \(permissionSet).")
    }
}

/// `localorg share …`: records shared with a user beyond what they own, as account teams and
/// territory assignments share them, without touching the records.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share records with a user (an account team, a territory) or take a share away, without touching the records.",
        discussion: """
            With private sharing (serve --sharing private) a user sees the records they own, the \
            records shared with them, and the contacts of the accounts they see. A share changes \
            nothing on the record itself, as in Salesforce: its LastModifiedDate stays, so a \
            client's incremental sync does not bring it; forceterm finds it by the ids its ghost \
            check compares. --read-only lets the user see it but not change it.

            Examples:
              localorg share add trainee01@class.test 001Ws000000AbCdIAK --reason territory
              localorg share remove trainee01@class.test 001Ws000000AbCdIAK
              localorg share list trainee01@class.test
            """,
        subcommands: [AddShare.self, RemoveShare.self, ListShares.self])
}

struct AddShare: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Share records with a user.")
    @OptionGroup var data: DataOption
    @Argument(help: "The username.") var username: String
    @Argument(help: "The record ids (accounts share their contacts).") var ids: [String]
    @Flag(help: "The user may see the records but not change them.") var readOnly = false
    @Option(help: "Why: team, territory, rule or manual.") var reason = "manual"

    func validate() throws {
        if ids.isEmpty { throw ValidationError("Name at least one record id.") }
        if !["team", "territory", "rule", "manual"].contains(reason) { throw ValidationError("--reason is team, territory, rule or manual.") }
    }

    func run() throws {
        let store = try data.openStore()
        try store.share(ids, withUserId: try store.signInUserId(username: username), access: readOnly ? .read : .edit, reason: reason)
        print("Shared \(ids.count) record\(ids.count == 1 ? "" : "s") with \(username)\(readOnly ? " (read-only)" : "").")
    }
}

struct RemoveShare: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take shares away from a user.")
    @OptionGroup var data: DataOption
    @Argument(help: "The username.") var username: String
    @Argument(help: "The record ids.") var ids: [String]

    func run() throws {
        let store = try data.openStore()
        let removed = try store.unshare(ids, fromUserId: try store.signInUserId(username: username))
        print("Took \(removed) share\(removed == 1 ? "" : "s") away from \(username).")
    }
}

struct ListShares: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the shares, of one user or of all.")
    @OptionGroup var data: DataOption
    @Argument(help: "A username (default: everyone).") var username: String?

    func run() throws {
        let store = try data.openStore()
        let names = Dictionary(uniqueKeysWithValues: try store.userSummaries().map { ($0.id, $0.username) })
        let shares = try store.shares(ofUserId: try username.map { try store.signInUserId(username: $0) })
        if shares.isEmpty { print("No records are shared\(username.map { " with \($0)" } ?? "").") }
        for share in shares {
            print("\(names[share.userId] ?? share.userId)  \(share.recordId)  \(share.access == .edit ? "read/write" : "read-only")  \(share.reason)")
        }
    }
}

/// `localorg lock ID… --for SECONDS`: another job holding records, as a data load or a batch of
/// children under one account holds their parent.
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Hold records locked for a while, as another job would, so saves touching them meet UNABLE_TO_LOCK_ROW.",
        discussion: """
            A save of a record, or of a record that looks one up (a contact under a locked account), \
            that would wait longer than serve's --lock-wait (10 s, as Salesforce waits) is refused \
            with UNABLE_TO_LOCK_ROW, which clients are told to retry. --release lets every lock go.

            Examples:
              localorg lock 001Ws000000AbCdIAK --for 60
              localorg lock --release
            """)
    @OptionGroup var data: DataOption
    @Argument(help: "The record ids to hold.") var ids: [String] = []
    @Option(name: .customLong("for"), help: "Seconds to hold them.") var seconds: Int = 60
    @Flag(help: "Let every lock go.") var release = false

    func validate() throws {
        if !release && ids.isEmpty { throw ValidationError("Name the record ids to lock, or --release.") }
        if seconds < 1 { throw ValidationError("--for is at least 1 second.") }
    }

    func run() throws {
        let store = try data.openStore()
        if release {
            try store.unlockAll()
            print("Every lock is released.")
            return
        }
        try store.lock(ids, until: OrgStore.now() + Int64(seconds))
        print("Holding \(ids.count) record\(ids.count == 1 ? "" : "s") locked for \(seconds) s.")
    }
}
