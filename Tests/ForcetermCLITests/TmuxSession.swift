import Foundation

/// A detached tmux session on its own socket running one command in a fixed-size terminal, for
/// driving the real `forceterm` binary through real ncurses. Waits poll the pane with a deadline;
/// nothing sleeps a fixed time. The server is killed when the session is dropped.
final class TmuxSession {
    let socket: String
    let width: Int
    let height: Int
    private(set) var killed = false

    init(command: [String], width: Int = 100, height: Int = 30, environment: [String: String] = [:]) throws {
        socket = "forceterm-e2e-\(UUID().uuidString.prefix(8))"
        self.width = width
        self.height = height
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        var settings = ["LANG": "C.UTF-8", "TERM": "tmux-256color", "TZ": "UTC"]
        for (key, value) in environment { settings[key] = value }
        let exports = settings.sorted { $0.key < $1.key }.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        // -f /dev/null: no user configuration; escape-time 0 so Esc arrives at once.
        try tmux(["-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "env \(exports) \(quoted); sleep 600"])
        try tmux(["set-option", "-g", "escape-time", "0"])
    }

    deinit { kill() }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let (status, output) = try Spawn.run(["tmux", "-L", socket] + arguments)
        guard status == 0 else { throw TmuxError(description: "tmux \(arguments.joined(separator: " ")) failed (\(status)): \(output)") }
        return output
    }

    /// Sends keys as tmux names them ("Enter", "C-s", "F2", or literal text with `literal`).
    func send(_ keys: String..., literal: Bool = false) throws {
        try tmux(["send-keys", "-t", "0"] + (literal ? ["-l"] : []) + keys)
    }

    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "0"]) }

    /// Polls the pane until `text` is on it; throws with the last screen after `timeout` seconds.
    @discardableResult
    func waitFor(_ text: String, timeout: TimeInterval = 20) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if last.contains(text) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TmuxError(description: "\"\(text)\" did not appear within \(Int(timeout)) s; the screen was:\n\(last)")
    }

    /// Polls the pane until none of `texts` is on it (a progress bar gone, say).
    @discardableResult
    func waitUntilGone(_ texts: [String], timeout: TimeInterval = 20) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if !texts.contains(where: last.contains) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TmuxError(description: "\(texts) still on the screen after \(Int(timeout)) s:\n\(last)")
    }

    /// The process id of the first process in the pane (the shell that runs the command).
    func panePid() throws -> Int32 {
        Int32(try tmux(["display-message", "-p", "-t", "0", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Ends the session as an SSH drop would: the terminal goes away and the program gets SIGHUP.
    func kill() {
        guard !killed else { return }
        killed = true
        _ = try? Spawn.run(["tmux", "-L", socket, "kill-server"])
    }
}

/// Runs a program with posix_spawn and waits for it with waitpid. Foundation's Process is not used
/// here: `tmux new-session` leaves a daemon that inherits the test's descriptors, and Process waits
/// for those to close. The child gets an empty signal mask, so the server and forceterm see SIGHUP and
/// SIGTERM even though the test harness's threads block them.
enum Spawn {
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outputURL) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, environ)
        guard result == 0 else { throw TmuxError(description: "cannot start \(arguments.joined(separator: " ")): error \(result)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output)
    }
}

struct TmuxError: Error, CustomStringConvertible {
    let description: String
}

/// Waits until no process runs `executable` with `argument` in its command line, by reading /proc.
enum ProcessWatch {
    static func pids(runningWith argument: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let parts = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return parts.first?.hasSuffix("/forceterm") == true && parts.contains(argument)
        }
    }

    static func waitUntilGone(argument: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if pids(runningWith: argument).isEmpty { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}
