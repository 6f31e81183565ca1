import CCurl
import Foundation

/// A curl multi handle: the connections (and their cache) every transfer shares.
final class CurlMulti: @unchecked Sendable {
    // Unchecked: the handle is used by the transport's thread alone, but for `wake`, which
    // libcurl allows from any thread, and which the queue never calls once that thread has
    // seen it closed (and so may have freed the handle).
    let handle: UnsafeMutableRawPointer?

    init(maxConnections: Int) {
        handle = curl_multi_init()
        guard let handle else { return }
        forceterm_curl_multi_set_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        forceterm_curl_multi_set_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxConnections))
        forceterm_curl_multi_set_long(handle, CURLMOPT_MAXCONNECTS, max(1, maxConnections))
    }

    /// Ends the thread's wait on its sockets, so a new transfer or a close is seen at once.
    func wake() {
        if let handle { curl_multi_wakeup(handle) }
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

/// One transfer in the multi handle, with what must live as long as it does.
final class RunningTransfer {
    let transfer: Transfer
    let handle: UnsafeMutableRawPointer
    let sink: ResponseSink
    let startedAt = ContinuousClock.now
    /// `https://host:port`: transfers to one server wait for the same connection.
    let origin: String
    let errorBuffer: UnsafeMutablePointer<CChar>
    var headerList: UnsafeMutablePointer<curl_slist>?
    var knowsWhenRequestStarts = false

    init(transfer: Transfer, handle: UnsafeMutableRawPointer) {
        self.transfer = transfer
        self.handle = handle
        sink = ResponseSink(transfer: transfer)
        let url = URLComponents(string: transfer.request.url)
        origin = "\(url?.scheme ?? "")://\(url?.host ?? ""):\(url?.port.map(String.init) ?? "")"
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }
}

/// The transport's thread: takes transfers from the queue into the multi handle, drives them,
/// and hands each its result. Easy handles are kept for reuse; connections live in the multi.
struct CurlMultiLoop: @unchecked Sendable {
    // Unchecked: everything here is handed to the one thread that runs `run`.
    let multi: CurlMulti
    let queue: TransferQueue
    let configuration: TransportConfiguration
    let share: CurlShare
    let counters: TransferCounters
    /// The longest the thread sleeps on its sockets: how soon a cancelled transfer is noticed.
    static let pollMilliseconds: Int32 = 100
    static let idleMilliseconds: Int32 = 60_000
    /// The codes of a transfer whose connection went silent or broke under it.
    static let linkFailures: Set<UInt32> = Set(
        [
            CURLE_OPERATION_TIMEDOUT, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING,
        ].map(\.rawValue))

    func run() {
        guard let multiHandle = multi.handle else {
            failEverything(detail: "libcurl could not create a multi handle")
            return
        }
        var running: [UnsafeMutableRawPointer: RunningTransfer] = [:]
        var spare: [UnsafeMutableRawPointer] = []
        // When a transfer last failed on the link (a stall, a broken connection). Over HTTP/2 a
        // stalled stream is reset and its connection kept; a request sent again after a dropped
        // link would wait on that dead connection for another stall. So no connection opened
        // before the failure is reused after it: the next request opens a fresh one.
        var lastLinkFailure: ContinuousClock.Instant?

        /// Takes a transfer out of the multi handle and hands it its result.
        func end(_ handle: UnsafeMutableRawPointer, with result: Result<HTTPResponse, TransportFailure>) {
            guard let ended = running.removeValue(forKey: handle) else { return }
            curl_multi_remove_handle(multiHandle, handle)
            spare.append(handle)
            ended.transfer.finish(result)
        }

        while true {
            let (incoming, closed) = queue.takeAll()
            for transfer in incoming {
                if transfer.isCancelled {
                    transfer.finish(.failure(TransportFailure(.cancelled, requestMayHaveLeft: false)))
                    continue
                }
                guard let handle = spare.popLast() ?? curl_easy_init() else {
                    transfer.finish(.failure(TransportFailure(.transport(code: -1, detail: "libcurl could not create a handle"), requestMayHaveLeft: false)))
                    continue
                }
                let started = start(transfer, handle: handle)
                if let lastLinkFailure {
                    let since = ContinuousClock.now - lastLinkFailure
                    forceterm_curl_set_long(handle, CURLOPT_MAXLIFETIME_CONN, max(1, Int(since.components.seconds)))
                    // Curl reuses a connection still carrying streams whatever its age: while one
                    // from before the failure runs, a new transfer opens a connection of its own.
                    if running.values.contains(where: { $0.startedAt < lastLinkFailure }) {
                        forceterm_curl_set_long(handle, CURLOPT_FRESH_CONNECT, 1)
                    }
                }
                guard curl_multi_add_handle(multiHandle, handle) == CURLM_OK else {
                    spare.append(handle)
                    transfer.finish(.failure(TransportFailure(.transport(code: -1, detail: "libcurl could not start the transfer"), requestMayHaveLeft: false)))
                    continue
                }
                running[handle] = started
            }
            if closed && running.isEmpty { break }
            var stillRunning: Int32 = 0
            curl_multi_perform(multiHandle, &stillRunning)
            var doneHandle: UnsafeMutableRawPointer?
            var code = CURLE_OK
            while forceterm_curl_multi_next_done(multiHandle, &doneHandle, &code) == 1 {
                guard let handle = doneHandle, let finished = running[handle] else { continue }
                let result = complete(finished, code: code)
                if Self.linkFailures.contains(code.rawValue) { lastLinkFailure = .now }
                end(handle, with: result)
                // No connection to the server came up: the transfers waiting for one fail with it
                // now (nothing of them left), rather than each waiting out the connect timeout in turn.
                if case let .failure(failure) = result, Self.neverConnected(failure) {
                    for (other, waiting) in running where !waiting.sink.requestStarting && waiting.origin == finished.origin {
                        end(other, with: .failure(TransportFailure(failure.error, requestMayHaveLeft: false)))
                    }
                }
            }
            // Curl neither cancels nor times out a transfer still waiting for a connection.
            let now = ContinuousClock.now
            let overdue = Duration.milliseconds(CurlTransport.milliseconds(configuration.requestDeadline) + 1000)
            for (handle, waiting) in running {
                if waiting.transfer.isCancelled {
                    end(handle, with: .failure(TransportFailure(.cancelled, requestMayHaveLeft: waiting.sink.requestStarting)))
                } else if now - waiting.startedAt > overdue {
                    end(
                        handle,
                        with: .failure(
                            TransportFailure(
                                .timeout(.deadline, seconds: configuration.requestDeadline),
                                requestMayHaveLeft: waiting.sink.requestStarting)))
                }
            }
            // Idle, it sleeps until `wake` (a new transfer, or the close): no wakeups on a laptop's battery.
            curl_multi_poll(multiHandle, nil, 0, running.isEmpty && !closed ? Self.idleMilliseconds : Self.pollMilliseconds, nil)
        }
        for handle in spare {
            // Detached from the share before the handle goes.
            forceterm_curl_set_pointer(handle, CURLOPT_SHARE, nil)
            curl_easy_cleanup(handle)
        }
        curl_multi_cleanup(multiHandle)
    }

    /// A failure before any connection to the server was up: unknown host, refused, no answer to
    /// the connection attempt or a TLS handshake that never finished.
    static func neverConnected(_ failure: TransportFailure) -> Bool {
        guard !failure.requestMayHaveLeft else { return false }
        switch failure.error {
        case .offline, .timeout(.noAnswer, _): return true
        default: return false
        }
    }

    private func failEverything(detail: String) {
        while true {
            let (transfers, closed) = queue.takeAll()
            for transfer in transfers {
                transfer.finish(.failure(TransportFailure(.transport(code: -1, detail: detail), requestMayHaveLeft: false)))
            }
            if closed { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Sets a handle up for one transfer.
    private func start(_ transfer: Transfer, handle: UnsafeMutableRawPointer) -> RunningTransfer {
        let request = transfer.request
        // Reset forgets the previous request's options; connections belong to the multi handle.
        curl_easy_reset(handle)
        let running = RunningTransfer(transfer: transfer, handle: handle)
        let context = Unmanaged.passUnretained(running.sink).toOpaque()
        var headerList: UnsafeMutablePointer<curl_slist>?
        for header in request.headers {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        // No "Expect: 100-continue" round trip before bodies.
        headerList = curl_slist_append(headerList, "Expect:")

        CurlTransport.setConnection(
            handle, url: request.url, errorBuffer: running.errorBuffer, configuration: configuration,
            verifies: !configuration.allowsInsecureTLS)
        if let shareHandle = share.handle { forceterm_curl_set_pointer(handle, CURLOPT_SHARE, shareHandle) }
        forceterm_curl_set_string(handle, CURLOPT_USERAGENT, configuration.userAgent)
        forceterm_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "gzip, deflate")
        forceterm_curl_set_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Started together with others before any connection exists: wait for the first one to
        // say whether it multiplexes (HTTP/2) rather than open a connection each.
        forceterm_curl_set_long(handle, CURLOPT_PIPEWAIT, 1)
        forceterm_curl_set_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        if getenv("FORCETERM_CURL_VERBOSE") != nil { forceterm_curl_set_long(handle, CURLOPT_VERBOSE, 1) }
        forceterm_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        forceterm_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        forceterm_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(configuration.stallTimeout.rounded(.up))))
        forceterm_curl_set_long(handle, CURLOPT_TIMEOUT_MS, CurlTransport.milliseconds(configuration.requestDeadline))

        switch request.method {
        case "GET":
            forceterm_curl_set_long(handle, CURLOPT_HTTPGET, 1)
        case "HEAD":
            forceterm_curl_set_long(handle, CURLOPT_NOBODY, 1)
        default:
            forceterm_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if var body = request.body, !body.isEmpty {
            if configuration.compressesRequestBodies, body.count >= GzipBody.minimumBytes, CurlTransport.isJSON(request),
                let compressed = GzipBody.compress(body)
            {
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
        running.headerList = headerList
        forceterm_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList)

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
            // Non-zero aborts the transfer: this is how cancellation reaches it.
            return Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue().transfer.isCancelled ? 1 : 0
        }
        forceterm_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)
        running.knowsWhenRequestStarts =
            forceterm_curl_set_prereq_callback(
                handle,
                { context, _, _, _, _ in
                    guard let context else { return 0 }
                    Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue().requestStarting = true
                    return 0
                }, context) == CURLE_OK
        return running
    }

    /// The result of a finished transfer, counted in the statistics.
    private func complete(_ running: RunningTransfer, code: CURLcode) -> Result<HTTPResponse, TransportFailure> {
        let handle = running.handle
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
            let mayHaveLeft = running.knowsWhenRequestStarts ? running.sink.requestStarting : true
            let error = CurlTransport.classify(
                code, handle: handle, message: String(cString: running.errorBuffer),
                url: running.transfer.request.url, configuration: configuration,
                requestStarted: running.knowsWhenRequestStarts ? running.sink.requestStarting : pretransfer > 0)
            return .failure(TransportFailure(error, requestMayHaveLeft: mayHaveLeft))
        }
        var status = 0
        forceterm_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(
            HTTPResponse(
                status: status, headers: CurlTransport.finalHeaders(running.sink.headerLines), body: running.sink.body,
                transferred: (sent: Int(sent), received: Int(received))))
    }
}
