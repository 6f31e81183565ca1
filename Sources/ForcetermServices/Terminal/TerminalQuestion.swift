import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Asks a question on the controlling terminal (`/dev/tty`), as ssh asks whether to trust a new
/// host: standard input and output may be pipes carrying other things.
public enum TerminalQuestion {
    /// The line typed, trimmed; nil when there is no terminal or it closed before an answer.
    public static func ask(_ prompt: String) -> String? {
        guard let terminal = fopen("/dev/tty", "r+") else { return nil }
        defer { fclose(terminal) }
        fputs(prompt, terminal)
        fflush(terminal)
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        guard getline(&line, &capacity, terminal) > 0, let line else { return nil }
        return String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
