import ArgumentParser
import ContactsApp
import ForcetermServices
import Foundation

/// `forceterm passcode`: sets the passcode that encrypts the store, or changes it.
struct PasscodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passcode",
        abstract: "Set the passcode that protects your store's key on this machine, or change it.",
        discussion: """
            Every store forceterm makes is encrypted (SQLCipher 4's format) with a random key, kept \
            in a file beside it until a passcode is set. The first passcode seals that key and \
            removes the key file (a store from elsewhere, not yet encrypted, is encrypted in place); \
            a new passcode seals the same key, so nothing is re-encrypted. After three wrong \
            passcodes in a row each try waits, 5 s and doubling up to 15 minutes. The current passcode comes from FORCETERM_PASSCODE or the prompt; the new \
            one is typed twice at the prompt, or read from standard input once (from a pipe \
            without FORCETERM_PASSCODE: the current passcode on the first line, the new one on the \
            second). While your own store has a passcode, another store named with --store (made \
            then, or encrypted by this command) shares your store's key and passcode rather than \
            taking one of its own. A forgotten passcode \
            cannot be recovered: --forgotten sets the locked store aside and signs out, and the \
            next sign-in starts a fresh store.
            """)

    @Flag(
        help: ArgumentHelp(
            "Forgotten: set the locked store aside (still encrypted) and sign out, so the next sign-in starts a fresh store. What it never sent is not sent.",
            discussion: "Asks for yes at a terminal; --yes answers for scripts."))
    var forgotten = false
    @Flag(help: "With --forgotten: do it without asking.") var yes = false
    @OptionGroup var storeOptions: StoreOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store], in: "passcode")
        if yes && !forgotten { throw ValidationError("--yes goes with --forgotten.") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let path = StoreLocation(explicitPath: storeOptions.storePath).path
            if forgotten {
                try StorePasscode.checkForgettable(store: path)
                if !yes {
                    let question =
                        "Your store \(path) cannot be opened without its passcode. Setting it aside starts a fresh store at the next sign-in: changes it never sent are NOT sent. Set it aside and sign out (yes/no)? "
                    guard Passcode.canAsk, TerminalQuestion.ask(question)?.lowercased() == "yes" else {
                        throw ConfigError("nothing was changed (answer yes at a terminal, or give --yes)")
                    }
                }
                StandardStreams.write(try StorePasscode.forget(store: path) + "\n")
                return
            }
            StandardStreams.write(try StorePasscode.set(store: path) { try Passcode.new(minimumLength: $0) } + "\n")
        }
    }
}

/// `forceterm unlock`: asks for the passcode ahead of time.
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock your store for this login, so forceterm does not ask for the passcode.",
        discussion: """
            The store's key is kept in the kernel's session keyring: every terminal of this login \
            uses it, no other login can, and it is forgotten after 15 minutes without use, at \
            forceterm lock, or when the login ends.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @ParentCommand var root: Forceterm

    func validate() throws { try root.refuseOptions(except: [.store], in: "unlock") }

    func run() throws {
        try CommandFailure.reporting { StandardStreams.write(try StorePasscode.unlock(store: StoreLocation(explicitPath: storeOptions.storePath).path) + "\n") }
    }
}

/// `forceterm lock`: forgets the unlocked key now.
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock your store now: the next command asks for the passcode again.")

    @OptionGroup var storeOptions: StoreOptions
    @ParentCommand var root: Forceterm

    func validate() throws { try root.refuseOptions(except: [.store], in: "lock") }

    func run() throws {
        try CommandFailure.reporting { StandardStreams.write(try StorePasscode.lock(store: StoreLocation(explicitPath: storeOptions.storePath).path) + "\n") }
    }
}
