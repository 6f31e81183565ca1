import CCurl
import Foundation
import Synchronization

/// HTTP over libcurl's multi interface, driven by one thread of its own (curl's blocking calls
/// never run on Swift's cooperative pool). Requests sent at once travel together: over HTTP/2
/// (Salesforce's, and localorg's) as streams of one connection, so a sync pays one TLS handshake
/// and its requests' headers go compressed; over HTTP/1.1 on kept-alive connections, up to
/// `maxConnections` to a host. Responses are requested gzip- or deflate-compressed and JSON
/// bodies of a kilobyte or more are sent gzip-compressed, TLS verification is on unless the
/// configuration says otherwise, and the standard proxy variables (`https_proxy`, `no_proxy`, …)
/// apply as libcurl reads them.
public final class CurlTransport: Sendable {
    public let configuration: TransportConfiguration
    private let multi: CurlMulti
    private let queue: TransferQueue
    private let share: CurlShare
    private let counters = TransferCounters()
    /// Left by the transport's thread once it has closed its connections and handles.
    private let loopFinished = DispatchGroup()
    private let isShutDown = Atomic<Bool>(false)
    /// How long `shutdown` waits for the transfers in flight and the connections to close.
    static let shutdownWait: DispatchTimeInterval = .seconds(5)

    public init(configuration: TransportConfiguration = TransportConfiguration()) {
        CurlGlobal.ensureInitialized()
        self.configuration = configuration
        share = CurlShare()
        let multi = CurlMulti(maxConnections: configuration.maxConnections)
        self.multi = multi
        queue = TransferQueue(wake: { multi.wake() })
        let loop = CurlMultiLoop(multi: multi, queue: queue, configuration: configuration, share: share, counters: counters)
        let finished = loopFinished
        finished.enter()
        let thread = Thread {
            loop.run()
            finished.leave()
        }
        thread.name = "forceterm-curl"
        thread.start()
    }

    deinit { shutdown() }

    /// Refuses new requests, lets the ones in flight finish and the connections close, and waits
    /// for that (up to a few seconds). Call it before the process exits: a connection freed while
    /// OpenSSL's exit handlers free the same state crashed programs at exit ("double free or
    /// corruption", a signal 11 in libcrypto). Later calls do nothing.
    public func shutdown() {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.close()
        if loopFinished.wait(timeout: .now() + Self.shutdownWait) == .success { share.close() }
    }

    /// What this transport has done so far: connections opened (each a TCP and TLS handshake),
    /// requests sent, and body bytes sent and received as they crossed the network (compressed).
    public var statistics: TransferStatistics { counters.snapshot }

    /// Sends one request and returns the response whatever its status; throws only when no
    /// response arrived (offline, timeout, TLS, cancelled).
    public func send(_ request: HTTPRequest) async throws(ForceAPIError) -> HTTPResponse {
        try await attempt(request).mapError(\.error).get()
    }

    /// Sends one request like `send`, and on failure also says whether the request may have
    /// reached the server, which decides whether a write can safely be sent again.
    public func attempt(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportFailure> {
        let transfer = Transfer(request: request)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>) in
                transfer.continuation.withLock { $0 = continuation }
                if !queue.push(transfer) { transfer.finish(.failure(TransportFailure(.cancelled, requestMayHaveLeft: false))) }
            }
        } onCancel: {
            transfer.cancel()
        }
    }
}

