import ForceJSON
import Foundation

/// The shape of a JSON answer: its keys, recursively, with ids, dates and other values left
/// aside. What a client can rely on when it parses an answer, compared between a response
/// recorded from Salesforce and localorg's answer to the same request.
enum JSONShape {
    /// Paths such as `records[].attributes.url`: `missing` are in the recorded answer but not in
    /// localorg's (a client reading them would break); `extra` are only in localorg's.
    struct Difference: Equatable, CustomStringConvertible {
        var missing: [String] = []
        var extra: [String] = []
        var description: String { "missing \(missing), extra \(extra)" }
    }

    /// Compares `ours` with `recorded`. `renaming` maps the recorded answer's field names (of an
    /// object the org lacks, such as restforce's `Whizbang`) to the org's fields that stand in
    /// for them. A null on either side matches any value: values are aside. An array's elements
    /// are compared as one: the union of their keys.
    static func compare(recorded: JSONValue, ours: JSONValue, renaming: [String: String] = [:]) -> Difference {
        var difference = Difference()
        walk(recorded, ours, path: "", renaming: renaming, into: &difference)
        difference.missing.sort()
        difference.extra.sort()
        return difference
    }

    private static func walk(_ recorded: JSONValue, _ ours: JSONValue, path: String, renaming: [String: String], into difference: inout Difference) {
        switch (recorded, ours) {
        case (.null, _), (_, .null):
            return
        case let (.object(recordedObject), .object(ourObject)):
            var expected: Set<String> = []
            for (key, value) in recordedObject {
                let name = renaming[key] ?? key
                expected.insert(name)
                let child = path.isEmpty ? name : "\(path).\(name)"
                guard let ourValue = ourObject[name] else {
                    difference.missing.append(child)
                    continue
                }
                walk(value, ourValue, path: child, renaming: renaming, into: &difference)
            }
            for key in ourObject.keys where !expected.contains(key) {
                difference.extra.append(path.isEmpty ? key : "\(path).\(key)")
            }
        case let (.array(recordedElements), .array(ourElements)):
            guard !recordedElements.isEmpty else { return }
            guard !ourElements.isEmpty else {
                difference.missing.append("\(path)[] (no elements to compare)")
                return
            }
            walk(union(recordedElements), union(ourElements), path: "\(path)[]", renaming: renaming, into: &difference)
        case (.object, _), (.array, _), (_, .object), (_, .array):
            difference.missing.append("\(path) (recorded \(kind(recorded)), localorg \(kind(ours)))")
        default:
            return
        }
    }

    /// Array elements merged into one: objects by the union of their keys (recursively), other
    /// values by the first that is not null.
    static func union(_ elements: [JSONValue]) -> JSONValue {
        let objects = elements.compactMap(\.objectValue)
        if !objects.isEmpty, objects.count == elements.filter({ !$0.isNull }).count {
            var valuesByKey: [String: [JSONValue]] = [:]
            var order: [String] = []
            for object in objects {
                for (key, value) in object {
                    if valuesByKey[key] == nil { order.append(key) }
                    valuesByKey[key, default: []].append(value)
                }
            }
            var merged: JSONObject = [:]
            for key in order { merged[key] = union(valuesByKey[key] ?? []) }
            return .object(merged)
        }
        let arrays = elements.compactMap(\.arrayValue)
        if !arrays.isEmpty, arrays.count == elements.filter({ !$0.isNull }).count {
            return .array(arrays.flatMap { $0 })
        }
        return elements.first { !$0.isNull } ?? .null
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .object: return "an object"
        case .array: return "an array"
        case .null: return "null"
        default: return "a value"
        }
    }

    /// The error codes of a Salesforce error array, in order.
    static func errorCodes(_ value: JSONValue) -> [String] {
        (value.arrayValue ?? []).compactMap { $0["errorCode"]?.stringValue }
    }
}

/// An answer as a client on the wire sees it.
struct WireAnswer: Sendable {
    var status: Int
    /// In the order sent; names as sent.
    var headers: [(name: String, value: String)]
    var body: Data

    func header(_ name: String) -> String? { headers.last { $0.name.lowercased() == name.lowercased() }?.value }

    /// The body as JSON; `.null` when empty or not JSON (the test then fails on the shape).
    var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A real localorg server on 127.0.0.1 over HTTPS, asked with curl (verifying the server
/// against localorg's CA), as any other client asks it. curl runs as a child process whose end
/// is awaited, so no thread waits while the server answers.
struct HTTPSOrg {
    let server: RunningServer
    let baseURL: String
    let accessToken: String
    static let curl = "/usr/bin/curl"

    static var curlIsInstalled: Bool { FileManager.default.isExecutableFile(atPath: curl) }

    static func start() async throws -> HTTPSOrg {
        let server = try await RunningServer.start(tls: true)
        return HTTPSOrg(server: server, baseURL: "https://127.0.0.1:\(server.port)", accessToken: server.org.accessToken)
    }

    func stop() async { await server.stop() }

    /// Runs `body` against a fresh org and stops the org whatever happens.
    static func with(_ body: (HTTPSOrg) async throws -> Void) async throws {
        let org = try await start()
        do { try await body(org) } catch {
            await org.stop()
            throw error
        }
        await org.stop()
    }

    var caFile: String { server.org.directory + "/ca.pem" }

    /// Sends one request. `body` goes as is with `contentType`; `token` nil sends no
    /// Authorization header (the admin's token by default).
    func send(
        _ method: String, _ pathAndQuery: String, body: String? = nil, contentType: String = "application/json",
        headers: [String: String] = [:], token: String? = nil, authorized: Bool = true
    ) async throws -> WireAnswer {
        let scratch = server.org.directory + "/curl-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var arguments = [
            "--silent", "--show-error", "--max-time", "90", "--cacert", caFile, "-X", method,
            "-D", scratch + "/headers", "-o", scratch + "/body",
        ]
        if authorized { arguments += ["-H", "Authorization: Bearer \(token ?? accessToken)"] }
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if let body {
            try Data(body.utf8).write(to: URL(fileURLWithPath: scratch + "/request"))
            arguments += ["-H", "Content-Type: \(contentType)", "--data-binary", "@" + scratch + "/request"]
        }
        arguments.append(baseURL + pathAndQuery)
        let errors = scratch + "/stderr"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let exitStatus = try await Self.run(arguments, errors: errors)
        guard exitStatus == 0 else {
            throw TestFailure("curl \(method) \(pathAndQuery) failed (\(exitStatus)): \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        }
        let headerText = (try? String(contentsOfFile: scratch + "/headers", encoding: .utf8)) ?? ""
        // The last block: a `100 Continue` may come before the answer.
        let block = headerText.components(separatedBy: "\r\n\r\n").last { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty } ?? ""
        var lines = block.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let parsed = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: scratch + "/body"))) ?? Data()
        return WireAnswer(status: status, headers: parsed, body: data)
    }

    /// A form POST (the OAuth endpoints), without a bearer token.
    func postForm(_ path: String, _ fields: [(String, String)]) async throws -> WireAnswer {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let form = fields.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $1)" }.joined(separator: "&")
        return try await send("POST", path, body: form, contentType: "application/x-www-form-urlencoded", authorized: false)
    }

    /// Runs curl to its end without holding a thread; its standard output goes to `output`.
    static func run(_ arguments: [String], errors: String, output: String? = nil) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        if let output {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        if !FileManager.default.fileExists(atPath: errors) { _ = FileManager.default.createFile(atPath: errors, contents: nil) }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
    }
}
