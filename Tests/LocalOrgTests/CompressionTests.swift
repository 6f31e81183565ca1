import ForceJSON
import Testing

@testable import LocalOrg

@Suite struct CompressionTests {
    @Test func responsesAreCompressedOnlyWhenAskedAndInflateBack() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let plain = await org.call("GET", "/services/data/v59.0/sobjects/Contact/describe")
        #expect(plain.header("Content-Encoding") == nil)
        let gzipped = await org.call("GET", "/services/data/v59.0/sobjects/Contact/describe", headers: ["Accept-Encoding": "gzip, deflate"])
        #expect(gzipped.header("Content-Encoding") == "gzip")
        #expect(gzipped.body.count < plain.body.count / 3)
        #expect(Array(gzipped.body.prefix(2)) == [0x1F, 0x8B])  // the gzip magic number
        let inflated = try HTTPCompression.decodedBody(gzipped.body, contentEncoding: "gzip", maximumBytes: 1 << 24)
        #expect(inflated == plain.body)
        let refused = await org.call("GET", "/services/data/v59.0/sobjects/Contact/describe", headers: ["Accept-Encoding": "gzip;q=0, br"])
        #expect(refused.header("Content-Encoding") == nil)
        let deflated = await org.call("GET", "/services/data/v59.0/sobjects/Contact/describe", headers: ["Accept-Encoding": "deflate"])
        #expect(try HTTPCompression.decodedBody(deflated.body, contentEncoding: "deflate", maximumBytes: 1 << 24) == plain.body)
    }

    @Test func compressedRequestBodiesAreInflatedWithinTheSizeLimit() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        // Make a gzip body by compressing a large response's worth of JSON through the same path.
        var body = APIResponse(status: 200, body: Array(#"{"LastName":"Gzipped \#(String(repeating: " ", count: 2000))"}"#.utf8))
        HTTPCompression.compress(&body, acceptEncoding: "gzip")
        #expect(body.header("Content-Encoding") == "gzip")
        let created = await org.api.handle(
            APIRequest(
                method: "POST", path: "/services/data/v59.0/sobjects/Contact",
                headers: ["Authorization": "Bearer \(org.accessToken)", "Content-Type": "application/json", "Content-Encoding": "gzip"],
                body: body.body, baseURL: TestOrg.baseURL))
        #expect(created.status == 400)  // 2000 spaces make LastName too long: the body really was inflated and read
        #expect(try JSONParser.parse(created.body).firstErrorCode == "STRING_TOO_LONG")
        let garbage = await org.call("POST", "/services/data/v59.0/sobjects/Contact", body: "not gzip", headers: ["Content-Encoding": "gzip"])
        #expect(garbage.status == 400)
        let unknown = await org.call("POST", "/services/data/v59.0/sobjects/Contact", body: "{}", headers: ["Content-Encoding": "br"])
        #expect(unknown.status == 415)
        #expect(throws: APIError.self) {
            _ = try HTTPCompression.decodedBody(body.body, contentEncoding: "gzip", maximumBytes: 100)
        }
    }
}
