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
            StandardStreams.writeError("forceterm: \(Self.message(of: error))\n")
            throw ExitCode.failure
        }
    }

    /// The error in one line, except a list of problems ("  - " items, as a config file with
    /// several mistakes gives), which keeps an item per line.
    static func message(of error: any Error) -> String {
        var message = ""
        for line in "\(error)".split(whereSeparator: \.isNewline) {
            if line.hasPrefix("  - ") {
                message += "\n" + line
            } else {
                message += (message.isEmpty ? "" : " ") + line
            }
        }
        return message
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
