import ForceAPI
import ForceJSON
import Foundation
import LocalOrgProcess
import Testing

@Suite("Network failures become errors a caller can act on", .serialized)
struct NetworkFailureTests {
    @Test("A stopped server is reported as offline, quickly")
    func serverStopped() async throws {
        var policy = RetryPolicy()
        policy.offlineBudget = 2
        // Only the budget may stop the retries: ignoring it would take a hundred attempts, minutes.
        policy.maximumAttempts = 100
        let org = try await SignedInOrg(retryPolicy: policy)
        defer { org.remove() }
        org.server.stop()
        // Held, so that no server another suite starts meanwhile takes the port (a silent one
        // there made the client wait for handshakes instead of being refused).
        let closed = try #require(ClosedPort(port: org.server.port), "the stopped server's port was taken at once")
        defer { withExtendedLifetime(closed) {} }
        let started = Date()
        let error = await forceError { try await org.client.query("SELECT Id FROM Contact") }
        let elapsed = Date().timeIntervalSince(started)
        guard case let .offline(reason, host) = error else {
            Issue.record("expected offline, got \(String(describing: error))")
            return
        }
        #expect(reason == .connectionRefused)
        #expect(host == "127.0.0.1")
        // About two seconds alone; a CI run of every suite at once on two cores has taken 37 s. A
        // client that ignored the budget would make its hundred attempts, 2 s apart on average.
        #expect(elapsed < 120, "took \(elapsed) s")
        let attempts = org.log.lines.filter { $0.contains("failed:") }.count
        #expect(attempts >= 1 && attempts < 20, "\(org.log.lines)")
        #expect(error?.isOffline == true)
    }

