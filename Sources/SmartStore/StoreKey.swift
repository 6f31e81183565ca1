import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The key of an encrypted store: 32 random bytes, given to SQLCipher as a raw key. Being random
/// already, it needs no key derivation at each open; whatever protects it (a passcode) derives its
/// own. Never printed: its description hides the bytes.
public struct StoreKey: Sendable, Equatable, CustomStringConvertible {
    public static let byteCount = 32
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// 64 hexadecimal digits, as written in a key file.
    public init?(hex: String) {
        let digits = Array(hex.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count == Self.byteCount * 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    /// A new key from the system's cryptographic random source.
    public static func random() -> StoreKey {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return StoreKey(bytes: bytes) ?? random()
    }

    public var hex: String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Reads a key file: 64 hexadecimal digits, as `write(toFile:)` leaves them.
    public init(contentsOfFile path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw SmartStoreError.keyFile(path: path, reason: "it cannot be read")
        }
        guard let key = StoreKey(hex: text) else {
            throw SmartStoreError.keyFile(path: path, reason: "it does not hold a key of 64 hexadecimal digits")
        }
        self = key
    }

    /// Writes the key as hexadecimal digits to a new file only its owner can read, whole or not at
    /// all (written beside it, synced, then linked into place); an existing file is never
    /// overwritten: it may be the only copy of another store's key.
    public func write(toFile path: String) throws {
        let temporary = path + ".partial-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SmartStoreError.keyFile(path: path, reason: String(cString: strerror(errno)))
        }
        defer { unlink(temporary) }
        let text = Array((hex + "\n").utf8)
        let complete = Glibc.write(descriptor, text, text.count) == text.count && fsync(descriptor) == 0
        let failure = errno
        close(descriptor)
        guard complete else { throw SmartStoreError.keyFile(path: path, reason: String(cString: strerror(failure))) }
        guard link(temporary, path) == 0 else {
            let reason = errno == EEXIST ? "a key file is there already" : String(cString: strerror(errno))
            throw SmartStoreError.keyFile(path: path, reason: reason)
        }
        let directory = (path as NSString).deletingLastPathComponent
        let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    public var description: String { "StoreKey(32 bytes)" }

    /// SQLCipher's raw-key form, `x'…'`, as a PRAGMA key takes it.
    var rawKeyLiteral: String { "x'\(hex)'" }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// How a store is opened with respect to encryption.
public enum StoreEncryption: Sendable, Equatable {
    /// Unencrypted; an encrypted file is refused (`SmartStoreError.encrypted`).
    case plain
    /// Encrypted with this key; a new file is created encrypted and an unencrypted one is encrypted
    /// in place first (atomically: see `StoreEncryptionMigration`).
    case encrypted(StoreKey)
    /// A file as it is found (`--store` on someone's file): an encrypted one with this key, an
    /// unencrypted one left unencrypted; a new file is encrypted when there is a key.
    case asFound(StoreKey?)
}
