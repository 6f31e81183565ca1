import Foundation
import Testing
import X509

@testable import LocalOrg

@Suite struct ListenAddressTests {
    @Test func readsAddressesWithAndWithoutPorts() throws {
        #expect(try ListenAddress.parse("192.168.1.20") == ListenAddress(host: "192.168.1.20"))
        #expect(try ListenAddress.parse("10.0.0.5:9443") == ListenAddress(host: "10.0.0.5", port: 9443))
        #expect(try ListenAddress.parse("[fd00::5]:8443") == ListenAddress(host: "fd00::5", port: 8443))
        #expect(try ListenAddress.parse("[::]") == ListenAddress(host: "::"))
        #expect(try ListenAddress.parse("::1") == ListenAddress(host: "::1"))
        #expect(try ListenAddress.parse("LOCALHOST:0") == ListenAddress(host: "localhost", port: 0))
        #expect(try ListenAddress.parse("0.0.0.0").isWildcard)
        #expect(try ListenAddress.parse("::").isWildcard)
        #expect(try !ListenAddress.parse("10.0.0.5").isWildcard)
        #expect(ListenAddress(host: "fd00::5", port: 1).description == "[fd00::5]:1")
    }

    @Test func refusesWhatCannotBeListenedOnNamingTheProblem() {
        let cases = [
            ("trainer.local", "host names in the certificate with --hostname"),
            ("10.0.0.5:http", "port must be a number"),
            ("10.0.0.5:70000", "port must be a number"),
            ("[fd00::5", "closing ]"),
            ("[fd00::5]8443", "after ] comes :PORT"),
            ("300.1.1.1", "give an IP address"),
        ]
        for (text, problem) in cases {
            do {
                _ = try ListenAddress.parse(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.hasPrefix("--listen \(text):"), "\(error)")
                #expect(error.description.contains(problem), "\(error)")
            }
        }
    }

    @Test func certificateNamesCoverEveryAddressServed() {
        let names = CertificateNames.serving(
            [ListenAddress(host: "10.99.0.2", port: 8443), ListenAddress(host: "fd00::5")],
            hostNames: ["Trainer.Local"])
        #expect(names.hostNames == ["localhost", "trainer.local"])
        #expect(names.addresses == ["127.0.0.1", "::1", "10.99.0.2", "fd00::5"])
        // One address however it is written.
        #expect(names.covers(CertificateNames(addresses: ["0:0:0:0:0:0:0:1", "fd00:0::5"])))
        #expect(!names.covers(CertificateNames(addresses: ["10.99.0.3"])))
        // A wildcard stands for this machine's interfaces: the loopback one at least.
        #expect(CertificateNames.serving([ListenAddress(host: "0.0.0.0")], hostNames: []).addresses.contains("127.0.0.1"))
    }
}

@Suite struct LocalCertificateAuthorityTests {
    private func temporaryDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "localorg-ca-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    private func certificate(_ path: String) throws -> Certificate {
        try Certificate(pemEncoded: String(contentsOfFile: path, encoding: .utf8))
    }

    @Test func aNewAddressReissuesTheServerCertificateUnderTheSameAuthority() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let authority = LocalCertificateAuthority(directory: directory)
        #expect(try authority.ensureCertificates() == .created)
        let fingerprint = try authority.caFingerprint()
        #expect(fingerprint.split(separator: ":").count == 32)
        let keyMode = try FileManager.default.attributesOfItem(atPath: authority.caKeyPath)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        #expect(try authority.ensureCertificates() == .unchanged)

        let room = CertificateNames.serving([ListenAddress(host: "10.99.0.2")], hostNames: ["trainer.local"])
        #expect(try authority.ensureCertificates(names: room) == .reissued(added: ["trainer.local", "10.99.0.2"]))
        #expect(try authority.caFingerprint() == fingerprint)
        let server = try certificate(authority.serverCertificatePath)
        let ca = try certificate(authority.caCertificatePath)
        #expect(server.issuer == ca.subject)
        #expect(ca.publicKey.isValidSignature(server.signature, for: server))
        #expect(try CertificateNames(certificate: server).covers(room))
        #expect(try CertificateNames(certificate: server).covers(.loopback))
        // Asking for fewer names later keeps the certificate (and the names other listeners use).
        #expect(try authority.ensureCertificates() == .unchanged)
    }

    @Test func anAuthorityWithoutItsKeyIsReplacedOnlyWhenANameIsMissing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let authority = LocalCertificateAuthority(directory: directory)
        try authority.ensureCertificates()
        let fingerprint = try authority.caFingerprint()
        // A data directory from before the CA's key was kept.
        try FileManager.default.removeItem(atPath: authority.caKeyPath)
        #expect(try authority.ensureCertificates() == .unchanged)
        #expect(try authority.caFingerprint() == fingerprint)
        #expect(try authority.ensureCertificates(names: CertificateNames(addresses: ["10.99.0.2"])) == .replacedAuthority)
        #expect(try authority.caFingerprint() != fingerprint)
        let server = try certificate(authority.serverCertificatePath)
        #expect(try certificate(authority.caCertificatePath).publicKey.isValidSignature(server.signature, for: server))
        #expect(try CertificateNames(certificate: server).covers(CertificateNames(addresses: ["10.99.0.2", "127.0.0.1"])))
    }
}
