import CCurl
import Crypto
import Foundation

/// A certificate as a server sent it in its TLS handshake.
public struct ServerCertificate: Sendable, Equatable {
    public var pem: String
    public var subject: String
    public var issuer: String
    /// SHA-256 of the certificate's DER bytes as `AB:CD:…`, the form `openssl x509 -fingerprint
    /// -sha256` and `localorg serve` print.
    public var sha256Fingerprint: String

    /// Nil when `pem` holds no base64 certificate body.
    public init?(pem: String, subject: String = "", issuer: String = "") {
        let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body), !der.isEmpty else { return nil }
        self.pem = pem.hasSuffix("\n") ? pem : pem + "\n"
        self.subject = subject
        self.issuer = issuer
        sha256Fingerprint = Self.fingerprint(of: der)
    }

    /// Whether the certificate signed itself: a root CA (or a lone self-signed server certificate).
    public var isSelfIssued: Bool { !subject.isEmpty && subject == issuer }

    public static func fingerprint(of der: Data) -> String {
        SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// A fingerprint as people paste it (`SHA256:AB:CD:…`, `sha256 Fingerprint=ab cd …`, 64 hex
    /// digits) in the `AB:CD:…` form, or nil when it is not 32 bytes of hex.
    public static func normalizedFingerprint(_ text: String) -> String? {
        var rest = text.trimmingCharacters(in: .whitespaces)
        for prefix in ["sha256 fingerprint=", "sha256:", "sha256 ", "sha256="] where rest.lowercased().hasPrefix(prefix) {
            rest = String(rest.dropFirst(prefix.count))
            break
        }
        let hex = rest.filter { $0 != ":" && $0 != " " }.uppercased()
        guard hex.count == 64, hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        var pairs: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            pairs.append(String(hex[index..<next]))
            index = next
        }
        return pairs.joined(separator: ":")
    }
}

/// What a TLS handshake said about trusting a server.
public enum ServerTrustCheck: Sendable, Equatable {
    case trusted
    /// The server's certificate did not check out (no trusted CA, or it does not name the host):
    /// curl's reason and the certificates the server sent, its own first.
    case untrusted(detail: String, chain: [ServerCertificate])
}

extension CurlTransport {
    /// Connects to `url`'s server and completes a TLS handshake, sending no request: whether the
    /// configuration's CAs trust it and, when they do not, the certificates it presented (read
    /// from a second handshake that does not verify, so they can be shown to the user). Blocks the
    /// calling thread for up to the connect timeout; for command-line sign-in, not the async pool.
    public static func checkServerTrust(url: String, configuration: TransportConfiguration) throws(ForceAPIError) -> ServerTrustCheck {
        do throws(ForceAPIError) {
            _ = try handshake(url: url, configuration: configuration, verify: true)
            return .trusted
        } catch .tls(let detail) {
            let chain = try handshake(url: url, configuration: configuration, verify: false)
            return .untrusted(detail: detail, chain: chain)
        }
    }

    private static func handshake(url: String, configuration: TransportConfiguration, verify: Bool) throws(ForceAPIError) -> [ServerCertificate] {
        CurlGlobal.ensureInitialized()
        guard let handle = curl_easy_init() else { throw .transport(code: -1, detail: "libcurl could not create a handle") }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer {
            curl_easy_cleanup(handle)
            errorBuffer.deallocate()
        }
        CurlTransport.setConnection(handle, url: url, errorBuffer: errorBuffer, configuration: configuration, verifies: verify)
        forceterm_curl_set_long(handle, CURLOPT_CONNECT_ONLY, 1)
        forceterm_curl_set_long(handle, CURLOPT_CERTINFO, verify ? 0 : 1)
        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else {
            throw CurlTransport.classify(
                code, handle: handle, message: String(cString: errorBuffer), url: url, configuration: configuration,
                requestStarted: false)
        }
        var chain: [ServerCertificate] = []
        for index in 0..<forceterm_curl_certificate_count(handle) {
            guard let pem = forceterm_curl_certificate_field(handle, index, "Cert") else { continue }
            let subject = forceterm_curl_certificate_field(handle, index, "Subject").map { String(cString: $0) } ?? ""
            let issuer = forceterm_curl_certificate_field(handle, index, "Issuer").map { String(cString: $0) } ?? ""
            if let certificate = ServerCertificate(pem: String(cString: pem), subject: subject, issuer: issuer) {
                chain.append(certificate)
            }
        }
        return chain
    }
}
