import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// Serves a `LocalOrgAPI` over HTTP or HTTPS with Hummingbird. The API does the work; this only
/// converts HTTP messages both ways.
public struct LocalOrgServer: Sendable {
    public struct TLSFiles: Sendable {
        public var certificateChainPath: String
        public var privateKeyPath: String
        /// The CA that signed the chain, sent after it: a client meeting the server for the first
        /// time can then show the CA's fingerprint and trust it (forceterm login does, as SSH does).
        public var authorityPath: String?
        public init(certificateChainPath: String, privateKeyPath: String, authorityPath: String? = nil) {
            self.certificateChainPath = certificateChainPath
            self.privateKeyPath = privateKeyPath
            self.authorityPath = authorityPath
        }
    }

    /// An address the server ended up listening on.
    public struct BoundAddress: Sendable, Equatable {
        public var host: String
        public var port: Int
        /// `https://10.0.0.5:8443`, `https://[::1]:8443`.
        public func url(scheme: String) -> String { "\(scheme)://\(ListenAddress(host: host, port: port))" }
    }

    public let api: LocalOrgAPI
    /// Where to listen; an empty list or `localhost` means both loopback addresses.
    public let listen: [ListenAddress]
    /// The port for addresses given without one; 0 picks a free one.
    public let port: Int
    public let tls: TLSFiles?
    /// Offers HTTP/2 over TLS (by ALPN, as Salesforce does) beside HTTP/1.1: a client sends all its
    /// requests at once on one connection, each with its headers compressed, instead of opening a
    /// connection (and a TLS handshake, a round trip or two) for each request in flight.
    public var offersHTTP2 = true
    /// Log only critical problems (tests stop servers by cancelling, which the server logs as errors).
    public var quiet = false
    /// Called after each request with one line for a console (method, path without the query,
    /// status, milliseconds); never with headers or the query string, so tokens stay out of it.
    public var requestLog: (@Sendable (String) -> Void)?

    public init(api: LocalOrgAPI, listen: [ListenAddress] = [.loopback], port: Int, tls: TLSFiles?) {
        self.api = api
        self.listen = listen
        self.port = port
        self.tls = tls
    }

    /// Runs until cancelled or, when `stopOnSignals`, until SIGTERM or SIGINT arrives; then stops
    /// accepting and finishes requests in flight. `onRunning` gets the first bound port.
    public func run(stopOnSignals: Bool, onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        try await run(stopOnSignals: stopOnSignals) { (bound: [BoundAddress]) in await onRunning(bound.first?.port ?? 0) }
    }

