import CompressNIO
import Foundation
import Hummingbird

/// gzip and deflate in both directions, as Salesforce offers them: request bodies by their
/// `Content-Encoding`, responses only when `Accept-Encoding` asks (never otherwise).
enum HTTPCompression {
    /// Responses smaller than this are not worth compressing.
    static let minimumCompressedSize = 1024

    /// Responses are compressed at zlib's fastest level: on loopback, where localorg mostly runs,
    /// the default level (6) cost more CPU than the bytes it saved, and that CPU is taken from the
    /// client on the same machine (a sync down of 100k contacts, `make bench-sync`).
    static let responseConfiguration = ZlibConfiguration(compressionLevel: .fastestCompression)

    static func algorithm(named name: String, configuration: ZlibConfiguration = .init()) -> CompressionAlgorithm? {
        switch name.lowercased() {
        case "gzip", "x-gzip": return .gzip(configuration: configuration)
        case "deflate": return .zlib(configuration: configuration)
        default: return nil
        }
    }

    /// The inflated body; at most `maximumBytes` are inflated, so a small bomb cannot grow large.
    static func decodedBody(_ body: [UInt8], contentEncoding: String?, maximumBytes: Int) throws(APIError) -> [UInt8] {
        guard let encoding = contentEncoding?.trimmingCharacters(in: .whitespaces), !encoding.isEmpty,
            encoding.lowercased() != "identity"
        else { return body }
        guard let algorithm = algorithm(named: encoding) else {
            throw APIError(status: 415, errorCode: "UNSUPPORTED_MEDIA_TYPE", message: "Content-Encoding \(encoding) is not supported")
        }
        var buffer = ByteBuffer(bytes: body)
        do {
            let inflated = try buffer.decompress(with: algorithm, maxSize: maximumBytes)
            return Array(inflated.readableBytesView)
        } catch {
            throw APIError(status: 400, errorCode: "JSON_PARSER_ERROR", message: "The request body could not be decompressed as \(encoding)")
        }
    }

    /// The encoding to answer with: gzip or deflate when accepted with a non-zero quality.
    static func preferredEncoding(_ acceptEncoding: String?) -> String? {
        guard let acceptEncoding else { return nil }
        var accepted: [String: Double] = [:]
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = parts.first else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            accepted[name] = quality
        }
        return ["gzip", "deflate"].first { (accepted[$0] ?? 0) > 0 }
    }

    static func compress(_ response: inout APIResponse, acceptEncoding: String?) {
        guard response.body.count >= minimumCompressedSize, response.header("content-encoding") == nil,
            let encoding = preferredEncoding(acceptEncoding),
            let algorithm = algorithm(named: encoding, configuration: responseConfiguration)
        else { return }
        var buffer = ByteBuffer(bytes: response.body)
        guard let compressed = try? buffer.compress(with: algorithm) else { return }
        response.body = Array(compressed.readableBytesView)
        response.headers.append(("Content-Encoding", encoding))
        response.headers.append(("Vary", "Accept-Encoding"))
    }
}
