import ContactsApp
import Foundation

/// A file written beside its final name and moved there only when complete, so an export that
/// fails halfway never leaves half a file where a whole one was.
public final class AtomicFile {
    public let path: String
    public let temporaryPath: String
    private let handle: FileHandle

    public init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw ConfigError("cannot write \(path): there is no directory \(directory)")
        }
        temporaryPath = (directory.isEmpty ? "." : directory) + "/." + (path as NSString).lastPathComponent + ".partial-\(getpid())"
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporaryPath)
        else {
            throw ConfigError("cannot write \(path): permission denied in \(directory.isEmpty ? "this directory" : directory)")
        }
        self.handle = handle
    }

    public func write(_ text: String) { handle.write(Data(text.utf8)) }

    public func commit() throws {
        try handle.close()
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            discard()
            throw ConfigError("cannot write \(path): \(reason)")
        }
    }

    public func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporaryPath)
    }
}
