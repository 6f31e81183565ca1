import CCurl
import Foundation
import Synchronization

/// HTTP over libcurl easy handles. Each worker thread owns one handle and its kept-alive
/// connections, and a request goes to the worker that finished last, so a sync's requests in a
/// row ride the one connection already open (one TLS handshake per sync on a link where every
/// round trip costs seconds); requests sent at once get workers, and connections, of their own.
/// The handles share TLS sessions and DNS answers (not connections: libcurl does not support
/// sharing those between threads), so a second connection resumes the first one's TLS session.
/// curl's blocking `perform` runs on those threads, never on Swift's cooperative pool. HTTP/2 is
/// used when the server offers it over TLS, responses are requested gzip- or deflate-compressed
/// and JSON bodies of a kilobyte or more are sent gzip-compressed, TLS verification is on unless
/// the configuration says otherwise, and the standard proxy variables (`https_proxy`, `no_proxy`,
/// …) apply as libcurl reads them.
public final class CurlTransport: Sendable {
    public let configuration: TransportConfiguration
    private let queue = TransferQueue()
    private let share: CurlShare
    private let counters = TransferCounters()
    /// Left by each worker once it has cleaned up its handle.
    private let workersFinished = DispatchGroup()
    private let isShutDown = Atomic<Bool>(false)
    /// How long `shutdown` waits for the workers to close their connections.
    static let shutdownWait: DispatchTimeInterval = .seconds(5)

    public init(configuration: TransportConfiguration = TransportConfiguration()) {
        CurlGlobal.ensureInitialized()
        self.configuration = configuration
        share = CurlShare()
        for index in 0..<max(1, configuration.workerCount) {
            let queue = self.queue
            let configuration = self.configuration
            let finished = workersFinished
            let share = self.share
            let counters = self.counters
            finished.enter()
            let thread = Thread {
                CurlWorker(configuration: configuration, share: share, counters: counters).run(queue, worker: index)
                finished.leave()
            }
            thread.name = "forceterm-curl-\(index)"
            thread.start()
        }
    }

    deinit { shutdown() }

    /// Refuses new requests, lets the workers finish theirs and close their connections, and waits
    /// for them (up to a few seconds). Call it before the process exits: a worker freeing its TLS
    /// connections while OpenSSL's exit handlers free the same state crashed programs at exit
    /// ("double free or corruption", a signal 11 in libcrypto). Later calls do nothing.
    public func shutdown() {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.close()
        if workersFinished.wait(timeout: .now() + Self.shutdownWait) == .success { share.close() }
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

/// What curl hands back during one transfer: body bytes and header lines.
final class ResponseSink {
    var body: [UInt8] = []
    var headerLines: [String] = []
    /// Set once curl has a connection ready and is about to write the request on it.
    var requestStarting = false
    let transfer: Transfer

    init(transfer: Transfer) { self.transfer = transfer }
}

/// A worker thread's loop: one easy handle, reused for every transfer so its connections are kept alive.
struct CurlWorker {
    let configuration: TransportConfiguration
    let share: CurlShare
    let counters: TransferCounters

    func run(_ queue: TransferQueue, worker: Int) {
        guard let handle = curl_easy_init() else {
            while let transfer = queue.pop(worker: worker) {
                transfer.finish(.failure(TransportFailure(.transport(code: -1, detail: "libcurl could not create a handle"), requestMayHaveLeft: false)))
            }
            return
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        defer {
            // Detached from the share before the handle (and its connections) go.
            forceterm_curl_set_pointer(handle, CURLOPT_SHARE, nil)
            curl_easy_cleanup(handle)
            errorBuffer.deallocate()
        }
        while let transfer = queue.pop(worker: worker) {
            if transfer.isCancelled {
                transfer.finish(.failure(TransportFailure(.cancelled, requestMayHaveLeft: false)))
                continue
            }
            let result = perform(transfer, handle: handle, errorBuffer: errorBuffer)
            queue.becomingIdle(worker: worker)
            transfer.finish(result)
        }
    }

    private func perform(_ transfer: Transfer, handle: UnsafeMutableRawPointer, errorBuffer: UnsafeMutablePointer<CChar>) -> Result<HTTPResponse, TransportFailure> {
        let request = transfer.request
        // Reset forgets the previous request's options but keeps the connection cache.
        curl_easy_reset(handle)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let sink = ResponseSink(transfer: transfer)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for header in request.headers {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        // No "Expect: 100-continue" round trip before bodies.
        headerList = curl_slist_append(headerList, "Expect:")

        Self.setConnection(handle, url: request.url, errorBuffer: errorBuffer, configuration: configuration,
                           verifies: !configuration.allowsInsecureTLS)
        if let shareHandle = share.handle { forceterm_curl_set_pointer(handle, CURLOPT_SHARE, shareHandle) }
        forceterm_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList)
        forceterm_curl_set_string(handle, CURLOPT_USERAGENT, configuration.userAgent)
        forceterm_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "gzip, deflate")
        forceterm_curl_set_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        forceterm_curl_set_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        forceterm_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        forceterm_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        forceterm_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(configuration.stallTimeout.rounded(.up))))
        forceterm_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(configuration.requestDeadline))

