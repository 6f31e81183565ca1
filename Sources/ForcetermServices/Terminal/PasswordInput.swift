import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the password for `--password-stdin`. From a pipe it is the first line, as is; from a
/// terminal it is typed after a prompt on standard error with echo off, so it never shows on the
/// screen (or in a screen recording of a training room). Ctrl-C restores the terminal first.
public enum PasswordInput {
    /// The terminal settings to restore and its descriptor, kept where the signal handler can reach them.
    nonisolated(unsafe) private static var savedSettings = termios()
    nonisolated(unsafe) private static var terminalDescriptor: Int32 = -1

    public static func readLine(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return Swift.readLine(strippingNewline: true) }
        let typed = withEchoOff(STDIN_FILENO) {
            StandardStreams.writeError(prompt)
            return Swift.readLine(strippingNewline: true)
        }
        return typed ?? Swift.readLine(strippingNewline: true)
    }

    /// Runs `body` with the terminal at `descriptor` not echoing what is typed (Enter still moves
    /// to the next line); its settings come back afterwards, and on Ctrl-C, a hang-up or a kill
    /// before the process ends. Nil, with `body` not run, when `descriptor` is no terminal.
    private static func withEchoOff(_ descriptor: Int32, _ body: () -> String?) -> String?? {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return nil }
        savedSettings = settings
        terminalDescriptor = descriptor
        var silent = settings
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        let restoreAndEnd: @convention(c) (Int32) -> Void = { signalNumber in
            tcsetattr(PasswordInput.terminalDescriptor, TCSANOW, &PasswordInput.savedSettings)
            signal(signalNumber, SIG_DFL)
            raise(signalNumber)
        }
        let previous = [SIGINT, SIGTERM, SIGHUP].map { ($0, signal($0, restoreAndEnd)) }
        tcsetattr(descriptor, TCSAFLUSH, &silent)
        defer {
            tcsetattr(descriptor, TCSANOW, &settings)
            for (number, handler) in previous { signal(number, handler) }
        }
        return .some(body())
    }

    /// Typed on the controlling terminal (`/dev/tty`) with echo off, whatever standard input is:
    /// `pass show sf | forceterm login --password-stdin` still asks its passcode of the person at
    /// the terminal. Nil without a terminal, or when nothing is typed before the terminal ends.
    /// Ctrl-C, a hang-up or a kill puts echo back before the process ends.
    public static func readFromTerminal(prompt: String) -> String? {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let typed = withEchoOff(descriptor) { () -> String? in
            _ = prompt.withCString { write(descriptor, $0, strlen($0)) }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while true {
                let count = read(descriptor, &byte, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1 else { return nil }  // the terminal ended (or failed) mid-line
                if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            }
        }
        return typed ?? nil
    }
}
