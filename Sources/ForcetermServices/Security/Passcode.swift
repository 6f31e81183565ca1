import ContactsApp
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a passcode comes from: `FORCETERM_PASSCODE` for scripts and tests (as borg and restic take
/// theirs), else typed at a prompt with echo off when standard input is a terminal.
public struct Passcode: Sendable {
    public static let variable = "FORCETERM_PASSCODE"
    /// The fewest characters a new passcode may have when the org's policy names no length.
    public static let defaultMinimumLength = 4

    let environment: [String: String]
    /// False where a prompt on the terminal would break what owns it (the TUI, which has a lock
    /// screen of its own): only the environment's passcode is taken.
    let mayAsk: Bool

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, mayAsk: Bool = true) {
        self.environment = environment
        self.mayAsk = mayAsk
    }

    /// The environment's passcode or none: never a prompt.
    public static var withoutAsking: Passcode { Passcode(mayAsk: false) }

    /// The passcode given in the environment, if any.
    public var fromEnvironment: String? { environment[Self.variable].flatMap { $0.isEmpty ? nil : $0 } }

    public static var canAsk: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether someone at a terminal can be asked though standard input is a pipe (the password
    /// given with `--password-stdin`): a controlling terminal, and standard error on it.
    public static var canAskOnTerminal: Bool {
        guard isatty(STDERR_FILENO) == 1 else { return false }
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// The passcode to unlock a store: the environment's, or asked; nil when neither can be had.
    public func toUnlock(prompt: String) -> String? {
        if let given = fromEnvironment { return given }
        guard mayAsk, Self.canAsk else { return nil }
        return PasswordInput.readLine(prompt: prompt)
    }

    /// A new passcode: asked twice on a terminal, read once from a pipe; refused when too short.
    /// `onTerminal`: asked twice on the controlling terminal, standard input being taken.
    public static func new(minimumLength: Int = defaultMinimumLength, onTerminal: Bool = false) throws -> String {
        let ask = onTerminal ? PasswordInput.readFromTerminal(prompt:) : PasswordInput.readLine(prompt:)
        guard let first = ask("New passcode (at least \(minimumLength) characters): ") else {
            throw ConfigError("no new passcode given: type it at the prompt, or give it on standard input")
        }
        if canAsk || onTerminal {
            guard ask("The same passcode again: ") == first else {
                throw ConfigError("the two passcodes differ; nothing was changed")
            }
        }
        return first
    }
}
