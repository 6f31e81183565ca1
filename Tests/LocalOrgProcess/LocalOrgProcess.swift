import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real `localorg serve` process on 127.0.0.1 with an ephemeral port and its own data directory,
/// for tests that talk to it over HTTPS. Stop it with `stop()` (SIGTERM, then SIGKILL after 20 s);
/// releasing it stops it as well.
public final class LocalOrgProcess: @unchecked Sendable {
    public let dataDirectory: String
    /// `https://127.0.0.1:PORT` (the server certificate covers 127.0.0.1).
    public let url: String
    public let port: Int
    private let process: Process

    /// localorg's CA certificate, which clients pass as `--cacert`.
    public var caFile: String { dataDirectory + "/ca.pem" }
    /// The CA fingerprint `serve` printed ("CA fingerprint: SHA256 AB:CD:…").
    public var caFingerprint: String? {
        let text = (try? String(contentsOfFile: dataDirectory + "/serve-output.txt", encoding: .utf8)) ?? ""
        guard let range = text.range(of: "CA fingerprint: SHA256 ") else { return nil }
        return String(text[range.upperBound...].prefix { !$0.isWhitespace })
    }

    /// The package root: three levels up from this file (`Tests/LocalOrgProcess/<file>`).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The directory with the built binaries: `$FORCETERM_BIN_DIR`, else next to the test bundle,
    /// else `.build/debug`.
    public static func binary(_ name: String) -> URL {
        var candidates: [URL] = []
        if let directory = ProcessInfo.processInfo.environment["FORCETERM_BIN_DIR"], !directory.isEmpty {
            candidates.append(URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
        if let testBinary = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent(name))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/\(name)"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }

    /// Starts `localorg serve --port 0 --quiet` plus `arguments` in a fresh data directory (or
    /// `dataDirectory`, to restart an org) and waits for its ready file (`--ready-file`).
    public convenience init(arguments: [String] = [], dataDirectory: String? = nil) throws {
        let launch = try Launch(arguments: arguments, dataDirectory: dataDirectory)
        while !launch.isOver { usleep(50_000) }
        try self.init(launch)
    }

    /// The same, waiting without holding a thread: a test process's cooperative threads (one per
    /// core) are shared by every suite, and servers starting in blocking waits on both of a CI
    /// machine's cores left the other suites' clients and in-process servers none to run on.
    public convenience init(arguments: [String] = [], dataDirectory: String? = nil) async throws {
        let launch = try Launch(arguments: arguments, dataDirectory: dataDirectory)
        while !launch.isOver { try await Task.sleep(for: .milliseconds(50)) }
        try self.init(launch)
    }

    private init(_ launch: Launch) throws {
        process = launch.process
        dataDirectory = launch.directory
        guard let (host, found) = launch.announced() else {
            let text = (try? String(contentsOfFile: launch.output, encoding: .utf8)) ?? ""
            if process.isRunning { process.terminate() }
            throw LocalOrgProcessError("localorg did not start within 60 s: \(text)")
        }
        port = found
        url = "https://\(host):\(found)"
    }

    /// A started `localorg serve`, until it writes its ready file, exits or takes 60 s.
    private struct Launch {
        let process = Process()
        let directory: String
        let output: String
        let readyFile: String
        let deadline = Date().addingTimeInterval(60)

        init(arguments: [String], dataDirectory: String?) throws {
            directory = dataDirectory ?? NSTemporaryDirectory() + "localorg-process-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            output = directory + "/serve-output.txt"
            readyFile = directory + "/ready.json"
            // A restarted org's last file is not this server's readiness.
            try? FileManager.default.removeItem(atPath: readyFile)
            FileManager.default.createFile(atPath: output, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.executableURL = LocalOrgProcess.binary("localorg")
            process.arguments = ["serve", "--port", "0", "--quiet", "--demo", "--data", directory, "--ready-file", readyFile] + arguments
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            try handle.close()
        }

        var isOver: Bool { announced() != nil || Date() >= deadline || !process.isRunning }

        /// The host and port of the ready file's first URL: https://localhost:PORT (as 127.0.0.1)
        /// or, with --listen, https://ADDRESS:PORT.
        func announced() -> (host: String, port: Int)? {
            guard let data = FileManager.default.contents(atPath: readyFile),
                let ready = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let url = (ready["url"] as? String).flatMap(URLComponents.init(string:)), let host = url.host, let port = url.port
            else { return nil }
            return (host == "localhost" ? "127.0.0.1" : host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port)
        }
    }

    /// A server nobody holds any more stops too: a test that throws before its clean-up leaves no
    /// process behind.
    deinit { stop() }

    /// Stops the server and waits for it; the data directory stays until `remove()`.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Kills the server with SIGKILL, as a crash would: no clean shutdown, open connections cut.
    public func killAbruptly() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server and deletes its data directory.
    public func remove() {
        stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// Runs another localorg command on this org's data (e.g. `approve CODE`); returns its output.
    @discardableResult
    public func command(_ arguments: [String]) throws -> String {
        let (child, outputFile) = try startCommand(arguments)
        child.waitUntilExit()
        return try commandOutput(child, outputFile, arguments)
    }

    /// The same, waiting for the command without holding a thread.
    @discardableResult
    public func command(_ arguments: [String]) async throws -> String {
        let (child, outputFile) = try startCommand(arguments)
        while child.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        return try commandOutput(child, outputFile, arguments)
    }

    /// The output goes to a file, so that a command printing more than a pipe holds never waits.
    private func startCommand(_ arguments: [String]) throws -> (Process, String) {
        let child = Process()
        child.executableURL = Self.binary("localorg")
        child.arguments = arguments + ["--data", dataDirectory]
        let outputFile = NSTemporaryDirectory() + "localorg-command-" + UUID().uuidString
        FileManager.default.createFile(atPath: outputFile, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
        child.standardOutput = handle
        child.standardError = handle
        child.standardInput = FileHandle.nullDevice
        try child.run()
        try handle.close()
        return (child, outputFile)
    }

    private func commandOutput(_ child: Process, _ outputFile: String, _ arguments: [String]) throws -> String {
        child.waitUntilExit()
        let text = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outputFile)
        guard child.terminationStatus == 0 else { throw LocalOrgProcessError("localorg \(arguments.joined(separator: " ")) failed: \(text)") }
        return text
    }
}

public struct LocalOrgProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
