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
    /// the terminal. Nil without a terminal.
    public static func readFromTerminal(prompt: String) -> String? {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return nil }
        var silent = settings
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        _ = prompt.withCString { write(descriptor, $0, strlen($0)) }
        tcsetattr(descriptor, TCSAFLUSH, &silent)
        defer { tcsetattr(descriptor, TCSANOW, &settings) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }
}
