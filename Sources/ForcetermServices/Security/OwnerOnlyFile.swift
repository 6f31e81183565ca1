import ContactsApp
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small files only their owner may read (sealed keys, key references), replaced whole or not at
/// all: written beside the file (0600), synced, then renamed over it.
enum OwnerOnlyFile {
    static func replace(_ file: String, with data: Data) throws {
        let directory = (file as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let temporary = file + ".partial-\(getpid())"
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ConfigError("cannot write \(file): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced, rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ConfigError("cannot write \(file): \(reason)")
        }
    }
}
