import Foundation
import Testing

@testable import LocalOrg

/// What a client sees of localorg's HTTP/2 connections over many requests.
@Suite("localorg's HTTP/2 connections")
struct HTTP2ConnectionTests {
    /// libcurl resets a stream whose Content-Length body it has read before the stream's end
    /// arrives; when the end came as a frame of its own, 200 such resets in 30 s made
    /// swift-nio-http2 close the connection (GOAWAY ENHANCE_YOUR_CALM) and fail the requests in
    /// flight.
    @Test("A thousand requests on one HTTP/2 connection from curl all get their answer", .enabled(if: HTTPSOrg.curlIsInstalled))
    func manyRequestsOnOneConnection() async throws {
        try await HTTPSOrg.with { org in
            let directory = org.server.org.directory
            let requests = 1000
            let urls = (0..<requests).map { _ in "url = \"\(org.baseURL)/services/data/v59.0/limits\"\noutput = \"/dev/null\"\n" }
            try urls.joined().write(toFile: directory + "/urls", atomically: true, encoding: .utf8)
            let status = try await HTTPSOrg.run(
                [
                    "--silent", "--show-error", "--no-progress-meter", "--max-time", "120", "--http2", "--parallel", "--parallel-max", "8",
                    "--cacert", org.caFile, "-H", "Authorization: Bearer \(org.accessToken)",
                    "--write-out", "%{http_version} %{response_code}\\n", "--config", directory + "/urls",
                ],
                errors: directory + "/curl-errors", output: directory + "/curl-output")
            let errors = (try? String(contentsOfFile: directory + "/curl-errors", encoding: .utf8)) ?? ""
            let answers = try String(contentsOfFile: directory + "/curl-output", encoding: .utf8).split(separator: "\n")
            #expect(status == 0, "curl exit \(status): \(errors.prefix(500))")
            #expect(
                answers.count == requests && answers.allSatisfy { $0 == "2 200" },
                "\(answers.filter { $0 != "2 200" }.count) of \(answers.count) without an HTTP/2 200: \(errors.prefix(500))")
        }
    }
}

extension HTTP2ConnectionTests {
    /// The same server speaks HTTP/1.1 to a client that asks for it over TLS (Python's urllib,
    /// requests, simple-salesforce); the HTTP/2-only frame handler must leave those connections alone.
    @Test("HTTP/1.1 over TLS gets its answers from the HTTP/2 server, and the server stays up", .enabled(if: HTTPSOrg.curlIsInstalled))
    func http1ClientsOverTLS() async throws {
        try await HTTPSOrg.with { org in
            let directory = org.server.org.directory
            for round in 0..<2 {
                let status = try await HTTPSOrg.run(
                    [
                        "--silent", "--show-error", "--max-time", "60", "--http1.1", "--cacert", org.caFile,
                        "-H", "Authorization: Bearer \(org.accessToken)", "--write-out", "%{http_version} %{response_code}",
                        "-o", "/dev/null", org.baseURL + "/services/data/v59.0/limits",
                    ],
                    errors: directory + "/errors-\(round)", output: directory + "/output-\(round)")
                let errors = (try? String(contentsOfFile: directory + "/errors-\(round)", encoding: .utf8)) ?? ""
                #expect(status == 0, "round \(round): curl exit \(status): \(errors)")
                #expect(try String(contentsOfFile: directory + "/output-\(round)", encoding: .utf8) == "1.1 200", "round \(round)")
            }
        }
    }
}
