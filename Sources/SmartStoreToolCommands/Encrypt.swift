import ArgumentParser
import Foundation
import SmartStore

struct Encrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encrypt an unencrypted store in place (SQLCipher 4's format), all or nothing.",
        discussion: """
            Makes a new key file when --key-file names none. A store already encrypted is left as \
            it is. --pause-after stops at a step of the encryption, for crash tests that kill the \
            process there.
            """)

    @Option(help: "The store file to encrypt.")
    var store: String

    @Option(help: "The key file (64 hexadecimal digits); created with a new random key if missing.")
    var keyFile: String

    @Option(help: ArgumentHelp("Print the step's name and wait to be killed after it.", visibility: .hidden))
    var pauseAfter: StoreEncryptionMigration.Step?

    func run() throws {
        if !FileManager.default.fileExists(atPath: keyFile) { try StoreKey.random().write(toFile: keyFile) }
        let key = try StoreKey(contentsOfFile: keyFile)
        try StoreEncryptionMigration.encrypt(path: store, key: key) { step in
            guard step == pauseAfter else { return }
            FileHandle.standardOutput.write(Data("PAUSED AFTER \(step.rawValue)\n".utf8))
            while true { sleep(60) }
        }
        _ = try SmartStore(path: store, mustExist: true, encryption: .encrypted(key))
        print("\(store) is encrypted with the key in \(keyFile).")
    }
}

extension StoreEncryptionMigration.Step: ExpressibleByArgument {}