        switch request.method {
        case "GET":
            forceterm_curl_set_long(handle, CURLOPT_HTTPGET, 1)
        case "HEAD":
            forceterm_curl_set_long(handle, CURLOPT_NOBODY, 1)
        default:
            forceterm_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if var body = request.body, !body.isEmpty {
            if configuration.compressesRequestBodies, body.count >= GzipBody.minimumBytes, Self.isJSON(request),
               let compressed = GzipBody.compress(body) {
                body = compressed
                headerList = curl_slist_append(headerList, "Content-Encoding: gzip")
            }
            // COPYPOSTFIELDS copies the bytes, so they need not outlive this call; the size goes first.
            forceterm_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            _ = body.withUnsafeBytes { bytes in
                forceterm_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
        } else if ["POST", "PATCH", "PUT"].contains(request.method) {
            forceterm_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            forceterm_curl_set_string(handle, CURLOPT_COPYPOSTFIELDS, "")
        }

        forceterm_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            data.withMemoryRebound(to: UInt8.self, capacity: length) { sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
            return length
        }
        forceterm_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        forceterm_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            let line = data.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
            sink.headerLines.append(line.trimmingCharacters(in: .whitespacesAndNewlines))
            return length
        }
        forceterm_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
        forceterm_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        forceterm_curl_set_progress_callback(handle) { context, _, _, _, _ in
            guard let context else { return 0 }
            // Non-zero aborts the transfer: this is how cancellation reaches a blocked perform.
            return Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue().transfer.isCancelled ? 1 : 0
        }
        forceterm_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)
        let knowsWhenRequestStarts = forceterm_curl_set_prereq_callback(handle, { context, _, _, _, _ in
            guard let context else { return 0 }
            Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue().requestStarting = true
            return 0
        }, context) == CURLE_OK

        let code = curl_easy_perform(handle)
        var connections = 0
        var sent: curl_off_t = 0
        var received: curl_off_t = 0
        forceterm_curl_get_long(handle, CURLINFO_NUM_CONNECTS, &connections)
        forceterm_curl_get_offset(handle, CURLINFO_SIZE_UPLOAD_T, &sent)
        forceterm_curl_get_offset(handle, CURLINFO_SIZE_DOWNLOAD_T, &received)
        counters.add(connections: connections, sent: Int(sent), received: Int(received))
        guard code == CURLE_OK else {
            // Nothing of the request was written unless curl called the pre-request callback (its
            // documented point "before any request is actually made on the connection"). With an
            // older libcurl that lacks it, any request may have left.
            var pretransfer: curl_off_t = 0
            forceterm_curl_get_offset(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
            let mayHaveLeft = knowsWhenRequestStarts ? sink.requestStarting : true
            let error = Self.classify(code, handle: handle, message: String(cString: errorBuffer), url: request.url,
                                      configuration: configuration,
                                      requestStarted: knowsWhenRequestStarts ? sink.requestStarting : pretransfer > 0)
            return .failure(TransportFailure(error, requestMayHaveLeft: mayHaveLeft))
        }
        var status = 0
        forceterm_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponse(status: status, headers: Self.finalHeaders(sink.headerLines), body: sink.body,
                                     transferred: (sent: Int(sent), received: Int(received))))
    }

    /// What every connection needs, for requests and for the trust check's bare handshakes alike:
    /// the URL, no signals, the error text, the connect timeout and how the certificate is checked.
    static func setConnection(_ handle: UnsafeMutableRawPointer, url: String, errorBuffer: UnsafeMutablePointer<CChar>,
                              configuration: TransportConfiguration, verifies: Bool) {
        forceterm_curl_set_string(handle, CURLOPT_URL, url)
        forceterm_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        forceterm_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        forceterm_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(configuration.connectTimeout))
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
                headers.append(HTTPHeader(String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                                          String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
            }
        }
        return headers
    }

    /// Sorts curl's error codes into the kinds a caller acts on.
    static func classify(_ code: CURLcode, handle: UnsafeMutableRawPointer, message: String, url: String,
                         configuration: TransportConfiguration, requestStarted: Bool) -> ForceAPIError {
        let host = URLComponents(string: url)?.host ?? "the server"
        let detail = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .offline(.hostNotFound, host: host)
        case CURLE_COULDNT_CONNECT:
            return .offline(.connectionRefused, host: host)
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
