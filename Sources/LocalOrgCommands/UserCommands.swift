import ArgumentParser
import CSVTable
import Foundation
import LocalOrg

/// `localorg user …`: the people of a class.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage the org's users: add one or a whole class, list, change passwords, deactivate, unlock.",
        discussion: """
            Failed sign-ins follow Salesforce's default password policy: after \(LockoutPolicy.maximumInvalidAttempts) \
            invalid attempts in a row a user is locked out for \(LockoutPolicy.lockoutSeconds / 60) minutes, or until \
            localorg user unlock. A locked-out user's sign-in is refused even with the right password, \
            with the same answer as a wrong one (as Salesforce gives); user list shows who is locked.
            """,
        subcommands: [
            AddUser.self, ListUsers.self, ChangePassword.self, DeactivateUser.self, ActivateUser.self, UnlockUser.self,
            UserProfile.self, UserPermissionSet.self,
        ])
}

struct AddUser: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a user, or a class of them from a pattern or a CSV file.",
        discussion: """
            One user: the password is read from standard input (--password-stdin). A class: \
            --pattern with {n} and --count numbers the usernames (trainee{n}@class.test gives \
            trainee01@class.test … trainee12@class.test); --csv reads Username and optional \
            FirstName, LastName, Password and Admin columns. Users without a password get one made up \
            (12 letters and digits without look-alikes, in groups of four: 7HDe-yCej-LsQG), shown once, or written with --passwords-file to a file \
            only you can read, to hand out. All or nothing: a taken username or a bad row adds nobody.

            Examples:
              echo "$PASSWORD" | localorg user add sam@class.test --password-stdin
              localorg user add --pattern 'trainee{n}@class.test' --count 12 --passwords-file class.csv
              localorg user add --csv trainees.csv
            """)

    @OptionGroup var data: DataOption
    @Argument(help: "One username, shaped like an email address (e.g. sam@localorg.test).") var username: String?
    @Flag(help: "Read the password of the one user from standard input (keeps it out of shell history).") var passwordStdin = false
    @Option(help: ArgumentHelp("Usernames with {n} for a number: trainee{n}@class.test.", valueName: "pattern")) var pattern: String?
    @Option(help: "How many users --pattern makes.") var count: Int?
    @Option(help: ArgumentHelp("A CSV file with a Username column (FirstName, LastName, Password, Admin optional).", valueName: "file")) var csv: String?
    @Option(help: ArgumentHelp("Write the made-up passwords here (username,password; mode 0600) instead of showing them.", valueName: "file"))
    var passwordsFile: String?
    @Option(help: "Last name (one user; default: the part of the username before @).") var lastName: String?
    @Option(help: "First name (one user).") var firstName: String?
    @Flag(help: "Make the user(s) administrators.") var admin = false
    @Option(help: ArgumentHelp("The profile of the user(s): Standard User by default, or one of localorg profile list.", valueName: "name"))
    var profile: String?

    func validate() throws {
        let ways = [username != nil, pattern != nil, csv != nil].filter { $0 }.count
        if ways != 1 { throw ValidationError("Give one username, or --pattern with --count, or --csv FILE.") }
        if username != nil && !passwordStdin { throw ValidationError("Pass --password-stdin and type the password on standard input.") }
        if username == nil && passwordStdin { throw ValidationError("--password-stdin is for one username; a class gets passwords made up (or from the CSV's Password column).") }
        if let pattern {
            guard pattern.contains("{n}") else { throw ValidationError("--pattern \(pattern) needs {n} where the number goes, e.g. trainee{n}@class.test") }
            guard let count, (1...500).contains(count) else { throw ValidationError("--pattern needs --count between 1 and 500.") }
        } else if count != nil {
            throw ValidationError("--count goes with --pattern.")
        }
        if username != nil && passwordsFile != nil { throw ValidationError("--passwords-file is for a class; one user's password is the one you typed.") }
    }

    func run() throws {
        let users: [NewOrgUser]
        var madeUp = Set<String>()
        if let username {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw OrgRefusal("No password on standard input.") }
            users = [NewOrgUser(username: username, password: line, firstName: firstName, lastName: lastName, isAdmin: admin)]
        } else if let pattern, let count {
            let width = String(count).count
            users = (1...count).map { number in
                let numbered = String(repeating: "0", count: max(0, width - String(number).count)) + String(number)
                return NewOrgUser(
                    username: pattern.replacingOccurrences(of: "{n}", with: numbered), password: OrgStore.generatedPassword(),
                    firstName: firstName, lastName: lastName, isAdmin: admin)
            }
            madeUp = Set(users.map(\.username))
        } else if let csv {
            (users, madeUp) = try Self.readCSV(csv, admin: admin)
        } else {
            users = []
        }
        // The passwords file is made before anyone is added, never over another: it may hold the
        // passwords of a class added before. Exclusive creation also refuses a link put there.
        var passwordsHandle: FileHandle?
        if let passwordsFile {
            let descriptor = open(passwordsFile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                let reason =
                    errno == EEXIST
                    ? "exists already (it may hold the passwords of users added before); name a new file, or move that one away first"
                    : "cannot be made (\(String(cString: strerror(errno))))"
                throw OrgRefusal("\(passwordsFile) \(reason). Nobody was added.")
            }
            passwordsHandle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }
        do {
            try data.openStore().addUsers(
                users.map { user in
                    var user = user
                    user.profile = profile
                    return user
                })
        } catch {
            if let passwordsFile { unlink(passwordsFile) }
            if let error = error as? APIError { throw OrgRefusal("\(error.errorCode): \(error.message); nobody was added") }
            throw error
        }
        let shown = users.filter { madeUp.contains($0.username) }
        if let passwordsFile, shown.isEmpty { unlink(passwordsFile) }  // every password was given: nothing to hand out
        if let passwordsFile, let passwordsHandle, !shown.isEmpty {
            let text = "username,password\n" + shown.map { "\($0.username),\($0.password)\n" }.joined()
            do {
                try passwordsHandle.write(contentsOf: Data(text.utf8))
                try passwordsHandle.close()
            } catch {
                throw OrgRefusal("added \(users.count) users but could not write \(passwordsFile); set their passwords again with localorg user passwd")
            }
            print("Added \(users.count) user\(users.count == 1 ? "" : "s"); their passwords are in \(passwordsFile) (readable by you only): hand each trainee their line.")
        } else {
            print("Added \(users.count) user\(users.count == 1 ? "" : "s")\(users.count == 1 && users[0].isAdmin ? " (administrator)" : "").")
            if !shown.isEmpty {
                print("Passwords, shown this once:")
                let width = shown.map(\.username.count).max() ?? 0
                for user in shown { print("  \(user.username.padding(toLength: width, withPad: " ", startingAt: 0))  \(user.password)") }
            }
        }
    }

    /// The users of a CSV file; a row that cannot be used is named with its line, and nothing is added.
    static func readCSV(_ path: String, admin: Bool) throws -> ([NewOrgUser], Set<String>) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw OrgRefusal("cannot read \(path) as UTF-8 text")
        }
        let header: [String]
        let rows: [CSVTable.Row]
        do {
            let table = try CSVTable.read(text)
            header = table.header.map { $0.lowercased() }
            rows = table.rows
        } catch {
            throw OrgRefusal("\(path), line \(error.line): \(error.message); nobody was added")
        }
        guard let usernameColumn = header.firstIndex(of: "username") else {
            throw OrgRefusal("\(path), line 1: the header needs a Username column (and may have FirstName, LastName, Password, Admin); nobody was added")
        }
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        var users: [NewOrgUser] = []
        var madeUp = Set<String>()
        for row in rows {
            guard row.cells.count == header.count else {
                throw OrgRefusal("\(path), line \(row.line): \(row.cells.count) fields where the header has \(header.count); nobody was added")
            }
            func cell(_ index: Int?) -> String? {
                guard let index else { return nil }
                let value = row.cells[index].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
            guard let username = cell(usernameColumn), username.contains("@") else {
                throw OrgRefusal("\(path), line \(row.line): the username must look like an email address (trainee1@class.test); nobody was added")
            }
            let password = cell(column("password"))
            let isAdmin = admin || ["true", "yes", "1", "x"].contains(cell(column("admin"))?.lowercased() ?? "")
            users.append(
                NewOrgUser(
                    username: username, password: password ?? OrgStore.generatedPassword(),
                    firstName: cell(column("firstname")), lastName: cell(column("lastname")), isAdmin: isAdmin))
            if password == nil { madeUp.insert(username) }
        }
        guard !users.isEmpty else { throw OrgRefusal("\(path) has a header but no users") }
        return (users, madeUp)
    }
}

