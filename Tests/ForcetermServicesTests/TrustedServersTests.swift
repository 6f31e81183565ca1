import ForceAPI
import ForcetermServices
import Foundation
import Testing

@Suite("Trusted servers: one remembered CA per host and port")
struct TrustedServersTests {
    @Test(
        "A server is its host and port, 443 by default; not https is no server to trust",
        arguments: [
            ("https://10.0.0.5:8443", "10.0.0.5:8443"), ("https://Trainer.Local", "trainer.local:443"),
            ("https://[fd00::5]:8443/services", "[fd00::5]:8443"), ("http://localhost:8080", nil),
        ] as [(String, String?)])
    func serverNames(url: String, expected: String?) {
        #expect(TrustedServers.serverName(of: url) == expected)
    }

    @Test("Each server has its own file, named without path tricks")
    func filePerServer() throws {
        let directory = NSTemporaryDirectory() + "trusted-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let servers = TrustedServers(directory: directory)
        #expect(servers.path(forServer: "[fd00::5]:8443") == directory + "/_fd00__5__8443.pem")
        #expect(!servers.path(forServer: "../../etc:1").contains("/../"))
        let pem = "-----BEGIN CERTIFICATE-----\nAQIDBA==\n-----END CERTIFICATE-----\n"
        let certificate = try #require(ServerCertificate(pem: pem))
        try servers.remember(certificate, forServer: "10.0.0.5:8443")
        #expect(servers.remembered(forServer: "10.0.0.5:8443")?.sha256Fingerprint == certificate.sha256Fingerprint)
        #expect(servers.remembered(forServer: "10.0.0.5:9443") == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test(
        "First contact is offered only for hosts on a private network",
        arguments: [
            ("10.1.2.3", true), ("172.20.0.5", true), ("192.168.1.20", true), ("127.0.0.1", true), ("169.254.3.4", true),
            ("::1", true), ("[fd00::5]", true), ("fe80::1", true), ("localhost", true), ("trainer", true), ("trainer.local", true),
            ("class.home.arpa", true), ("8.8.8.8", false), ("172.32.0.1", false), ("2001:db8::1", false),
            ("login.salesforce.com", false), ("example.com", false),
        ] as [(String, Bool)])
    func privateHosts(host: String, expected: Bool) {
        #expect(FirstContactTrust.isPrivate(host: host) == expected)
    }

    @Test(
        "One server whatever the case, trailing slash or default port",
        arguments: [
            ("https://Trainer.local:443/", "https://trainer.local", true), ("https://10.0.0.5:8443", "https://10.0.0.5:8443/", true),
            ("https://10.0.0.5:8443", "https://10.0.0.5:9443", false), ("https://a.local", "https://b.local", false),
        ] as [(String, String, Bool)])
    func sameServer(first: String, second: String, expected: Bool) {
        #expect(OrgReset.sameServer(first, second) == expected)
    }
}
