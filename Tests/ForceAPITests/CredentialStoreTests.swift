import ForceAPI
import ForceJSON
import Foundation
import Testing

@Suite("Credentials on disk")
struct CredentialStoreTests {
    static func sample() -> OAuthCredentials {
        let token = OAuthToken(
            accessToken: Secret("00Dxx!access-token-text"), refreshToken: Secret("refresh-token-text"),
            instanceURL: "https://127.0.0.1:9", identityURL: "https://127.0.0.1:9/id/00DLo0000000001AAA/005Lo0000000001AAA")
        return OAuthCredentials(
            loginURL: "https://127.0.0.1:9", clientId: "forceterm", token: token,
            identity: UserIdentity(userId: "005Lo0000000001AAA", organizationId: "00DLo0000000001AAA", username: "demo@localorg.test"))
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test("Saved with mode 0600 in a 0700 directory, and read back")
    func savesPrivately() throws {
        let root = NSTemporaryDirectory() + "credentials-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = CredentialStore(directory: root + "/forceterm")
        #expect(try store.load() == nil)
        try store.save(Self.sample())
        #expect(try Self.mode(store.path) == 0o600)
        #expect(try Self.mode(store.directory) == 0o700)
        #expect(try store.load() == Self.sample())
        // Saving again replaces the file (atomically, by rename) and leaves no temporary files.
        var changed = Self.sample()
        changed.accessToken = Secret("another-access-token")
        try store.save(changed)
        #expect(try store.load()?.accessToken == Secret("another-access-token"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory) == [CredentialStore.fileName])
        #expect(try store.remove())
        #expect(try store.load() == nil)
    }

    @Test("A credentials file other users can read is refused with an explanation")
    func refusesReadableFile() throws {
        let root = NSTemporaryDirectory() + "credentials-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = CredentialStore(directory: root)
        try store.save(Self.sample())
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        #expect(throws: CredentialStoreError.unsafePermissions(path: store.path, mode: "644")) { try store.load() }
        let message = "\(CredentialStoreError.unsafePermissions(path: store.path, mode: "644"))"
        #expect(message.contains("chmod 600"))
    }

    @Test("A group-accessible directory is narrowed to 0700 when saving")
    func narrowsDirectory() throws {
        let root = NSTemporaryDirectory() + "credentials-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let store = CredentialStore(directory: root)
        try store.save(Self.sample())
        #expect(try Self.mode(root) == 0o700)
    }

    @Test("A damaged file is reported, not trusted")
    func damagedFile() throws {
        let root = NSTemporaryDirectory() + "credentials-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = CredentialStore(directory: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: store.path, contents: Data("{\"not\":1}".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: CredentialStoreError.damaged(path: store.path)) { try store.load() }
    }

    @Test("One store per org and user, inside the data directory")
    func perUserStore() {
        let store = CredentialStore(directory: "/data/forceterm")
        #expect(store.storePath(for: Self.sample()) == "/data/forceterm/users/00DLo0000000001AAA/005Lo0000000001AAA/store.sqlite")
        var hostile = Self.sample()
        hostile.userId = "../../etc"
        #expect(store.storePath(for: hostile) == "/data/forceterm/users/00DLo0000000001AAA/______etc/store.sqlite")
    }

    @Test("Credentials never print their tokens")
    func redacted() {
        let text = "\(Self.sample()) \(String(reflecting: Self.sample()))"
        #expect(!text.contains("access-token-text"))
        #expect(!text.contains("refresh-token-text"))
    }
}
