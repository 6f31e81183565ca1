import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Lines a server logged, collected across threads.
final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []
    func append(_ line: String) { lock.withLock { collected.append(line) } }
    var lines: [String] { lock.withLock { collected } }
}

/// A real localorg server on 127.0.0.1 and an ephemeral port, stopped by cancelling its task.
struct RunningServer {
    let task: Task<Void, any Error>
    let port: Int
    let org: TestOrg

    static func start(tls: Bool, log: RequestLog = RequestLog(), maximumBodyBytes: Int = 8 * 1024 * 1024) async throws -> RunningServer {
        let org = try await TestOrg(maximumBodyBytes: maximumBodyBytes)
        var files: LocalOrgServer.TLSFiles?
        if tls {
            let authority = LocalCertificateAuthority(directory: org.directory)
            try authority.ensureCertificates()
            files = .init(certificateChainPath: authority.serverCertificatePath, privateKeyPath: authority.serverKeyPath)
        }
        var server = LocalOrgServer(api: org.api, port: 0, tls: files)
        server.quiet = true
        server.requestLog = { line in log.append(line) }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run(stopOnSignals: false) { port in continuation.yield(port) } }
        let port = await withTaskGroup(of: Int?.self) { group in
            group.addTask {
                for await port in ports { return port }
                return nil
            }
            // Generous: the server's start runs on Swift's cooperative pool, which two other tests
            // blocking in child processes or tmux (synchronous waits) can hold for tens of seconds.
            group.addTask {
                try? await Task.sleep(for: .seconds(120))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let port else {
            task.cancel()
            throw TestFailure("server did not start within 120 s")
        }
        return RunningServer(task: task, port: port, org: org)
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        org.remove()
    }
}

@Suite(.serialized) struct HTTPServerTests {
    @Test func plainHTTPServesTheAPIEndToEnd() async throws {
        let log = RequestLog()
        let server = try await RunningServer.start(tls: false, log: log)
        let base = "http://127.0.0.1:\(server.port)"
        do {
            // The server runs in this test process, beside every other suite: on a CI machine's two
            // cores a request of this test has waited longer than its 30 s, so the waits are long.
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 180
            let session = URLSession(configuration: configuration)
            var request = URLRequest(url: try #require(URL(string: "\(base)/services/oauth2/token")))
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("grant_type=password&client_id=forceterm&username=demo%40localorg.test&password=localorg-demo".utf8)
            let (tokenData, tokenResponse) = try await session.data(for: request)
            #expect((tokenResponse as? HTTPURLResponse)?.statusCode == 200)
            let token = try #require(try JSONParser.parse(tokenData)["access_token"]?.stringValue)
            #expect(try JSONParser.parse(tokenData)["instance_url"] == .string("http://127.0.0.1:\(server.port)"))

            var create = URLRequest(url: try #require(URL(string: "\(base)/services/data/v59.0/sobjects/Contact/")))
            create.httpMethod = "POST"
            create.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            create.setValue("application/json", forHTTPHeaderField: "Content-Type")
            create.httpBody = Data(#"{"LastName":"Über HTTP","FirstName":"Ünal"}"#.utf8)
            let (createdData, createdResponse) = try await session.data(for: create)
            let created = try #require(createdResponse as? HTTPURLResponse)
            #expect(created.statusCode == 201)
            #expect(created.value(forHTTPHeaderField: "Content-Type") == "application/json;charset=UTF-8")
            #expect(created.value(forHTTPHeaderField: "Sforce-Limit-Info")?.hasPrefix("api-usage=") == true)
            #expect(try JSONParser.parse(createdData)["success"] == true)

            var query = URLRequest(url: try #require(URL(string: "\(base)/services/data/v59.0/query?q=SELECT+Name+FROM+Contact+WHERE+LastName+LIKE+'%C3%9Cber%25'")))
            query.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (queryData, _) = try await session.data(for: query)
            let result = try JSONParser.parse(queryData)
            #expect(result["totalSize"] == 1)
            #expect(result["records"]?.arrayValue?.first?["Name"] == "Ünal Über HTTP")

            let (versionsData, _) = try await session.data(from: try #require(URL(string: "\(base)/services/data/")))
            #expect(try JSONParser.parse(versionsData).arrayValue?.contains { $0["version"] == "59.0" } == true)

            var unauthorized = URLRequest(url: try #require(URL(string: "\(base)/services/data/v59.0/sobjects/")))
            unauthorized.setValue("Bearer nope", forHTTPHeaderField: "Authorization")
            let (errorData, errorResponse) = try await session.data(for: unauthorized)
            #expect((errorResponse as? HTTPURLResponse)?.statusCode == 401)
            #expect(String(decoding: errorData, as: UTF8.self) == #"[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]"#)
            // A collection whose envelope is 200 though one record was refused.
            var collection = URLRequest(url: try #require(URL(string: "\(base)/services/data/v59.0/composite/sobjects")))
            collection.httpMethod = "POST"
            collection.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            collection.setValue("application/json", forHTTPHeaderField: "Content-Type")
            collection.httpBody = Data(
                #"{"allOrNone":false,"records":[{"attributes":{"type":"Contact"},"LastName":"One"},{"attributes":{"type":"Contact"},"LastName":"Two"},{"attributes":{"type":"Contact"},"FirstName":"No last name"}]}"#
                    .utf8)
            let (_, collectionResponse) = try await session.data(for: collection)
            #expect((collectionResponse as? HTTPURLResponse)?.statusCode == 200)
            // The request log names time, user, method, path, status and what a composite answer
            // holds, but never tokens or query strings.
            #expect(log.lines.contains { $0.contains("Z demo@localorg.test POST /services/data/v59.0/sobjects/Contact/ 201 ") }, "\(log.lines)")
            #expect(log.lines.contains { $0.contains(" demo@localorg.test GET /services/data/v59.0/query 200 ") })
            #expect(log.lines.contains { $0.contains(" POST /services/data/v59.0/composite/sobjects 200 [ok×2 REQUIRED_FIELD_MISSING×1] ") }, "\(log.lines)")
            #expect(log.lines.contains { $0.contains(" - GET /services/data/v59.0/sobjects/ 401 ") }, "\(log.lines)")
            #expect(!log.lines.contains { $0.contains(token) || $0.contains("SELECT") || $0.contains("password") })
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func oversizedBodiesGetASalesforceErrorNotACrash() async throws {
        let server = try await RunningServer.start(tls: false, maximumBodyBytes: 2048)
        do {
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/services/data/v59.0/sobjects/Contact/")))
            request.httpMethod = "POST"
            request.setValue("Bearer \(server.org.accessToken)", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"LastName":"\#(String(repeating: "x", count: 6000))"}"#.utf8)
            request.timeoutInterval = 30
            let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 413)
            #expect(try JSONParser.parse(data).firstErrorCode == "REQUEST_ENTITY_TOO_LARGE")
            #expect(try server.org.store.counts().first { $0.object == "Contact" }?.live == 0)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func httpsIsVerifiedAgainstTheLocalCertificateAuthority() async throws {
        let curl = "/usr/bin/curl"
        try #require(FileManager.default.isExecutableFile(atPath: curl), "curl is needed to check TLS from another client")
        let server = try await RunningServer.start(tls: true)
        let caPath = server.org.directory + "/ca.pem"
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("localorg-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // curl is waited for without holding a thread: this server answers on this process's
        // cooperative threads, and a blocked wait there left it none on a two-core CI machine.
        func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: curl)
            // Generous: the full suite runs many servers at once on two cores, and a password
            // login hashes on purpose slowly (20 s timed out once in CI).
            process.arguments = ["--silent", "--show-error", "--max-time", "90"] + arguments
            let outputFile = scratch.appendingPathComponent(UUID().uuidString)
            _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
            let output = try FileHandle(forWritingTo: outputFile)
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = output
            let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do { try process.run() } catch { continuation.resume(throwing: error) }
            }
            try output.close()
            return (status, String(decoding: try Data(contentsOf: outputFile), as: UTF8.self))
        }
        do {
            for host in ["localhost", "127.0.0.1"] {
                let verified = try await run(["--cacert", caPath, "https://\(host):\(server.port)/services/data/"])
                #expect(verified.status == 0, "\(host): \(verified.output)")
                #expect(verified.output.contains(#""version":"59.0""#))
            }
            // The IPv6 loopback answers on the same port when the machine has one.
            if (try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8))?.contains("00000000000000000000000000000001") == true {
                let ipv6 = try await run(["--cacert", caPath, "https://[::1]:\(server.port)/services/data/"])
                #expect(ipv6.status == 0, "[::1]: \(ipv6.output)")
            }
            let untrusted = try await run(["https://127.0.0.1:\(server.port)/services/data/"])
            #expect(untrusted.status != 0)  // not trusted without the local CA
            let login = try await run([
                "--cacert", caPath, "-d", "grant_type=password", "-d", "client_id=forceterm",
                "--data-urlencode", "username=demo@localorg.test", "-d", "password=localorg-demo",
                "https://localhost:\(server.port)/services/oauth2/token",
            ])
            #expect(login.status == 0, "\(login.output)")
            #expect(try JSONParser.parse(login.output)["instance_url"] == .string("https://localhost:\(server.port)"))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
