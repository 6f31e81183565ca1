import ForceAPI
import Foundation
import LocalOrgProcess
import Testing

@Suite("Server certificates: fingerprints and the trust check")
struct ServerCertificateTests {
    static let fingerprint = "F8:21:9A:64:4B:20:B3:09:D4:82:0B:0E:64:F0:BC:EA:3A:4F:EF:99:F4:24:6B:6D:1F:39:C5:9C:5B:C9:45:65"

    @Test(
        "A fingerprint is read as people paste it",
        arguments: [
            fingerprint, "SHA256:" + fingerprint, "sha256 Fingerprint=" + fingerprint.lowercased(),
            fingerprint.replacingOccurrences(of: ":", with: ""), "SHA256 " + fingerprint.replacingOccurrences(of: ":", with: " "),
        ])
    func fingerprintForms(text: String) {
        #expect(ServerCertificate.normalizedFingerprint(text) == Self.fingerprint)
    }

    @Test("What is not 32 bytes of hex is no fingerprint", arguments: ["", "SHA256:AB:CD", String(repeating: "G", count: 64), "MD5:" + fingerprint])
    func notFingerprints(text: String) {
        #expect(ServerCertificate.normalizedFingerprint(text) == nil)
    }

    @Test("localorg sends its CA after its own certificate; the check reports both, the CA's fingerprint as serve printed it")
    func untrustedChain() throws {
        let server = try LocalOrgProcess()
        defer { server.remove() }
        let check = try CurlTransport.checkServerTrust(url: server.url, configuration: TransportConfiguration())
        guard case let .untrusted(detail, chain) = check else {
            Issue.record("a localorg CA should not be trusted by the system: \(check)")
            return
        }
        #expect(detail.contains("certificate"))
        #expect(chain.count == 2)
        #expect(chain.last?.isSelfIssued == true && chain.first?.isSelfIssued == false)
        #expect(chain.last?.sha256Fingerprint == server.caFingerprint)
        var trusting = TransportConfiguration()
        trusting.caFile = server.caFile
        #expect(try CurlTransport.checkServerTrust(url: server.url, configuration: trusting) == .trusted)
    }

    @Test("Nothing listening is offline, not a question of trust")
    func offlineServer() throws {
        var configuration = TransportConfiguration()
        configuration.connectTimeout = 5
        #expect(throws: ForceAPIError.self) { try CurlTransport.checkServerTrust(url: "https://127.0.0.1:9", configuration: configuration) }
    }
}