extension CurlTransport {
    /// What every connection needs, for requests and for the trust check's bare handshakes alike:
    /// the URL, no signals, the error text, the connect timeout and how the certificate is checked.
    static func setConnection(
        _ handle: UnsafeMutableRawPointer, url: String, errorBuffer: UnsafeMutablePointer<CChar>,
        configuration: TransportConfiguration, verifies: Bool
    ) {
        forceterm_curl_set_string(handle, CURLOPT_URL, url)
        forceterm_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        forceterm_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        forceterm_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(configuration.connectTimeout))
        // A connection closed after a stall takes the unsent rest of its request with it.
        forceterm_curl_set_reset_on_close(handle)
        forceterm_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, verifies ? 1 : 0)
        forceterm_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, verifies ? 2 : 0)
        if let caFile = configuration.caFile { forceterm_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
    }

    static func isJSON(_ request: HTTPRequest) -> Bool {
        request.headers.contains { $0.name.lowercased() == "content-type" && $0.value.lowercased().hasPrefix("application/json") }
    }

    /// The header block of the final response (after any interim `100 Continue` blocks).
    static func finalHeaders(_ lines: [String]) -> [HTTPHeader] {
        var headers: [HTTPHeader] = []
        for line in lines {
            if line.hasPrefix("HTTP/") {
                headers.removeAll()
            } else if let colon = line.firstIndex(of: ":") {
                headers.append(
                    HTTPHeader(
                        String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                        String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
            }
        }
        return headers
    }

    /// Sorts curl's error codes into the kinds a caller acts on.
    static func classify(
        _ code: CURLcode, handle: UnsafeMutableRawPointer, message: String, url: String,
        configuration: TransportConfiguration, requestStarted: Bool
    ) -> ForceAPIError {
        let host = URLComponents(string: url)?.host ?? "the server"
        let detail = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .offline(.hostNotFound, host: host)
        case CURLE_COULDNT_CONNECT:
            // curl says "could not connect" for all of these; the system's own error (of the last
            // address tried) tells them apart.
            var osError = 0
            forceterm_curl_get_long(handle, CURLINFO_OS_ERRNO, &osError)
            switch Int32(truncatingIfNeeded: osError) {
            case ECONNREFUSED: return .offline(.connectionRefused, host: host)
            case ENETUNREACH, ENETDOWN: return .offline(.networkUnreachable, host: host)
            case EHOSTUNREACH, EHOSTDOWN: return .offline(.hostUnreachable, host: host)
            case ETIMEDOUT: return .offline(.connectTimeout, host: host)
            default: return .offline(.couldNotConnect, host: host)
            }
        case CURLE_OPERATION_TIMEDOUT:
            // Connected, but the TLS handshake never finished within the connect timeout (curl
            // reports no connect time then, so its message tells this case apart).
            if detail.localizedCaseInsensitiveContains("SSL connection timeout") {
                return .timeout(.noAnswer, seconds: configuration.connectTimeout)
            }
            // Bytes stopped moving: asked first, because on a connection kept alive from an earlier
            // request curl reports no connect time either, and a stall there is not "offline".
            if detail.localizedCaseInsensitiveContains("too slow") {
                return .timeout(.stalled, seconds: configuration.stallTimeout)
            }
            var connectSeconds = 0.0
            forceterm_curl_get_double(handle, CURLINFO_CONNECT_TIME, &connectSeconds)
            if connectSeconds == 0 && !requestStarted { return .offline(.connectTimeout, host: host) }
            return .timeout(.deadline, seconds: configuration.requestDeadline)
        case CURLE_PEER_FAILED_VERIFICATION:
            return .tls(detail: "the server's certificate is not trusted (\(detail))")
        case CURLE_SSL_CACERT_BADFILE:
            return .tls(detail: "the CA file \(configuration.caFile ?? "") cannot be read or holds no certificate")
        case CURLE_SSL_CONNECT_ERROR where Self.droppedDuringHandshake(detail):
            // The server went away mid-handshake (killed, a dropped link): a lost connection, not
            // a question of trust; "check the system clock" would send the user the wrong way.
            return .connectionLost(detail: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED:
            return .tls(detail: detail)
        case CURLE_GOT_NOTHING where url.lowercased().hasPrefix("http://"),
            CURLE_RECV_ERROR where url.lowercased().hasPrefix("http://"):
            // Plain HTTP sent to a TLS port: the server hangs up or answers bytes curl cannot read.
            return .connectionLost(detail: "\(detail) from \(host); the server may speak HTTPS only: use https:// in the URL")
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionLost(detail: detail)
        default:
            return .transport(code: Int(code.rawValue), detail: detail)
        }
    }

    /// What curl says when the peer closed or reset the socket during the TLS handshake.
    static func droppedDuringHandshake(_ detail: String) -> Bool {
        ["reset by peer", "SSL_ERROR_SYSCALL", "unexpected eof", "Broken pipe", "Connection refused"].contains {
            detail.localizedCaseInsensitiveContains($0)
        }
    }

    static func milliseconds(_ seconds: Double) -> Int { max(1, Int((seconds * 1000).rounded())) }
}
