import ContactsApp
import ForceJSON
import Foundation
import SmartStore

/// A temporary directory, removed with everything in it when the last reference goes.
public final class ScratchDirectory {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("forceterm-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
