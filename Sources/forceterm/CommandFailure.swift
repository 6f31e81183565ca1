import ArgumentParser
import ForcetermServices

/// How a command reports that it could not do its job: one line on stderr, `forceterm: <message>`,
/// and exit code 1. Usage errors stay with ArgumentParser (exit code 2, see `Forceterm.main`).
enum CommandFailure {
    /// Runs `body`, turning any error it throws into the one-line report and exit code 1.
    static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch let ended as TerminalEnded {
            throw ExitCode(128 + ended.signal)
        } catch {
            let message = "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
            StandardStreams.writeError("forceterm: \(message)\n")
            throw ExitCode.failure
        }
    }

    /// Runs a check of the command line from `validate()`: the services' usage errors become
    /// ArgumentParser's, so they are reported with the usage and exit code 2.
    static func checkingUsage<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as UsageError {
            throw ValidationError(error.message)
        }
    }
}
