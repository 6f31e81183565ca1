import ForceJSON
import Foundation
import LocalOrg

/// libFuzzer's target: each input is one HTTP request to localorg's API, written as text:
///
///     METHOD /path?query
///     Header-Name: value
///
///     body
///
/// `{ACCOUNT}`, `{CONTACT}` and `{USER}` stand for records of the fuzzed org. An admin's bearer
/// token is added unless the input sends its own `Authorization`. The answer must never be a 5xx
/// (but for the SOAP login, whose faults are 500 as SOAP wants), and a refusal must have one of
/// Salesforce's error shapes; anything else stops the run with the input saved.
@_cdecl("LLVMFuzzerTestOneInput")
public func localOrgFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let org = FuzzedOrg.shared
    let request = org.request(from: Array(UnsafeBufferPointer(start: data, count: size)))
    let response = FuzzedOrg.wait { await org.api.handle(request) }
    if let problem = FuzzedOrg.problem(with: response, to: request) {
        fatalError("\(problem): \(request.method) \(request.path)?\(request.query) → \(response.status) \(response.bodyText.prefix(300))")
    }
    return 0
}

/// One org for the whole run, in a temporary directory, seeded, with an admin signed in.
final class FuzzedOrg: Sendable {
    static let shared: FuzzedOrg = {
        do { return try FuzzedOrg() } catch { fatalError("could not set up the fuzzed org: \(error)") }
    }()

    let api: LocalOrgAPI
    let token: String
    let placeholders: [String: String]

    init() throws {
        let directory = NSTemporaryDirectory() + "localorg-fuzz-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try OrgStore(path: directory + "/org.sqlite", schema: try OrgSchema.bundled(), firstUsers: .demo)
        _ = try Seeder.seed(store: store, accounts: 5, contacts: 20, randomSeed: 7)
        let api = try LocalOrgAPI(store: store, settings: OrgSettings())
        self.api = api
        let signIn = Self.wait {
            await api.handle(
                APIRequest(
                    method: "POST", path: "/services/oauth2/token",
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array("grant_type=password&client_id=forceterm&username=demo@localorg.test&password=localorg-demo".utf8),
                    baseURL: "https://localhost:8443"))
        }
        guard let token = try JSONParser.parse(signIn.body)["access_token"]?.stringValue else {
            throw FuzzSetupError(description: "sign-in failed: \(signIn.bodyText)")
        }
        self.token = token
        let inspector = RecordInspector(store: store)
        func firstId(_ soql: String) -> String {
            let found = Self.wait { try? await inspector.query(soql) }
            return found?.records.first?["Id"]?.stringValue ?? "001000000000000AAA"
        }
        placeholders = [
            "{ACCOUNT}": firstId("SELECT Id FROM Account LIMIT 1"), "{CONTACT}": firstId("SELECT Id FROM Contact LIMIT 1"),
            "{USER}": firstId("SELECT Id FROM User WHERE Username = 'demo@localorg.test'"),
        ]
    }

    /// The request an input describes; an input without a request line is a path to GET.
    func request(from bytes: [UInt8]) -> APIRequest {
        var text = String(decoding: bytes, as: UTF8.self)
        for (placeholder, value) in placeholders { text = text.replacingOccurrences(of: placeholder, with: value) }
        let (head, body) = text.range(of: "\n\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (text, "")
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let parts = requestLine.split(separator: " ", maxSplits: 1).map(String.init)
        let (method, target) = parts.count == 2 ? (parts[0], parts[1]) : ("GET", requestLine)
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        if !headers.keys.contains(where: { $0.lowercased() == "authorization" }) { headers["Authorization"] = "Bearer \(token)" }
        let pathAndQuery = target.split(separator: "?", maxSplits: 1).map(String.init)
        return APIRequest(
            method: method, path: pathAndQuery.first ?? "/", query: pathAndQuery.count > 1 ? pathAndQuery[1] : "",
            headers: headers, body: Array(body.utf8), baseURL: "https://localhost:8443")
    }

    /// What is wrong with an answer, or nil.
    static func problem(with response: APIResponse, to request: APIRequest) -> String? {
        if response.status >= 500 {
            return request.path.hasPrefix("/services/Soap/") && response.status == 500 ? nil : "a server error"
        }
        guard response.status >= 400 else { return nil }
        let contentType = response.header("Content-Type") ?? ""
        guard contentType.hasPrefix("application/json") else {
            // The identity URL answers 403 in plain text, pages answer HTML, SOAP answers XML, as Salesforce does.
            return contentType.hasPrefix("text/") ? nil : "a refusal that is not JSON, HTML, XML or text (\(contentType))"
        }
        guard let document = try? JSONParser.parse(response.body) else { return "a refusal whose JSON does not parse" }
        if let first = document.arrayValue?.first, first["errorCode"]?.stringValue != nil, first["message"]?.stringValue != nil { return nil }
        if document["error"]?.stringValue != nil, document["error_description"]?.stringValue != nil { return nil }
        // composite/tree: which records were refused and why.
        if document["hasErrors"]?.boolValue == true, let results = document["results"]?.arrayValue,
            results.allSatisfy({ ($0["errors"]?.arrayValue ?? []).allSatisfy { $0["statusCode"]?.stringValue != nil && $0["message"]?.stringValue != nil } })
        {
            return nil
        }
        return "a refusal not shaped as Salesforce's errors"
    }

    /// Runs async work to its end from libFuzzer's synchronous callback.
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        Task {
            result.value = await work()
            done.signal()
        }
        done.wait()
        guard let value = result.value else { fatalError("the request finished without an answer") }
        return value
    }
}

/// Hands one value from a task to the thread waiting for it (the semaphore orders the two).
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

struct FuzzSetupError: Error, CustomStringConvertible {
    var description: String
}