struct ListUsers: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the users: administrator, active, locked out, last sign-in.")

    @OptionGroup var data: DataOption

    func run() throws {
        let now = OrgStore.now()
        let formatter = ISO8601DateFormatter()
        let store = try data.openStore()
        let users = try store.userSummaries()
        let access = try store.accessAssignments()
        let width = max(8, users.map(\.username.count).max() ?? 0)
        print("\("USERNAME".padding(toLength: width, withPad: " ", startingAt: 0))  STATE                      LAST SIGN-IN          PROFILE")
        for user in users {
            var state: [String] = [user.isActive ? "active" : "inactive"]
            if user.isAdmin { state.append("admin") }
            if let until = user.lockedUntil, until > now {
                state.append("LOCKED \((until - now + 59) / 60) min")
            } else if user.failedLogins > 0 {
                state.append("\(user.failedLogins) failed")
            }
            let last = user.lastLoginAt.map { formatter.string(from: Date(timeIntervalSince1970: TimeInterval($0))) } ?? "never"
            let assigned = access[user.id].map { ([$0.profile] + $0.permissionSets).joined(separator: " + ") } ?? ""
            print(
                "\(user.username.padding(toLength: width, withPad: " ", startingAt: 0))  \(state.joined(separator: ", ").padding(toLength: 25, withPad: " ", startingAt: 0))  \(last.padding(toLength: 20, withPad: " ", startingAt: 0))  \(assigned)"
            )
        }
    }
}

