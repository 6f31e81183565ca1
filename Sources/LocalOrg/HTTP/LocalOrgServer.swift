import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL

/// Serves a `LocalOrgAPI` over HTTP or HTTPS with Hummingbird. The API does the work; this only
/// converts HTTP messages both ways.
public struct LocalOrgServer: Sendable {
    public struct TLSFiles: Sendable {
        public var certificateChainPath: String
        public var privateKeyPath: String
        public init(certificateChainPath: String, privateKeyPath: String) {
            self.certificateChainPath = certificateChainPath
            self.privateKeyPath = privateKeyPath
        }
    }

    public let api: LocalOrgAPI
    public let host: String
    public let port: Int
    public let tls: TLSFiles?
    /// Log only critical problems (tests stop servers by cancelling, which the server logs as errors).
    public var quiet = false
    /// Called after each request with one line for a console (method, path without the query,
    /// status, milliseconds); never with headers or the query string, so tokens stay out of it.
    public var requestLog: (@Sendable (String) -> Void)?

    public init(api: LocalOrgAPI, host: String = "127.0.0.1", port: Int, tls: TLSFiles?) {
        self.api = api
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// Runs until cancelled or, when `stopSignals` is not empty, until one of those signals
    /// arrives; then stops accepting and finishes requests in flight. `onRunning` gets the bound
    /// port (useful with port 0).
    public func run(stopOnSignals: Bool, onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        let api = self.api
        let scheme = tls == nil ? "http" : "https"
        let fallbackAuthority = "\(host):\(port)"
        let maximumBody = api.settings.maximumBodyBytes
        let requestLog = self.requestLog
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            var request = request
            var headers: [String: String] = [:]
            for field in request.headers {
                let name = field.name.canonicalName
                headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
            }
            let body: [UInt8]
            do {
                body = Array(try await request.collectBody(upTo: maximumBody).readableBytesView)
            } catch {
                return Self.response(from: .error(APIError(status: 413, errorCode: "REQUEST_ENTITY_TOO_LARGE",
                                                           message: "Request body exceeds \(maximumBody) bytes")))
            }
            let authority = request.head.authority ?? headers["host"] ?? fallbackAuthority
            let apiRequest = APIRequest(method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                                        headers: headers, body: body, baseURL: "\(scheme)://\(authority)")
            let started = ContinuousClock.now
            let apiResponse = await api.handle(apiRequest)
            if let requestLog {
                let elapsed = ContinuousClock.now - started
                let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                requestLog("\(apiRequest.method) \(apiRequest.path) \(apiResponse.status) \(String(format: "%.1f", milliseconds)) ms")
            }
            return Self.response(from: apiResponse)
        }
        let logger = {
            var logger = Logger(label: "localorg")
            logger.logLevel = quiet ? .critical : .warning
            return logger
        }()
        let server: HTTPServerBuilder
        if let tls {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificateChainPath).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.privateKeyPath, format: .pem)
            server = try .tls(.http1(), tlsConfiguration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
        } else {
            server = .http1()
        }
        @Sendable func serve(host: String, port: Int, onBound: @escaping @Sendable (Int) async -> Void) async throws {
            let app = Application(responder: responder, server: server,
                                  configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "localorg"),
                                  onServerRunning: { channel in await onBound(channel.localAddress?.port ?? 0) }, logger: logger)
            if stopOnSignals {
                try await app.runService()  // stops gracefully on SIGTERM and SIGINT
            } else {
                try await app.runService(gracefulShutdownSignals: [])
            }
        }
        guard host == "127.0.0.1" else {
            try await serve(host: host, port: port, onBound: onRunning)
            return
        }
        // "localhost" may resolve to ::1 first, so the IPv6 loopback gets a listener on the same
        // port once the IPv4 one is bound; a machine without IPv6 just keeps the IPv4 one.
        let (boundPorts, portContinuation) = AsyncStream.makeStream(of: Int.self)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                // Ending the stream when the listener ends (a busy port fails at once) lets the
                // wait for the bound port below finish, so the error comes out instead of a hang.
                defer { portContinuation.finish() }
                try await serve(host: host, port: port) { bound in portContinuation.yield(bound) }
                return true
            }
            var iterator = boundPorts.makeAsyncIterator()
            if let bound = await iterator.next() {
                group.addTask {
                    do {
                        try await serve(host: "::1", port: bound) { _ in }
                    } catch {
                        logger.warning("not listening on [::1]:\(bound): \(error)")
                    }
                    return false
                }
                await onRunning(bound)
            }
            // The IPv4 listener decides: when it stops (signal, cancellation or error), so does the other.
            while let finishedPrimary = try await group.next() {
                if finishedPrimary { group.cancelAll() }
            }
        }
    }

    static func response(from apiResponse: APIResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in apiResponse.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return Response(status: HTTPResponse.Status(code: apiResponse.status), headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: apiResponse.body)))
    }
}
