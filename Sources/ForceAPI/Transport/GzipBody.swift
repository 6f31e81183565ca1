import CZlib

/// Request bodies gzip-compressed before they cross the link: Salesforce (and localorg) read
/// `Content-Encoding: gzip` on requests as on responses, and JSON shrinks to a fifth or less.
enum GzipBody {
    /// Bodies smaller than this are sent as they are: the gzip header and trailer (18 bytes) and
    /// the server's work would cost more than the few bytes saved.
    static let minimumBytes = 1024

    /// The gzip-compressed bytes, or nil when zlib fails or the result is no smaller.
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard forceterm_deflate_init_gzip(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let result: Int32 = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END, Int(stream.total_out) < bytes.count else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}
