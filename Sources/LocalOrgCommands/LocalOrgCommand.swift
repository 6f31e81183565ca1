import ArgumentParser
import ForceJSON
import Foundation
import LocalOrg

/// `localorg`: a Salesforce-compatible org on this machine, for demos, training rooms and tests.
public struct LocalOrgCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "localorg",
        abstract: "A Salesforce-compatible org that runs on this machine.",
        discussion: """
            localorg keeps an org (accounts, contacts, users) in a SQLite database in its data \
            directory and serves it over the Salesforce REST API, so forceterm, simple-salesforce \
            and other Salesforce clients work against it unchanged.

            Start with:  localorg seed --accounts 50 --contacts 500  then  localorg serve
            """,
        // The Makefile's VERSION, as forceterm's (a test checks both).
        version: "localorg 0.22.0",
        subcommands: [
            Serve.self, Seed.self, Info.self, UserCommand.self, ProfileCommand.self, RulesCommand.self, ShareCommand.self, LockCommand.self, SnapshotCommand.self, Show.self, History.self, Query.self,
            Approve.self, Edit.self, Delete.self,
        ])

    public init() {}
}

/// The `--data` option every command shares.
struct DataOption: ParsableArguments {
    @Option(name: .customLong("data"), help: ArgumentHelp("The org's data directory.", discussion: "Default: $XDG_DATA_HOME/localorg, or ~/.local/share/localorg.", valueName: "dir"))
    var directory: String?
    @Flag(
        name: .customLong("demo"),
        help: ArgumentHelp(
            "When this creates the org: the demo users, with the passwords the docs publish.",
            discussion: """
                demo@localorg.test / localorg-demo (an administrator) and trainer@localorg.test / localorg-trainer, \
                as forceterm --demo uses. Without it a new org has one administrator, admin@localorg.test, \
                with a made-up password printed once and kept in DIR/admin-password (readable by you only; \
                the username on its first line, the password on its second).
                """))
    var demo = false

    var orgDirectory: OrgDirectory { OrgDirectory(path: directory) }

    /// Opens the org, creating it on first use; says so, with where the new administrator's password is.
    func openStore() throws -> OrgStore {
        let directory = orgDirectory
        let store = try directory.openStore(firstUsers: demo ? .demo : .administrator)
        if let administrator = store.createdAdministrator {
            FileHandle.standardError.write(
                Data(
                    """
                    Created a new org in \(directory.path). Its administrator: \(administrator.username), password \(administrator.password)
                    (also in \(directory.administratorPasswordPath), readable by you only; change it with localorg user passwd).

                    """.utf8))
        }
        return store
    }
}

struct Seed: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add demo accounts and contacts (deterministic for a given --random-seed).",
        discussion: "Names come from many languages, some are very long, and optional fields are often empty, as in real orgs.")

    @OptionGroup var data: DataOption
    @Option(help: "How many accounts to add.") var accounts = 20
    @Option(help: "How many contacts to add, spread over the accounts.") var contacts = 200
    @Option(help: "Seed for the generator: the same seed gives the same data.") var randomSeed: UInt64 = 1
    @Flag(help: "Add nothing when the org already has accounts or contacts (live or in the recycle bin), so a restarted demo keeps its edits.")
    var ifEmpty = false
    @Option(help: ArgumentHelp("Make the records owned by this user (repeatable: a copy each). Default: spread over every active user.", valueName: "username"))
    var owner: [String] = []
    @Flag(help: "Give every active user who is not an administrator a copy of their own (a class with --sharing private).")
    var eachUser = false

    func validate() throws {
        if accounts < 0 || contacts < 0 { throw ValidationError("Counts cannot be negative.") }
        if eachUser && !owner.isEmpty { throw ValidationError("--each-user and --owner both say who owns the copies; pick one.") }
    }

    func run() throws {
        let store = try data.openStore()
        if ifEmpty {
            let existing = try store.counts().filter { $0.object == "Account" || $0.object == "Contact" }.reduce(0) { $0 + $1.live + $1.deleted }
            if existing > 0 {
                print("The org already has \(existing) accounts and contacts; nothing added.")
                return
            }
        }
        let started = Date()
        let users = try store.userSummaries()
        let owners: [OrgUserSummary]
        if eachUser {
            owners = users.filter { $0.isActive && !$0.isAdmin }
            if owners.isEmpty { throw OrgRefusal("the org has no active user who is not an administrator; add the class first (localorg user add)") }
        } else {
            owners = try owner.map { name in
                guard let user = users.first(where: { $0.username.lowercased() == name.lowercased() }) else {
                    throw OrgRefusal("no user \(name) in this org; localorg user list shows them")
                }
                return user
            }
        }
        if owners.isEmpty {
            let created = try Seeder.seed(store: store, accounts: accounts, contacts: contacts, randomSeed: randomSeed)
            print("Added \(created.accounts) accounts and \(created.contacts) contacts in \(String(format: "%.2f", Date().timeIntervalSince(started))) s.")
            return
        }
        // The same seed for every copy: each trainee finds the same names, in records of their own.
        for user in owners {
            let created = try Seeder.seed(store: store, accounts: accounts, contacts: contacts, randomSeed: randomSeed, owners: [user.id])
            print("Added \(created.accounts) accounts and \(created.contacts) contacts owned by \(user.username).")
        }
        print("\(owners.count) cop\(owners.count == 1 ? "y" : "ies") in \(String(format: "%.2f", Date().timeIntervalSince(started))) s.")
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the org: data directory, organization id, users and record counts.")

    @OptionGroup var data: DataOption

    func run() throws {
        let directory = data.orgDirectory
        let store = try data.openStore()
        print("Data directory:  \(directory.path)")
        print("Organization:    \(try store.organizationId())")
        for user in try store.users() {
            print("User:            \(user.username)\(user.isAdmin ? " (admin)" : "")\(user.isActive ? "" : " (inactive)")")
        }
        for count in try store.counts() {
            print("\(count.object.padding(toLength: 16, withPad: " ", startingAt: 0)) \(count.live) live, \(count.deleted) in the recycle bin")
        }
    }
}

extension LocalOrgCommand {
    /// The executables' entry point. From top-level code the synchronous `main()` is chosen, which
    /// refuses an asynchronous root command; inside an async function the async one runs.
    public static func runAsRoot() async {
        await main()
    }
}
