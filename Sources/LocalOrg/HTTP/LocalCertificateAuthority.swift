import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority of the data directory's own (`ca.pem` and its key, as mkcert keeps
/// one) and a server certificate it signs for the names the server is reached by: localhost,
/// 127.0.0.1 and ::1 always, plus the addresses and host names `serve` is told to serve. Clients
/// trust `ca.pem`; a server certificate re-issued for a new address is signed by the same CA, so
/// clients that trust it go on trusting it.
public struct LocalCertificateAuthority: Sendable {
    public let caCertificatePath: String
    public let caKeyPath: String
    public let serverCertificatePath: String
    public let serverKeyPath: String

    public init(directory: String) {
        caCertificatePath = directory + "/ca.pem"
        caKeyPath = directory + "/ca-key.pem"
        serverCertificatePath = directory + "/server.pem"
        serverKeyPath = directory + "/server-key.pem"
    }

    /// What `ensureCertificates` did.
    public enum Change: Sendable, Equatable {
        case unchanged
        /// A new CA and server certificate (the first start).
        case created
        /// The server certificate re-issued by the same CA, to add these names.
        case reissued(added: [String])
        /// The CA was replaced (one made before its key was kept cannot sign a new name): clients
        /// must trust the new `ca.pem`.
        case replacedAuthority
    }

    /// Makes sure a server certificate signed by this CA names every one of `names`, creating
    /// the CA on first use and re-issuing the server certificate when a name is missing.
    @discardableResult
    public func ensureCertificates(names: CertificateNames = .loopback) throws -> Change {
        let files = FileManager.default
        let existing =
            files.fileExists(atPath: serverCertificatePath) && files.fileExists(atPath: serverKeyPath)
            ? try? CertificateNames(certificate: try Certificate(pemEncoded: String(contentsOfFile: serverCertificatePath, encoding: .utf8)))
            : nil
        let hasAuthority = files.fileExists(atPath: caCertificatePath)
        if let existing, hasAuthority, existing.covers(names) { return .unchanged }
        let wanted = CertificateNames.loopback.union(existing ?? CertificateNames()).union(names)
        let now = Date()
        // The kept key signs only when it is the key of `ca.pem` (a crash between the two writes, or
        // files copied from elsewhere, could pair them wrongly).
        if hasAuthority, files.fileExists(atPath: caKeyPath),
            let caKey = try? P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: caKeyPath, encoding: .utf8)),
            let caCertificate = try? Certificate(pemEncoded: String(contentsOfFile: caCertificatePath, encoding: .utf8)),
            caCertificate.publicKey == Certificate.PrivateKey(caKey).publicKey
        {
            try issueServerCertificate(names: wanted, caCertificate: caCertificate, caKey: caKey, now: now)
            return .reissued(added: wanted.all.filter { !(existing ?? CertificateNames()).all.contains($0) })
        }
        let caKey = P256.Signing.PrivateKey()
        let caPrivateKey = Certificate.PrivateKey(caKey)
        let caName = try DistinguishedName {
            OrganizationName("localorg development CA")
            CommonName("localorg CA \(Int(now.timeIntervalSince1970))")
        }
        let caCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: caPrivateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: caPrivateKey.publicKey)
            },
            issuerPrivateKey: caPrivateKey)
        // The CA's key is kept beside the server's, readable by its owner only: it signs nothing
        // but this directory's server certificates.
        try write(caKey.pemRepresentation + "\n", to: caKeyPath, mode: 0o600)
        try write(try caCertificate.serializeAsPEM().pemString + "\n", to: caCertificatePath, mode: 0o644)
        try issueServerCertificate(names: wanted, caCertificate: caCertificate, caKey: caKey, now: now)
        return hasAuthority ? .replacedAuthority : .created
    }

    /// The SHA-256 fingerprint of `ca.pem`, as `openssl x509 -noout -fingerprint -sha256` prints
    /// it, so a trainee can check the CA they are asked to trust.
    public func caFingerprint() throws -> String {
        let certificate = try Certificate(pemEncoded: String(contentsOfFile: caCertificatePath, encoding: .utf8))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return SHA256.hash(data: serializer.serializedBytes).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    private func issueServerCertificate(names: CertificateNames, caCertificate: Certificate, caKey: P256.Signing.PrivateKey, now: Date) throws {
        let caPrivateKey = Certificate.PrivateKey(caKey)
        let serverKey = P256.Signing.PrivateKey()
        let serverPrivateKey = Certificate.PrivateKey(serverKey)
        let serverName = try DistinguishedName {
            OrganizationName("localorg development certificate")
            CommonName(names.hostNames.first ?? "localhost")
        }
        let alternativeNames =
            names.hostNames.map { GeneralName.dnsName($0) }
            + names.addresses.compactMap { IPAddressBytes.parse($0).map { GeneralName.ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) } }
        let serverCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: serverPrivateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(825 * 86_400),
            issuer: caCertificate.subject, subject: serverName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternativeNames)
                SubjectKeyIdentifier(hash: serverPrivateKey.publicKey)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: caPrivateKey.publicKey).keyIdentifier)
            },
            issuerPrivateKey: caPrivateKey)
        // The key before the certificate: a server started between the two writes fails to start
        // rather than serving a certificate with the wrong key.
        try write(serverKey.pemRepresentation + "\n", to: serverKeyPath, mode: 0o600)
        try write(try serverCertificate.serializeAsPEM().pemString + "\n", to: serverCertificatePath, mode: 0o644)
    }

    private func write(_ text: String, to path: String, mode: Int) throws {
        let url = URL(fileURLWithPath: path)
        try Data(text.utf8).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }
}

