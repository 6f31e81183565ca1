import Foundation

/// What one run of the built `forceterm` binary printed and how it exited.
struct CommandOutput: CustomStringConvertible {
    let exitCode: Int32
    let standardOutput: String
    let standardError: String

    var description: String { "exit \(exitCode)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)" }

    /// Standard error without forceterm's notes (such as the one that a store named with --store
    /// is not encrypted, which every run on an unencrypted fixture prints).
    var messages: String {
        standardError.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("forceterm: note: ") }.joined(separator: "\n")
    }
}

/// Runs the real `forceterm` executable, as a user's shell would.
enum Forceterm {
    /// The package root: three levels up from this file (`Tests/ForcetermCLITests/<file>`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$FORCETERM_BIN_DIR/forceterm` (the Makefile sets it), else next to the test binary, else
    /// `.build/debug/forceterm` in the package.
    static let executable: URL = {
        var candidates: [URL] = []
        if let directory = ProcessInfo.processInfo.environment["FORCETERM_BIN_DIR"], !directory.isEmpty {
            candidates.append(URL(fileURLWithPath: directory).appendingPathComponent("forceterm"))
        }
        if let testBinary = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("forceterm"))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/forceterm"))
        let fileManager = FileManager.default
        return candidates.first { fileManager.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }()

    /// Runs `forceterm arguments…` with `environment` added to (or, for `nil` values, removed from)
    /// this process's environment, and waits for it to finish.
    static func run(_ arguments: [String], environment: [String: String?] = [:]) throws -> CommandOutput {
        try ChildProcess.run(executable, arguments, environment: environment)
    }
}

/// Runs a program to completion and collects what it printed.
enum ChildProcess {
    /// `input`, when given, is the child's standard input (else /dev/null). `whileRunning`, when
    /// given, hears what the child has written to stderr so far, every 20 ms until it exits.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String?] = [:], input: String? = nil,
        whileRunning: ((_ standardErrorSoFar: String) -> Void)? = nil
    ) throws -> CommandOutput {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Files rather than pipes: a large output can never fill a pipe and deadlock the test.
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var processEnvironment = ProcessInfo.processInfo.environment
        for (name, value) in environment { processEnvironment[name] = value }
        process.environment = processEnvironment
        if let input {
            let inURL = scratch.appendingPathComponent("stdin")
            try Data(input.utf8).write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        if let whileRunning {
            while process.isRunning {
                whileRunning(String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
                usleep(20_000)
            }
        }
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return CommandOutput(
            exitCode: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// The `sqlite3` shell (installed by `make deps`), to make SQLite files that are not stores.
enum SQLiteShell {
    static func execute(_ sql: String, on path: String) throws {
        let output = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["sqlite3", path, sql])
        guard output.exitCode == 0 else { throw SQLiteShellError(output: output) }
    }

    struct SQLiteShellError: Error, CustomStringConvertible {
        let output: CommandOutput
        var description: String { "sqlite3 failed (is it installed? make deps installs it): \(output)" }
    }
}
