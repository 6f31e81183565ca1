import Foundation
import LocalOrgProcess
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A command left running in the background, its output collected in files.
final class BackgroundCommand {
    private let process = Process()
    private let outPath: String
    private let errPath: String

    init(_ executable: URL, _ arguments: [String], environment: [String: String?]) throws {
        let scratch = NSTemporaryDirectory() + "forceterm-bg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        outPath = scratch + "/stdout"
        errPath = scratch + "/stderr"
        guard FileManager.default.createFile(atPath: outPath, contents: nil),
            FileManager.default.createFile(atPath: errPath, contents: nil)
        else { throw CocoaError(.fileWriteUnknown) }
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
    }

    private var standardOutput: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    private var standardError: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// Waits until standard output contains `text` and returns all of it.
    func waitForOutput(containing text: String, timeout: Double) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let output = standardOutput
            if output.contains(text) { return output }
            if !process.isRunning { break }
            usleep(50_000)
        }
        let output = standardOutput
        if output.contains(text) { return output }
        process.terminate()
        throw LocalOrgProcessError("no \"\(text)\" in the output: \(output) / \(standardError)")
    }

    func interrupt() { kill(process.processIdentifier, SIGINT) }

    /// Waits for the exit (killing the process after `timeout` seconds).
    func wait(timeout: Double) -> CommandOutput {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return CommandOutput(exitCode: process.terminationStatus, standardOutput: standardOutput, standardError: standardError)
    }
}
