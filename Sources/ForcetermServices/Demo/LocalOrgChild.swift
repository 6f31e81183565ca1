import ContactsApp
import ForceJSON
import Foundation

/// The `localorg` program that `forceterm --demo` runs as a child process: next to the
/// `forceterm` executable (as `swift build` and an install leave them), else on PATH. Running it
/// as a separate program keeps the HTTP server (Hummingbird, NIO) out of forceterm itself.
public struct LocalOrgProgram: Sendable {
    public let path: String

    /// Finds the program, or says in one line where it looked and how to get it.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LocalOrgProgram {
        let fileManager = FileManager.default
        var ownDirectory: String?
        if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            ownDirectory = (executable as NSString).deletingLastPathComponent
        } else if let first = CommandLine.arguments.first, first.contains("/") {
            ownDirectory = (URL(fileURLWithPath: first).standardizedFileURL.path as NSString).deletingLastPathComponent
        }
        var candidates = ownDirectory.map { [$0 + "/localorg"] } ?? []
        for directory in (environment["PATH"] ?? "").split(separator: ":") where directory.hasPrefix("/") {
            candidates.append("\(directory)/localorg")
        }
        if let found = candidates.first(where: { fileManager.isExecutableFile(atPath: $0) }) { return LocalOrgProgram(path: found) }
        let beside = ownDirectory.map { "next to forceterm (in \($0))" } ?? "next to forceterm"
        throw ConfigError("--demo needs the localorg program, which is neither \(beside) nor on PATH; build it with `swift build --product localorg` or run `make demo`")
    }

    /// Runs `localorg arguments…` to the end, its output appended to `log`; throws with the last
    /// line it printed when it fails.
    public func run(_ arguments: [String], log: String, truncate: Bool = false) throws {
        let pid = try ChildSpawn.start(path, arguments, outputFile: log, truncate: truncate)
        let status = ChildSpawn.wait(pid)
        guard status == 0 else {
            throw ConfigError("localorg \(arguments.first ?? "") failed (exit \(status)): \(LogFile.lastLine(of: log) ?? "no output"); see \(log)")
        }
    }

    /// Starts `localorg serve` on 127.0.0.1 and waits for its ready file (`--ready-file`, in the
    /// data directory), which names the port it listens on; its output is appended to `log`.
    /// `port` 0 takes a free port. The server stops itself if forceterm dies without stopping it.
    public func serve(dataDirectory: String, port: Int, latencyMilliseconds: Int, log: String, startTimeout: TimeInterval = 180) throws -> RunningLocalOrg {
        let readyFile = dataDirectory + "/ready.json"
        // The last run's file (a server killed with SIGKILL leaves it) is not this one's readiness.
        try? FileManager.default.removeItem(atPath: readyFile)
        var arguments = [
            "serve", "--demo", "--data", dataDirectory, "--port", "\(port)", "--parent-pid", "\(getpid())",
            "--ready-file", readyFile,
        ]
        if latencyMilliseconds > 0 { arguments += ["--latency", "\(latencyMilliseconds)"] }
        let pid = try ChildSpawn.start(path, arguments, outputFile: log, truncate: false)
        let server = RunningLocalOrg(pid: pid, port: 0)
        let deadline = Date().addingTimeInterval(startTimeout)
        while Date() < deadline {
            if let bound = Self.readyPort(readyFile) { return RunningLocalOrg(pid: pid, port: bound) }
            if let status = ChildSpawn.exitStatus(pid) {
                throw Self.startFailure(status: status, port: port, log: log)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        server.stop()
        throw ConfigError("the demo org (localorg) did not start within \(Int(startTimeout)) s; see \(log)")
    }

    /// The port in `localorg serve --ready-file`'s file, once it is written.
    static func readyPort(_ path: String) -> Int? {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8),
            let port = (try? JSONParser.parse(text))?["port"]?.int64Value
        else { return nil }
        return Int(port)
    }

    /// One line for a server that exited before serving: a busy port says what to do about it.
    public static func startFailure(status: Int32, port: Int, log: String) -> ConfigError {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        if text.contains("Address already in use") {
            return ConfigError("port \(port) on 127.0.0.1 is already in use; pick another with --demo-port, or leave --demo-port out to use a free one")
        }
        return ConfigError("the demo org (localorg) stopped at start (exit \(status)): \(LogFile.lastLine(of: log) ?? "no output"); see \(log)")
    }
}

/// A `localorg serve` child that answers on `https://127.0.0.1:port`.
public struct RunningLocalOrg: Sendable {
    public let pid: pid_t
    public let port: Int

    public var url: String { "https://127.0.0.1:\(port)" }

    /// Stops the server (SIGTERM: it finishes requests in flight) and waits for it to exit;
    /// SIGKILL if it has not after `grace` seconds. Safe to call on a server that already exited.
    public func stop(grace: TimeInterval = 20) {
        guard ChildSpawn.exitStatus(pid) == nil else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while Date() < deadline {
            if ChildSpawn.exitStatus(pid) != nil { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        kill(pid, SIGKILL)
        _ = ChildSpawn.wait(pid)
    }
}

/// What localorg wrote to its log file.
public enum LogFile {
    public static func lastLine(of path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(whereSeparator: \.isNewline).last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init)
    }
}

/// posix_spawn and waitpid for the demo's child processes. Children get their own process group
/// (Ctrl-C in the terminal reaches forceterm, which then stops them in order), default signal
/// handling and an empty signal mask, stdin from /dev/null and stdout+stderr into a file.
public enum ChildSpawn {
    public static func start(_ path: String, _ arguments: [String], outputFile: String, truncate: Bool) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | (truncate ? O_TRUNC : O_APPEND), 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw ConfigError("cannot start \(path): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// The exit status once the child has ended (128 + n for a signal), else nil. Reaps it.
    public static func exitStatus(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { return decode(status) }
        if result == -1 && errno == ECHILD { return -1 }  // already reaped
        return nil
    }

    /// Waits for the child to end and returns its exit status.
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, 0)
            if result == pid { return decode(status) }
            if result == -1 && errno != EINTR { return -1 }
        }
    }

    private static func decode(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