    /// As above; `onListening` gets every address bound, once all are.
    public func run(stopOnSignals: Bool, onListening: @escaping @Sendable ([BoundAddress]) async -> Void) async throws {
        let api = self.api
        let scheme = tls == nil ? "http" : "https"
        let fallbackAuthority = "\(listen.first?.urlHost ?? "localhost"):\(port)"
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
                return Self.response(
                    from: .error(
                        APIError(
                            status: 413, errorCode: "REQUEST_ENTITY_TOO_LARGE",
                            message: "Request body exceeds \(maximumBody) bytes")))
            }
            let authority = request.head.authority ?? headers["host"] ?? fallbackAuthority
            let apiRequest = APIRequest(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                headers: headers, body: body, baseURL: "\(scheme)://\(authority)")
            let started = ContinuousClock.now
            let apiResponse = await api.handle(apiRequest)
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            let entry = RequestLogEntry(
                time: Date(), username: apiResponse.loggedUser, method: apiRequest.method, path: apiRequest.path,
                status: apiResponse.status, inner: apiResponse.innerOutcomes, milliseconds: milliseconds)
            // The trainer's page is left out of the log it shows (each of its own requests would be
            // news to it, and it would ask again), but for a non-admin refused at its door.
            if !LocalOrgAPI.isTrainerPath(apiRequest.path) || apiResponse.status == 403 { await api.events.record(entry) }
            requestLog?(entry.line)
            return Self.response(from: apiResponse)
        }
        let logger = {
            var logger = Logger(label: "localorg")
            logger.logLevel = quiet ? .critical : .warning
            return logger
        }()
        let server: HTTPServerBuilder
        if let tls {
            let chain = try ([tls.certificateChainPath] + (tls.authorityPath.map { [$0] } ?? []))
                .flatMap { try NIOSSLCertificate.fromPEMFile($0) }.map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.privateKeyPath, format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            // Closing a connection waits this long for the client's close_notify; a client idle on a
            // kept-alive connection never sends one, and stopping the server waited 5 s for each.
            configuration.shutdownTimeout = .milliseconds(250)
            if offersHTTP2 {
                // A stopping server waits at most this long for a client to end its streams.
                let http2 = HTTP2UpgradeChannel.Configuration(
                    idleTimeout: .seconds(300), gracefulCloseTimeout: .milliseconds(500),
                    streamConfiguration: .init(additionalChannelHandlers: [EndStreamOnLastFrame.Installer()]))
                server = try .http2Upgrade(tlsConfiguration: configuration, configuration: http2)
            } else {
                server = try .tls(.http1(), tlsConfiguration: configuration)
            }
        } else {
            server = .http1()
        }
        @Sendable func serve(host: String, port: Int, onBound: @escaping @Sendable (Int) async -> Void) async throws {
            let app = Application(
                responder: responder, server: server,
                configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "localorg"),
                onServerRunning: { channel in await onBound(channel.localAddress?.port ?? 0) }, logger: logger)
            if stopOnSignals {
                try await app.runService()  // stops gracefully on SIGTERM and SIGINT
            } else {
                try await app.runService(gracefulShutdownSignals: [])
            }
        }
        // The loopback default is 127.0.0.1 plus ::1 ("localhost" may resolve to either) on the
        // same port; a machine without IPv6 keeps the IPv4 one. Other addresses must all bind.
        var listeners: [(host: String, port: Int?, required: Bool)] = []
        for address in listen.isEmpty ? [.loopback] : listen {
            if address.host == "localhost" || address == .loopback {
                listeners.append((host: "127.0.0.1", port: address.port, required: true))
                // -1: the port its IPv4 twin got, also when that was picked (port 0).
                listeners.append((host: "::1", port: listeners.count == 1 ? -1 : address.port, required: false))
            } else {
                listeners.append((host: address.host, port: address.port, required: true))
            }
        }
        let defaultPort = port
        let (boundPorts, portContinuation) = AsyncStream.makeStream(of: Int.self)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            guard let primary = listeners.first else { return }
            group.addTask {
                // Ending the stream when the listener ends (a busy port fails at once) lets the
                // wait for the bound port below finish, so the error comes out instead of a hang.
                defer { portContinuation.finish() }
                try await serve(host: primary.host, port: primary.port ?? defaultPort) { bound in portContinuation.yield(bound) }
                return true
            }
            var iterator = boundPorts.makeAsyncIterator()
            if let firstPort = await iterator.next() {
                var bound = [BoundAddress(host: primary.host, port: firstPort)]
                // With port 0 the others take the port the first one got, so one port serves all.
                let others = listeners.dropFirst().map { listener in
                    let port = listener.port == -1 ? firstPort : listener.port ?? (defaultPort == 0 ? firstPort : defaultPort)
                    return (host: listener.host, port: port, required: listener.required)
                }
                // Only the required listeners are waited for: the loopback pair's ::1 binds in its
                // own time (a server whose callers wait for the port must not wait on it too).
                let (otherPorts, otherContinuation) = AsyncStream.makeStream(of: BoundAddress?.self)
                let required = others.filter(\.required).count
                for other in others {
                    group.addTask {
                        do {
                            try await serve(host: other.host, port: other.port) { port in
                                if other.required { otherContinuation.yield(BoundAddress(host: other.host, port: port)) }
                            }
                        } catch {
                            if other.required {
                                otherContinuation.yield(nil)
                                throw error
                            }
                            logger.warning("not listening on \(ListenAddress(host: other.host, port: other.port)): \(error)")
                        }
                        return other.required
                    }
                }
                if required == 0 { otherContinuation.finish() }
                var reported = 0
                for await address in otherPorts {
                    if let address { bound.append(address) }
                    reported += 1
                    if reported == required { break }
                }
                await onListening(bound)
            }
            // Any required listener that stops (signal, cancellation or error) stops the others.
            while let finishedRequired = try await group.next() {
                if finishedRequired { group.cancelAll() }
            }
        }
        // A stop by cancellation must still keep the last lines: the write runs outside this task.
        let events = api.events
        await Task { await events.flush() }.value
    }

    static func response(from apiResponse: APIResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in apiResponse.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        if let stream = apiResponse.stream {
            return Response(
                status: HTTPResponse.Status(code: apiResponse.status), headers: fields,
                body: ResponseBody { writer in
                    // Ends when the client goes away (the write fails) or the server stops.
                    for try await chunk in stream.cancelOnGracefulShutdown() { try await writer.write(ByteBuffer(bytes: chunk)) }
                    try await writer.finish(nil)
                })
        }
        return Response(
            status: HTTPResponse.Status(code: apiResponse.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: apiResponse.body)))
    }
}
