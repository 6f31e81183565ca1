import ArgumentParser
import ForcetermServices
import Foundation

/// `forceterm passcode`: sets the passcode that encrypts the store, or changes it.
struct PasscodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passcode",
        abstract: "Set the passcode that encrypts your store on this machine, or change it.",
        discussion: """
            The first passcode encrypts the store in place (SQLCipher 4's format) with a random key \
            that the passcode protects; a new passcode protects the same key, so nothing is \
            re-encrypted. The current passcode comes from FORCETERM_PASSCODE or the prompt; the new \
            one is typed twice at the prompt, or read from standard input once. A forgotten passcode \
            cannot be recovered: signing in again starts a fresh store.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @ParentCommand var root: Forceterm

    func validate() throws { try root.refuseOptions(except: [.store], in: "passcode") }

    func run() throws {
        try CommandFailure.reporting {
            StandardStreams.write(try StorePasscode.set(store: storeOptions.location.path) { try Passcode.new(minimumLength: $0) } + "\n")
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
        try CommandFailure.reporting { StandardStreams.write(try StorePasscode.unlock(store: storeOptions.location.path) + "\n") }
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
        try CommandFailure.reporting { StandardStreams.write(StorePasscode.lock(store: storeOptions.location.path) + "\n") }
    }
}
