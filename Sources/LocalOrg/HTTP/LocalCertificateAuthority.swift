import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority of the data directory's own (`ca.pem`, as mkcert makes one) and a
/// server certificate it signs for localhost, 127.0.0.1 and ::1. Clients trust `ca.pem`.
public struct LocalCertificateAuthority: Sendable {
    public let caCertificatePath: String
    public let serverCertificatePath: String
    public let serverKeyPath: String

    public init(directory: String) {
        caCertificatePath = directory + "/ca.pem"
        serverCertificatePath = directory + "/server.pem"
        serverKeyPath = directory + "/server-key.pem"
    }

    /// Creates the CA and server certificate unless all three files already exist.
    /// Returns true when it made new ones.
    @discardableResult
    public func ensureCertificates() throws -> Bool {
        let files = FileManager.default
        if [caCertificatePath, serverCertificatePath, serverKeyPath].allSatisfy(files.fileExists(atPath:)) { return false }
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caPrivateKey = Certificate.PrivateKey(caKey)
        let caName = try DistinguishedName {
            OrganizationName("localorg development CA")
            CommonName("localorg CA \(Int(now.timeIntervalSince1970))")
        }
        let caKeyIdentifier = SubjectKeyIdentifier(hash: caPrivateKey.publicKey)
        let caCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: caPrivateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                caKeyIdentifier
            },
            issuerPrivateKey: caPrivateKey)

        let serverKey = P256.Signing.PrivateKey()
        let serverPrivateKey = Certificate.PrivateKey(serverKey)
        let serverName = try DistinguishedName {
            OrganizationName("localorg development certificate")
            CommonName("localhost")
        }
        let serverCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: serverPrivateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(825 * 86_400),
            issuer: caName, subject: serverName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"),
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
                ])
                SubjectKeyIdentifier(hash: serverPrivateKey.publicKey)
                AuthorityKeyIdentifier(keyIdentifier: caKeyIdentifier.keyIdentifier)
            },
            issuerPrivateKey: caPrivateKey)

        try write(try caCertificate.serializeAsPEM().pemString + "\n", to: caCertificatePath, mode: 0o644)
        try write(try serverCertificate.serializeAsPEM().pemString + "\n", to: serverCertificatePath, mode: 0o644)
        try write(serverKey.pemRepresentation + "\n", to: serverKeyPath, mode: 0o600)
        // The CA's key is not kept: nothing else is ever signed with it, so it cannot be misused.
        return true
    }

    private func write(_ text: String, to path: String, mode: Int) throws {
        let url = URL(fileURLWithPath: path)
        try Data(text.utf8).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }
}