/// The names a server certificate is valid for: host names and IP addresses.
public struct CertificateNames: Sendable, Equatable {
    public var hostNames: [String] = []
    /// IP literals, compared as bytes (`::1` and `0:0::1` are one address).
    public var addresses: [String] = []

    public init(hostNames: [String] = [], addresses: [String] = []) {
        for name in hostNames { add(hostName: name) }
        for address in addresses { add(address: address) }
    }

    public static let loopback = CertificateNames(hostNames: ["localhost"], addresses: ["127.0.0.1", "::1"])

    /// The names clients may use to reach these listen addresses, plus `hostNames`: a wildcard
    /// address stands for every address of this machine's interfaces and its host name.
    public static func serving(_ listeners: [ListenAddress], hostNames: [String]) -> CertificateNames {
        var names = CertificateNames.loopback
        for name in hostNames { names.add(hostName: name) }
        for listener in listeners where listener.host != "localhost" {
            if listener.isWildcard {
                for address in IPAddressBytes.interfaceAddresses(includeIPv6: listener.isIPv6) { names.add(address: address) }
                if let host = ProcessInfo.processInfo.hostName.nonEmpty, host != "localhost" { names.add(hostName: host) }
            } else {
                names.add(address: listener.host)
            }
        }
        return names
    }

    init(certificate: Certificate) throws {
        guard let alternativeNames = try certificate.extensions.subjectAlternativeNames else { return }
        for name in alternativeNames {
            switch name {
            case .dnsName(let host): add(hostName: host)
            case .ipAddress(let bytes): if let text = Self.text(of: Array(bytes.bytes)) { add(address: text) }
            default: break
            }
        }
    }

    public var all: [String] { hostNames + addresses }

    mutating func add(hostName: String) {
        let name = hostName.lowercased()
        if !name.isEmpty, !hostNames.contains(name) { hostNames.append(name) }
    }

    mutating func add(address: String) {
        guard let bytes = IPAddressBytes.parse(address), !addresses.contains(where: { IPAddressBytes.parse($0) == bytes }) else { return }
        addresses.append(address)
    }

    func covers(_ other: CertificateNames) -> Bool {
        other.hostNames.allSatisfy(hostNames.contains)
            && other.addresses.allSatisfy { address in addresses.contains { IPAddressBytes.parse($0) == IPAddressBytes.parse(address) } }
    }

    func union(_ other: CertificateNames) -> CertificateNames {
        var result = self
        for name in other.hostNames { result.add(hostName: name) }
        for address in other.addresses { result.add(address: address) }
        return result
    }

    private static func text(of bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family != -1, bytes.withUnsafeBytes({ inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