struct ChangePassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Set a user's password (from standard input, or made up and shown once); also clears a lockout.")

    @OptionGroup var data: DataOption
    @Argument(help: "The username.") var username: String
    @Flag(help: "Read the new password from standard input; without it one is made up and shown.") var passwordStdin = false

    func run() throws {
        let password: String
        if passwordStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw OrgRefusal("No password on standard input.") }
            password = line
        } else {
            password = OrgStore.generatedPassword()
        }
        try data.openStore().setPassword(username: username, password: password)
        print(passwordStdin ? "Changed the password of \(username)." : "New password of \(username) (shown this once): \(password)")
    }
}

struct DeactivateUser: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deactivate", abstract: "Stop a user from signing in; their sessions end at once.")

    @OptionGroup var data: DataOption
    @Argument(help: "The username.") var username: String

    func run() throws {
        try data.openStore().setActive(username: username, false)
        print("Deactivated \(username); their sessions have ended. localorg user activate lets them back in.")
    }
}

struct ActivateUser: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "activate", abstract: "Let a deactivated user sign in again.")

    @OptionGroup var data: DataOption
    @Argument(help: "The username.") var username: String

    func run() throws {
        try data.openStore().setActive(username: username, true)
        print("Activated \(username).")
    }
}

struct UnlockUser: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlock", abstract: "Let a user locked out by failed sign-ins try again now.")

    @OptionGroup var data: DataOption
    @Argument(help: "The username.") var username: String

    func run() throws {
        let wasLocked = try data.openStore().unlock(username: username)
        print(wasLocked ? "Unlocked \(username)." : "\(username) was not locked out; their count of failed sign-ins is cleared.")
    }
}
