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
        let complete = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == data.count && fsync(descriptor) == 0
        let failure = errno  // before close can change it
        close(descriptor)
        guard complete, rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(complete ? errno : failure))
            unlink(temporary)
            throw ConfigError("cannot write \(file): \(reason)")
        }
    }

    /// The JSON value in `file`; nil when there is no file. `damaged` says what a damaged one means.
    static func readJSON<Value: Decodable>(_ type: Value.Type, from file: String, damaged: String) throws -> Value? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw ConfigError("\(file) is damaged (\(error.localizedDescription)); " + damaged)
        }
    }

    /// `value` as pretty, sorted JSON, replacing `file` whole.
    static func writeJSON(_ value: some Encodable, to file: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try replace(file, with: try encoder.encode(value) + Data("\n".utf8))
    }
}
