import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads the password for `--password-stdin`. From a pipe it is the first line, as is; from a
/// terminal it is typed after a prompt on standard error with echo off, so it never shows on the
/// screen (or in a screen recording of a training room). Ctrl-C restores the terminal first.
public enum PasswordInput {
    /// The terminal settings to restore, kept where the signal handler can reach them.
    nonisolated(unsafe) private static var savedSettings = termios()

    public static func readLine(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return Swift.readLine(strippingNewline: true) }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return Swift.readLine(strippingNewline: true) }
        savedSettings = settings
        StandardStreams.writeError(prompt)
        var silent = settings
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        let previousHandler = signal(SIGINT) { signalNumber in
            tcsetattr(STDIN_FILENO, TCSANOW, &PasswordInput.savedSettings)
            signal(signalNumber, SIG_DFL)
            raise(signalNumber)
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            signal(SIGINT, previousHandler)
        }
        return Swift.readLine(strippingNewline: true)
    }

    /// Typed on the controlling terminal (`/dev/tty`) with echo off, whatever standard input is:
    /// `pass show sf | forceterm login --password-stdin` still asks its passcode of the person at
    /// the terminal. Nil without a terminal, or when nothing is typed before the terminal ends.
    /// Ctrl-C, a hang-up or a kill puts echo back before the process ends.
    public static func readFromTerminal(prompt: String) -> String? {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return nil }
        savedSettings = settings
        terminalDescriptor = descriptor
        var silent = settings
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        _ = prompt.withCString { write(descriptor, $0, strlen($0)) }
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

    /// The terminal `readFromTerminal` reads, for its signal handler.
    nonisolated(unsafe) private static var terminalDescriptor: Int32 = -1
}
