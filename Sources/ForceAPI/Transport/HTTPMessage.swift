/// One header line. Names compare case-insensitively, as HTTP says.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request as the transport sends it: method, absolute URL, headers and an optional body.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]?
    /// Whether sending it twice has the same effect as once; only such requests are retried.
    public var isIdempotent: Bool

    public init(method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil, isIdempotent: Bool? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.isIdempotent = isIdempotent ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method)
    }

    /// The URL without its query string, for logs and errors (query strings may carry tokens or data).
    public var redactedURL: String {
        String(url.prefix { $0 != "?" })
    }
}

/// A response: status, headers (in arrival order) and the decoded (un-gzipped) body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// The sizes of the request's body and of this body as they crossed the network
    /// (compressed), when the transport knows them.
    public var transferred: (sent: Int, received: Int)?

    public init(status: Int, headers: [HTTPHeader], body: [UInt8], transferred: (sent: Int, received: Int)? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.transferred = transferred
    }

    /// The last value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.last { $0.name.lowercased() == lowered }?.value
    }

    /// Whether the body is JSON by its declared content type.
    public var isJSON: Bool {
        guard let type = header("Content-Type")?.lowercased() else { return false }
        return type.hasPrefix("application/json") || type.contains("+json")
    }
}

/// A request that got no response, and whether any of it may have reached the server. A request
/// whose connection or TLS handshake failed never left this machine, so sending it again cannot
/// apply it twice, whatever its method: on a lossy link that is the common failure of a write.
public struct TransportFailure: Error, Sendable, Equatable {
    public var error: ForceAPIError
    /// False only when the transport knows the request never started to leave (no connection,
    /// or no finished handshake, to send it on).
    public var requestMayHaveLeft: Bool

    public init(_ error: ForceAPIError, requestMayHaveLeft: Bool = true) {
        self.error = error
        self.requestMayHaveLeft = requestMayHaveLeft
    }
}
