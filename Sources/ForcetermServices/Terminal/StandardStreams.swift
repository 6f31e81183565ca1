import Foundation

/// Writes whole texts to stdout and stderr without buffering, so a footer on stderr never overtakes
/// the table printed before it.
public enum StandardStreams {
    public static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    public static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
