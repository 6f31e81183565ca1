import ForceJSON
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why the credentials file could not be used. Each says what to do.
public enum CredentialStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case unsafePermissions(path: String, mode: String)
    case notOwned(path: String)
    case unreadable(path: String, detail: String)
    case damaged(path: String)
    case writeFailed(path: String, detail: String)

    public var description: String {
        switch self {
        case let .unsafePermissions(path, mode):
            return "refusing to use \(path): other users can read it (mode \(mode)), and it holds your session tokens; run chmod 600 \(path) (or sign in again after deleting it)"
        case let .notOwned(path):
            return "refusing to use \(path): it belongs to another user; delete it and sign in again with forceterm login"
        case let .unreadable(path, detail):
            return "cannot read \(path) (\(detail)); check its permissions"
        case let .damaged(path):
            return "\(path) is not a forceterm credentials file; delete it and sign in again with forceterm login"
        case let .writeFailed(path, detail):
            return "cannot save credentials to \(path) (\(detail)); check the directory's permissions and free space"
        }
    }
}

/// The signed-in session on disk: `credentials.json` in forceterm's data directory
/// (`$XDG_DATA_HOME/forceterm`), mode 0600 in a 0700 directory, replaced atomically (write a
/// temporary file, fsync, rename). A file other users could read is refused, never used.
public struct CredentialStore: Sendable {
    public let directory: String
    public static let fileName = "credentials.json"

    public init(directory: String) { self.directory = directory }

    /// forceterm's data directory: `$XDG_DATA_HOME/forceterm`, or `~/.local/share/forceterm`
    /// (a relative `XDG_DATA_HOME` is ignored, as the XDG spec says).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        }
        return (dataHome as NSString).appendingPathComponent("forceterm")
    }

    public var path: String { (directory as NSString).appendingPathComponent(Self.fileName) }

    /// The store of one org and user, so two users on one laptop never share records:
    /// `<directory>/users/<orgId>/<userId>/store.sqlite`.
    public func storePath(for credentials: OAuthCredentials) -> String {
        "\(directory)/users/\(Self.safeSegment(credentials.organizationId))/\(Self.safeSegment(credentials.userId))/store.sqlite"
    }

    /// The saved credentials, or nil when nobody is signed in.
    public func load() throws(CredentialStoreError) -> OAuthCredentials? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(path: path, detail: String(cString: strerror(errno)))
        }
        guard info.st_uid == getuid() else { throw .notOwned(path: path) }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else { throw .unsafePermissions(path: path, mode: String(mode, radix: 8)) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, detail: "\(error.localizedDescription)")
        }
        guard let json = try? JSONParser.parse(Array(data)), let credentials = OAuthCredentials(json: json) else {
            throw .damaged(path: path)
        }
        return credentials
    }

    /// Saves credentials atomically with mode 0600, creating the directory with mode 0700.
    public func save(_ credentials: OAuthCredentials) throws(CredentialStoreError) {
        try makePrivateDirectory()
        let temporary = "\(directory)/.\(Self.fileName).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let bytes = Array(JSONWriter.string(credentials.json, pretty: true).utf8) + [10]
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .writeFailed(path: path, detail: String(cString: strerror(errno))) }
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw .writeFailed(path: path, detail: failure)
        }
        // Make the rename itself durable.
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Removes the saved credentials; true when there were some.
    @discardableResult
    public func remove() throws(CredentialStoreError) -> Bool {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw .writeFailed(path: path, detail: String(cString: strerror(errno)))
        }
        return true
    }

    /// Creates the directory 0700, or narrows an existing one of ours to 0700.
    private func makePrivateDirectory() throws(CredentialStoreError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .writeFailed(path: path, detail: "cannot create \(directory): \(error.localizedDescription)")
        }
        var info = stat()
        guard stat(directory, &info) == 0 else { throw .writeFailed(path: path, detail: String(cString: strerror(errno))) }
        guard info.st_uid == getuid() else { throw .notOwned(path: directory) }
        if info.st_mode & 0o077 != 0, chmod(directory, 0o700) != 0 {
            throw .writeFailed(path: path, detail: "cannot make \(directory) private: \(String(cString: strerror(errno)))")
        }
    }

    /// Ids are alphanumeric; anything else is replaced so a hostile server cannot steer the path.
    public static func safeSegment(_ text: String) -> String {
        let cleaned = String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        return cleaned.isEmpty ? "_" : cleaned
    }
}
