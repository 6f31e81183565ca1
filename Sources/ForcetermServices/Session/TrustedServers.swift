import ContactsApp
import ForceAPI
import Foundation

/// The certificate authorities the user chose to trust on first contact with a server no system
/// CA vouches for (a trainer's localorg), one PEM file per server (`host:port`), as SSH keeps
/// known_hosts. The saved session points at that file, so later syncs trust that CA for that
/// server; a server that later shows another CA is refused until the user trusts it again.
public struct TrustedServers: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `trusted-servers/` in forceterm's data directory, beside `credentials.json`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (CredentialStore.defaultDirectory(environment: environment) as NSString).appendingPathComponent("trusted-servers")
    }

    /// `host:port` of an https URL (443 when the URL names none), lowercased; nil for other URLs.
    public static func serverName(of url: String) -> String? {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty
        else { return nil }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return "\(bare.contains(":") ? "[\(bare)]" : bare):\(components.port ?? 443)".lowercased()
    }

    /// The file that holds the CA trusted for `server` (`host:port`).
    public func path(forServer server: String) -> String {
        let safe = String(server.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        return (directory as NSString).appendingPathComponent(safe + ".pem")
    }

    /// The CA remembered for `server`, if any.
    public func remembered(forServer server: String) -> ServerCertificate? {
        guard let pem = try? String(contentsOfFile: path(forServer: server), encoding: .utf8) else { return nil }
        return ServerCertificate(pem: pem)
    }

    /// Keeps `certificate` as the CA trusted for `server` and returns its file.
    @discardableResult
    public func remember(_ certificate: ServerCertificate, forServer server: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = path(forServer: server)
        try Data(certificate.pem.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }
}

/// What the user is asked on first contact with a server whose CA nothing here trusts.
public struct FirstContactQuestion: Sendable, Equatable {
    public var server: String
    /// The CA to trust: the last certificate the server sent.
    public var authority: ServerCertificate

    /// The lines shown before the question, as SSH shows a new host key.
    public var explanation: String {
        """
        The server \(server) presents a certificate \(authority.isSelfIssued ? "from an authority" : "chain ending in a certificate no CA here signed, not a root CA (trusting it is trusting this one certificate; a renewed one will be asked about again)") this machine does not trust:
          \(authority.subject.isEmpty ? "(no name)" : authority.subject)
          SHA256 fingerprint: \(authority.sha256Fingerprint)
        A localorg prints its fingerprint when it starts ("CA fingerprint:"); compare the two.
        """
    }
}

/// Which CA file a sign-in to `loginURL` trusts when the user gave none: the system's CAs when
/// they vouch for the server, else the one remembered for it, else — on first contact — the
/// server's own CA once the user has checked its fingerprint (asked, or given ahead with
/// `--trust`). A server whose CA changed since is refused, loudly, until trusted again.
public struct FirstContactTrust {
    public let servers: TrustedServers
    public let configuration: TransportConfiguration
    /// `--trust`: the fingerprint the user expects, normalized; answers the question ahead.
    public let expectedFingerprint: String?
    /// Asks the question; nil when there is no one to ask (no terminal).
    public let ask: (FirstContactQuestion) -> Bool?
    /// Shows the lines a refusal needs beside its one-line error (the fingerprints to compare).
    public let tell: (String) -> Void

    public init(
        servers: TrustedServers, configuration: TransportConfiguration, expectedFingerprint: String?,
        ask: @escaping (FirstContactQuestion) -> Bool?, tell: @escaping (String) -> Void
    ) {
        self.servers = servers
        self.configuration = configuration
        self.expectedFingerprint = expectedFingerprint
        self.ask = ask
        self.tell = tell
    }

    /// The CA file for `loginURL` (nil: the system's CAs), after any question was answered yes.
    public func caFile(for loginURL: String) throws -> String? {
        guard let server = TrustedServers.serverName(of: loginURL) else { return nil }
        let known = servers.remembered(forServer: server)
        var checked = configuration
        checked.caFile = known.map { _ in servers.path(forServer: server) }
        let check = try Self.check(loginURL, configuration: checked)
        guard case let .untrusted(detail, chain) = check else { return checked.caFile }
        // The server's own CA: the last certificate it sent (localorg sends its CA after its own).
        guard let authority = chain.last else {
            throw ConfigError("the certificate of \(server) is not trusted (\(detail)) and the server sent none to check; pass its CA with --cacert FILE")
        }
        if let known, known.sha256Fingerprint != authority.sha256Fingerprint {
            guard expectedFingerprint == authority.sha256Fingerprint else {
                tell(
                    """
                    WARNING: the certificate authority of \(server) has CHANGED since you trusted it.
                      trusted before: SHA256 \(known.sha256Fingerprint)
                      presented now:  SHA256 \(authority.sha256Fingerprint)
                    Either its localorg was set up again (a new data directory) or someone between you and it
                    is reading your traffic. Ask the server's owner for the fingerprint it printed at start.
                    """)
                throw ConfigError(
                    "refused: the certificate authority of \(server) changed; nothing was sent or saved. Only if SHA256 \(authority.sha256Fingerprint) is the one its owner gives you, run forceterm login again with --trust SHA256:\(authority.sha256Fingerprint)"
                )
            }
        }
        // Trusting the CA would not help when the certificate does not name the host, or the
        // server sent no CA of its own: say why now rather than after the user said yes.
        let candidate = try Self.withTemporaryFile(authority.pem) { path in
            var trial = configuration
            trial.caFile = path
            return try Self.check(loginURL, configuration: trial)
        }
        if case let .untrusted(reason, _) = candidate {
            throw ConfigError(
                "the certificate of \(server) is not valid even with its own CA (\(authority.subject)) trusted: \(reason). If it is a localorg, serve it with --listen or --hostname naming the address you used; otherwise pass the right CA with --cacert FILE"
            )
        }
        if expectedFingerprint == nil, known == nil, let host = URLComponents(string: loginURL)?.host, !Self.isPrivate(host: host) {
            // On the open internet an unknown CA is what an attacker in between looks like, and a
            // yes would stand in for the system's CAs for the whole session.
            throw ConfigError(
                "the certificate of \(server) is not trusted (\(detail)). forceterm offers to trust a server's own CA only on a private network (a private address, localhost, a .local name); for a public host check the system clock and any proxy that intercepts TLS (pass its CA with --cacert FILE), or give --trust SHA256:… with the fingerprint the server's owner gave you"
            )
        }
        if let expectedFingerprint {
            guard expectedFingerprint == authority.sha256Fingerprint else {
                throw ConfigError(
                    "the certificate authority of \(server) has the fingerprint SHA256 \(authority.sha256Fingerprint), not the \(expectedFingerprint) given with --trust; it was not trusted and nothing was sent or saved"
                )
            }
        } else {
            let question = FirstContactQuestion(server: server, authority: authority)
            switch ask(question) {
            case true?:
                break
            case false?:
                throw ConfigError("not trusted: nothing was sent to \(server) or saved")
            case nil:
                tell(question.explanation)
                throw ConfigError(
                    "no terminal to ask whether to trust it: if that is the fingerprint the server's owner gave you, run again with --trust SHA256:\(authority.sha256Fingerprint) (or --cacert FILE with its CA)"
                )
            }
        }
        return try servers.remember(authority, forServer: server)
    }

    /// A host on a private network: loopback, RFC 1918, link-local and unique-local addresses,
    /// localhost, a name without dots, or a name under a suffix reserved for local use.
    public static func isPrivate(host: String) -> Bool {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            switch (bytes[0], bytes[1]) {
            case (10, _), (127, _), (192, 168), (169, 254): return true
            case (172, 16...31): return true
            default: return false
            }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes.dropLast().allSatisfy({ $0 == 0 }) && bytes.last == 1 { return true }  // ::1
            return bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80)  // fc00::/7, fe80::/10
        }
        let name = bare.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        if name == "localhost" || !name.contains(".") { return true }
        return [".local", ".lan", ".home.arpa", ".internal", ".localdomain", ".localhost", ".test"].contains { name.hasSuffix($0) }
    }

    private static func check(_ url: String, configuration: TransportConfiguration) throws -> ServerTrustCheck {
        try CurlTransport.checkServerTrust(url: url, configuration: configuration)
    }

    private static func withTemporaryFile<T>(_ text: String, _ body: (String) throws -> T) throws -> T {
        let path = NSTemporaryDirectory() + "forceterm-ca-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).pem"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }
}
