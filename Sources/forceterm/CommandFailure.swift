import ArgumentParser
import Foundation

/// A command that could not do its job: reported as one line on stderr, `forceterm: <message>`, with
/// exit code 1 (usage errors stay with ArgumentParser, which exits 2).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) { description = message }

    /// Runs `body`, turning any error into the one-line report and exit code 1.
    static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ExitCode {
            throw error
        } catch {
            let message = "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
            Terminal.writeError("forceterm: \(message)\n")
            throw ExitCode.failure
        }
    }
}

/// Writes whole texts to stdout and stderr, unbuffered, so a footer on stderr never overtakes the table.
enum Terminal {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
