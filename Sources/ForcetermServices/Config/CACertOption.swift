import ContactsApp
import Foundation

/// `--cacert FILE`, shared by `login` and `sync`.
public enum CACertOption {
    /// The file's absolute path, or a one-line error when it cannot be read.
    public static func readablePath(_ cacert: String) throws -> String {
        let absolute = URL(fileURLWithPath: cacert).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: absolute) else {
            throw ConfigError("cannot read the CA file \(cacert); give the path of a PEM certificate file")
        }
        return absolute
    }
}