    @Test("A server that accepts the connection and never answers times out")
    func silentServer() async throws {
        let listener = try SilentListener()
        var configuration = TransportConfiguration()
        configuration.connectTimeout = 1
        configuration.stallTimeout = 1
        configuration.requestDeadline = 5
        let transport = CurlTransport(configuration: configuration)
        let started = Date()
        let tlsError = await forceError { try await transport.send(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(listener.port)/services/data/")) }
        guard case let .timeout(kind, _) = tlsError else {
            Issue.record("expected a timeout, got \(String(describing: tlsError))")
            return
        }
        #expect(kind == .noAnswer)
        let plainError = await forceError { try await transport.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(listener.port)/services/data/")) }
        guard case let .timeout(plainKind, _) = plainError else {
            Issue.record("expected a timeout, got \(String(describing: plainError))")
            return
        }
        #expect(plainKind == .stalled)
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test("A server that resets the connection during the TLS handshake (killed mid-sync) is a lost connection, not a trust problem")
    func resetDuringHandshake() async throws {
        let listener = try ResettingListener()
        var configuration = TransportConfiguration()
        configuration.connectTimeout = 2
        configuration.requestDeadline = 5
        let transport = CurlTransport(configuration: configuration)
        let error = await forceError { try await transport.send(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(listener.port)/services/data/")) }
        guard case .connectionLost = error else {
            Issue.record("expected a lost connection, got \(String(describing: error))")
            return
        }
    }

    @Test("A request given up on after a stall is dropped with its connection, not delivered whole once the server reads again")
    func stalledRequestNeverArrivesLater() async throws {
        // A server whose window takes a kilobyte or two: most of the request waits in the client's
        // kernel, as on a link that went dead, while the client has handed it all over and waits.
        let listener = try SilentListener(receiveBuffer: 1024)
        var configuration = TransportConfiguration()
        configuration.stallTimeout = 1
        configuration.requestDeadline = 30
        let transport = CurlTransport(configuration: configuration)
        let body = [UInt8](repeating: 0x61, count: 8192)
        let error = await forceError {
            try await transport.send(
                HTTPRequest(
                    method: "POST", url: "http://127.0.0.1:\(listener.port)/services/data/v60.0/sobjects/Contact",
                    headers: [HTTPHeader("Content-Type", "application/octet-stream")], body: body))
        }
        guard case .timeout(.stalled, _) = error else {
            Issue.record("expected a stall, got \(String(describing: error))")
            return
        }
        // The server wakes up: a connection closed gracefully would now deliver the rest of the
        // request (the kernel sends what it holds, then the end), and a server would act on it.
        let received = listener.readFirstConnection(timeout: 5)
        #expect(received >= 0 && received < body.count, "\(received) of \(body.count) bytes arrived after the client gave up")
    }

    @Test("localorg stops within seconds of SIGTERM though a client that vanished mid-handshake holds a connection")
    func serverStopsDespiteAbandonedHandshake() throws {
        let server = try LocalOrgProcess()
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        // The first bytes of a TLS ClientHello, and then nothing: a laptop gone from the network.
        let start: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0xC8]
        #expect(write(descriptor, start, start.count) == start.count)
        usleep(300_000)
        let stopping = Date()
        server.stop()
        #expect(Date().timeIntervalSince(stopping) < 15, "stopped by the deadline, not by stop()'s SIGKILL after 20 s")
        let output = (try? String(contentsOfFile: server.dataDirectory + "/serve-output.txt", encoding: .utf8)) ?? ""
        #expect(output.contains("stopped anyway"), "\(output)")
    }

    @Test("A host name that does not resolve is offline (host not found)")
    func unknownHost() async throws {
        var configuration = TransportConfiguration()
        configuration.connectTimeout = 2
        let transport = CurlTransport(configuration: configuration)
        // .invalid never resolves (RFC 6761), so no lookup leaves the machine with an answer.
        let error = await forceError { try await transport.send(HTTPRequest(method: "GET", url: "https://forceterm-test.invalid/services/data/")) }
        guard case .offline = error else {
            Issue.record("expected offline, got \(String(describing: error))")
            return
        }
    }

    @Test("A certificate from an untrusted CA is refused with a clear message")
    func untrustedCertificate() async throws {
        let server = try await LocalOrgProcess()
        defer { server.remove() }
        let oauth = OAuthClient(loginURL: server.url, transport: CurlTransport(configuration: SignedInOrg.configuration(caFile: nil)))
        let error = await forceError { try await oauth.signIn(username: SignedInOrg.username, password: SignedInOrg.password) }
        guard case let .tls(detail) = error else {
            Issue.record("expected a TLS error, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("not trusted"))
        #expect("\(String(describing: error))".contains("--cacert"))
    }

    @Test("503 then success: an idempotent request is retried with backoff")
    func retriedAfter503() async throws {
        let org = try await SignedInOrg(serverArguments: ["--fail-first", "2"])
        defer { org.remove() }
        let page = try await org.client.query("SELECT Id FROM Account LIMIT 1")
        #expect(page.done)
        let queryLines = org.log.lines.filter { $0.hasPrefix("GET ") && $0.contains("/query/") }
        #expect(queryLines.count == 3, "\(org.log.lines)")
        #expect(queryLines.prefix(2).allSatisfy { $0.contains(" 503 ") })
        #expect(queryLines.last?.contains(" 200 ") == true)
    }

    @Test("A create is never retried blindly: 503 comes back as a server error")
    func createNotRetried() async throws {
        let org = try await SignedInOrg(serverArguments: ["--fail-first", "1"])
        defer { org.remove() }
        let error = await forceError { try await org.client.create("Contact", fields: ["LastName": "Once"]) }
        guard case let .server(status, errors) = error else {
            Issue.record("expected a server error, got \(String(describing: error))")
            return
        }
        #expect(status == 503)
        #expect(errors.first?.errorCode == "SERVER_UNAVAILABLE")
        #expect(org.log.lines.filter { $0.hasPrefix("POST ") }.count == 1)
        // The next create goes through, and only one record exists.
        _ = try await org.client.create("Contact", fields: ["LastName": "Once"])
        #expect(try await org.client.query("SELECT Id FROM Contact WHERE LastName = 'Once'").totalSize == 1)
    }

    @Test("Responses arrive gzip-compressed and are decoded")
    func gzipResponses() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let response = try await org.client.send("GET", "sobjects/Contact/describe/")
        #expect(response.header("Content-Encoding") == "gzip")
        let describe = try JSONParser.parse(response.body)
        #expect(describe["name"] == .string("Contact"))
    }

    @Test("Cancelling a request in flight ends it with cancelled")
    func cancelInFlight() async throws {
        let listener = try SilentListener()
        let transport = CurlTransport(configuration: TransportConfiguration())
        let request = Task { try await transport.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(listener.port)/")) }
        try await Task.sleep(for: .milliseconds(200))
        request.cancel()
        let result = await request.result
        guard case let .failure(error) = result else {
            Issue.record("expected cancellation")
            return
        }
        #expect(error as? ForceAPIError == .cancelled)
    }
}

extension NetworkFailureTests {
    @Test("A link with a 2.4 s round trip (a congested 3G or satellite link) still signs in and queries: the handshake's three round trips fit the connect timeout")
    func slowLinkCompletes() async throws {
        let server = try await LocalOrgProcess()
        defer { server.remove() }
        let relay = try DelayingRelay(targetPort: server.port, delay: 1.2)
        // The defaults a laptop runs with, not the tests' own longer timeouts.
        let transport = CurlTransport(configuration: TransportConfiguration(caFile: server.caFile))
        let url = "https://127.0.0.1:\(relay.port)"
        let started = Date()
        let oauth = OAuthClient(loginURL: url, transport: transport)
        let token = try await oauth.signIn(username: SignedInOrg.username, password: SignedInOrg.password)
        let identity = try await oauth.identity(of: token)
        #expect(token.instanceURL == url, "the org answers with the address the client used")
        let credentials = OAuthCredentials(loginURL: url, clientId: OAuthClient.defaultClientId, token: token, identity: identity, caFile: server.caFile)
        let page = try await ForceClient(credentials: credentials, transport: transport).query("SELECT Id, Username FROM User")
        #expect(!page.records.isEmpty)
        #expect(Date().timeIntervalSince(started) > 2.4, "the relay held every request and answer")
    }

    @Test("A handshake that never finished is tried twice more, a create too since nothing of it left; a create that left is not")
    func timeoutsRetried() {
        let policy = RetryPolicy()
        let noAnswer = ForceAPIError.timeout(.noAnswer, seconds: 15)
        #expect(policy.shouldRetry(after: noAnswer, attempt: 1, elapsed: 15, idempotent: true, nextDelay: 0.2))
        #expect(policy.shouldRetry(after: noAnswer, attempt: 2, elapsed: 30, idempotent: true, nextDelay: 0.4))
        #expect(!policy.shouldRetry(after: noAnswer, attempt: 3, elapsed: 45, idempotent: true, nextDelay: 0.4))
        #expect(!policy.shouldRetry(after: noAnswer, attempt: 1, elapsed: 15, idempotent: false, nextDelay: 0.2))
        #expect(policy.shouldRetry(after: noAnswer, attempt: 1, elapsed: 15, idempotent: false, nextDelay: 0.2, requestMayHaveLeft: false))
        #expect(
            policy.shouldRetry(
                after: .connectionLost(detail: "reset"), attempt: 1, elapsed: 1, idempotent: false, nextDelay: 0.2,
                requestMayHaveLeft: false))
        #expect(!policy.shouldRetry(after: .connectionLost(detail: "reset"), attempt: 1, elapsed: 1, idempotent: false, nextDelay: 0.2))
        #expect(!policy.shouldRetry(after: .timeout(.stalled, seconds: 20), attempt: 1, elapsed: 20, idempotent: false, nextDelay: 0.2))
        #expect(policy.shouldRetry(after: .timeout(.stalled, seconds: 20), attempt: 1, elapsed: 20, idempotent: true, nextDelay: 0.2))
        #expect(!policy.shouldRetry(after: .timeout(.deadline, seconds: 120), attempt: 1, elapsed: 120, idempotent: true, nextDelay: 0.2))
    }

    @Test("A link that went silent mid-transfer is waited for up to the drop budget; a dead one is not")
    func stalledLinkWaitedFor() {
        let policy = RetryPolicy()
        let stalled = ForceAPIError.timeout(.stalled, seconds: 20)
        let noRoute = ForceAPIError.offline(.connectTimeout, host: "10.99.0.2")
        // Stalled at 20 s, then the reconnect found no route for 15 s: still within the budget.
        #expect(policy.shouldRetry(after: noRoute, attempt: 2, elapsed: 35, idempotent: true, nextDelay: 0.5, afterStall: true))
        #expect(policy.shouldRetry(after: .timeout(.noAnswer, seconds: 15), attempt: 2, elapsed: 35, idempotent: true, nextDelay: 0.5, afterStall: true))
        #expect(policy.shouldRetry(after: stalled, attempt: 2, elapsed: 45, idempotent: true, nextDelay: 0.5, afterStall: true))
        // Beyond the budget, beyond the attempts, or never connected: given up as before.
        #expect(!policy.shouldRetry(after: noRoute, attempt: 2, elapsed: 75, idempotent: true, nextDelay: 0.5, afterStall: true))
        #expect(!policy.shouldRetry(after: noRoute, attempt: 4, elapsed: 40, idempotent: true, nextDelay: 0.5, afterStall: true))
        #expect(!policy.shouldRetry(after: noRoute, attempt: 1, elapsed: 15, idempotent: true, nextDelay: 0.2))
        #expect(!policy.shouldRetry(after: stalled, attempt: 1, elapsed: 20, idempotent: false, nextDelay: 0.2))
        // A link that refuses at once after the stall: the retries still span half a minute.
        let waits = (0..<3).map { policy.delayAfterStall(beforeRetry: $0) }
        #expect(waits.reduce(0, +) >= 25 && waits.reduce(0, +) < policy.linkDropBudget - 20, "\(waits)")
    }
}

extension NetworkFailureTests {
    /// A client of `org` whose requests go through `relay` on a transport of its own (so its first
    /// request needs a new connection), with a three-second handshake limit.
    private static func client(
        of org: SignedInOrg, through relay: DelayingRelay, stallTimeout: Double = 30,
        log: LineLog
    ) async -> (ForceClient, CurlTransport) {
        var configuration = SignedInOrg.configuration(caFile: org.server.caFile)
        configuration.connectTimeout = 3
        configuration.stallTimeout = stallTimeout
        let transport = CurlTransport(configuration: configuration)
        var credentials = await org.client.credentials
        credentials.instanceURL = "https://127.0.0.1:\(relay.port)"
        return (ForceClient(credentials: credentials, transport: transport, requestLog: { log.append($0) }), transport)
    }

    @Test("After a connection went dead under a request (a tunnel), the request is sent again on a new connection, not on the dead one HTTP/2 would keep")
    func deadConnectionIsNotReused() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let relay = try DelayingRelay(targetPort: org.server.port, delay: 0)
        let log = LineLog()
        let (client, transport) = await Self.client(of: org, through: relay, stallTimeout: 1, log: log)
        defer { transport.shutdown() }
        _ = try await client.query("SELECT COUNT() FROM Contact")
        let opened = transport.statistics.connectionsOpened
        relay.silenceOpenConnections()
        // Stalls on the dead connection, then goes again on a fresh one and is answered.
        let page = try await client.query("SELECT Id FROM User")
        #expect(!page.records.isEmpty)
        #expect(transport.statistics.connectionsOpened == opened + 1, "\(transport.statistics) \(log.lines)")
        #expect(log.lines.contains { $0.contains("failed") && $0.contains("stalled") }, "\(log.lines)")
    }

    @Test("Requests waiting for a connection that never comes up end at once when cancelled, not when the connect timeout frees them")
    func waitingRequestsAreCancelledAtOnce() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let relay = try DelayingRelay(targetPort: org.server.port, delay: 0, silentConnections: 10)
        var configuration = SignedInOrg.configuration(caFile: org.server.caFile)
        configuration.connectTimeout = 30
        let transport = CurlTransport(configuration: configuration)
        defer { transport.shutdown() }
        let url = "https://127.0.0.1:\(relay.port)/services/data"
        // The first request holds the connection attempt (its handshake never answered); the
        // next two wait inside curl for that connection, to multiplex on it.
        let connecting = Task { await transport.attempt(HTTPRequest(method: "GET", url: url)) }
        try await Task.sleep(for: .milliseconds(300))
        let waiting = (0..<2).map { _ in Task { await transport.attempt(HTTPRequest(method: "GET", url: url)) } }
        try await Task.sleep(for: .milliseconds(500))
        let cancelled = ContinuousClock.now
        for task in waiting { task.cancel() }
        for task in waiting {
            let result = await task.value
            guard case let .failure(failure) = result else {
                Issue.record("expected a cancellation, got \(result)")
                continue
            }
            #expect(failure.error == .cancelled && !failure.requestMayHaveLeft, "\(failure)")
        }
        // Long before the 30 s connect timeout would have let curl look at them.
        #expect(ContinuousClock.now - cancelled < .seconds(10))
        connecting.cancel()
        _ = await connecting.value
    }

    @Test("A create whose TLS handshake never finished (its packets lost) is sent on a new connection and made once")
    func unsentCreateSentAgain() async throws {
        let org = try await SignedInOrg()
        defer { org.remove() }
        let relay = try DelayingRelay(targetPort: org.server.port, delay: 0, silentConnections: 1)
        let log = LineLog()
        let (client, transport) = await Self.client(of: org, through: relay, log: log)
        defer { transport.shutdown() }
        let id = try await client.create("Contact", fields: ["LastName": "Handshake"])
        // The silent connection's attempt, then the real one (again if a loaded machine made
        // even that handshake miss its limit): every attempt before the last one not sent.
        let posts = log.lines.filter { $0.hasPrefix("POST ") }
        #expect(posts.count >= 2, "\(posts)")
        #expect(posts.first?.contains("never answered") == true, "\(posts)")
        #expect(posts.dropLast().allSatisfy { $0.contains("not sent") }, "\(posts)")
        #expect(posts.last?.contains(" 201 ") == true, "\(posts)")
        let made = try await org.client.query("SELECT Id FROM Contact WHERE LastName = 'Handshake'")
        #expect(made.totalSize == 1)
        #expect(made.records.first?["Id"]?.stringValue == id)
    }

    @Test("A create that left but whose answer stalled is not sent again: the caller hears of it and nothing is doubled")
    func sentCreateNotSentAgain() async throws {
        // curl judges the speed over its last few seconds, so a one-second stall limit trips after
        // ~5 s; the server holds its answer well beyond that.
        let org = try await SignedInOrg(serverArguments: ["--latency", "12000"])
        defer { org.remove() }
        let relay = try DelayingRelay(targetPort: org.server.port, delay: 0)
        let log = LineLog()
        let (client, transport) = await Self.client(of: org, through: relay, stallTimeout: 1, log: log)
        defer { transport.shutdown() }
        let error = await forceError { try await client.create("Contact", fields: ["LastName": "Stalled"]) }
        guard case .timeout(.stalled, _) = error else {
            Issue.record("expected a stall, got \(String(describing: error))")
            return
        }
        #expect(log.lines.filter { $0.hasPrefix("POST ") }.count == 1, "\(log.lines)")
        // The query waits out the server's latency too, so the create, if it was made, is there by then.
        #expect(try await org.client.query("SELECT Id FROM Contact WHERE LastName = 'Stalled'").totalSize <= 1)
    }
}
