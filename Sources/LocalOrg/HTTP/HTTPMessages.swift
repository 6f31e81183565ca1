import ForceJSON
import Foundation

/// A request as localorg's API sees it, independent of the HTTP server that carried it.
public struct APIRequest: Sendable {
    public var method: String
    /// The path as sent (still percent-encoded).
    public var path: String
    /// The raw query string, without `?`.
    public var query: String
    /// Header values by lowercased name.
    public var headers: [String: String]
    public var body: [UInt8]
    /// Scheme and host the client used (`https://localhost:8443`), for instance and identity URLs.
    public var baseURL: String

    public init(method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = [], baseURL: String) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
        self.baseURL = baseURL
    }

    /// Query parameters, `+` read as a space and percent-escapes decoded.
    public var queryItems: [String: String] { FormDecoding.decode(query) }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A response: status, headers and body bytes.
public struct APIResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// For the request log, never sent: who asked, and the outcomes inside a composite answer.
    public var loggedUser: String?
    public var innerOutcomes: String?
    /// A body sent as it is made (the trainer page's live feed), instead of `body`.
    public var stream: AsyncStream<[UInt8]>?

    public static let jsonContentType = "application/json;charset=UTF-8"

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func json(_ value: JSONValue, status: Int = 200) -> APIResponse {
        var bytes: [UInt8] = []
        JSONWriter.write(value, into: &bytes)
        return APIResponse(status: status, headers: [("Content-Type", jsonContentType)], body: bytes)
    }

    static func error(_ error: APIError) -> APIResponse {
        json(.array([error.jsonEntry]), status: error.status)
    }

    /// OAuth endpoints answer errors as a flat object, never an array.
    static func oauthError(_ code: String, _ description: String, status: Int = 400) -> APIResponse {
        json(["error": .string(code), "error_description": .string(description)], status: status)
    }

    static func empty(_ status: Int) -> APIResponse { APIResponse(status: status) }

    /// The body as text (for tests and logs).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
    public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}

/// `application/x-www-form-urlencoded` and query-string decoding.
enum FormDecoding {
    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecode(String(parts[0]), plusIsSpace: true)
            let value = parts.count > 1 ? percentDecode(String(parts[1]), plusIsSpace: true) : ""
            if result[key] == nil { result[key] = value }
        }
        return result
    }

    /// The text fields of a `multipart/form-data` body (file parts are kept as text too).
    static func decodeMultipart(_ body: [UInt8], contentType: String) -> [String: String] {
        guard let boundaryRange = contentType.range(of: "boundary=") else { return [:] }
        var boundary = String(contentType[boundaryRange.upperBound...])
        if let semicolon = boundary.firstIndex(of: ";") { boundary = String(boundary[..<semicolon]) }
        boundary = boundary.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        let text = String(decoding: body, as: UTF8.self)
        var result: [String: String] = [:]
        for part in text.components(separatedBy: "--" + boundary) {
            guard let headerEnd = part.range(of: "\r\n\r\n") else { continue }
            let headers = part[..<headerEnd.lowerBound]
            guard let nameStart = headers.range(of: "name=\"") else { continue }
            let afterName = headers[nameStart.upperBound...]
            guard let nameEnd = afterName.firstIndex(of: "\"") else { continue }
            var value = String(part[headerEnd.upperBound...])
            if value.hasSuffix("\r\n") { value.removeLast() }  // "\r\n" is one Character in Swift
            result[String(afterName[..<nameEnd])] = value
        }
        return result
    }

    /// Decodes `%XX` escapes (invalid ones stay as they are) and optionally `+` as a space.
    static func percentDecode(_ text: String, plusIsSpace: Bool) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
