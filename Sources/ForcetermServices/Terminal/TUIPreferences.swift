/// How the terminal UI is drawn and whether it may sync: the TUI's command-line flags, as values.
public struct TUIPreferences: Sendable, Equatable {
    /// No colours (also when NO_COLOR is set).
    public var noColor: Bool
    /// ASCII line drawing and markers.
    public var ascii: Bool
    /// Work without the network: `s` says it is offline and keeps changes queued.
    public var offline: Bool

    public init(noColor: Bool = false, ascii: Bool = false, offline: Bool = false) {
        self.noColor = noColor
        self.ascii = ascii
        self.offline = offline
    }
}

/// What `forceterm --demo` was asked for: start over, a port, a slowed network.
public struct DemoRequest: Sendable, Equatable {
    public var reset: Bool
    public var port: Int?
    public var latencyMilliseconds: Int?

    public init(reset: Bool = false, port: Int? = nil, latencyMilliseconds: Int? = nil) {
        self.reset = reset
        self.port = port
        self.latencyMilliseconds = latencyMilliseconds
    }
}

/// The TUI ended because a signal arrived (SIGTERM, SIGHUP); the shell's convention is to exit
/// with 128 plus its number. Every change was committed when it was made.
public struct TerminalEnded: Error, Sendable, Equatable {
    public let signal: Int32

    public init(signal: Int32) {
        self.signal = signal
    }
}

/// A command line that asks for something that cannot be done as asked: the command reports it
/// as a usage error (exit 2), as it does ArgumentParser's own.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
