import ForceJSON
import Foundation

/// What one request's handling learned for the log, gathered as it goes: routes deep in the API
/// note who is asking without passing it back up through every return.
final class RequestContext: @unchecked Sendable {
    @TaskLocal static var current: RequestContext?

    private let lock = NSLock()
    private var noted: String?
    private var selector: String?

    /// The user behind the request (a signed-in session, or the username a sign-in tried).
    func note(username: String) {
        lock.withLock { if noted == nil || noted == "" { noted = username } }
    }

    var username: String? { lock.withLock { noted } }

    /// The access token the request was authenticated with (its selector), checked again when
    /// the request writes.
    func note(tokenSelector: String) { lock.withLock { selector = tokenSelector } }
    var tokenSelector: String? { lock.withLock { selector } }

    private var origin: String?
    /// Change events' changeOrigin: `com/salesforce/api/rest/62.0;client=forceterm`, as Salesforce
    /// writes it for a change made through the REST API by a connected app.
    func note(changeOrigin: String) { lock.withLock { origin = changeOrigin } }
    var changeOrigin: String? { lock.withLock { origin } }

    private var saved = Set<String>()
    /// Records this request saved: duplicate rules compare a save with the records already in
    /// the org, not with the others of the same request.
    func note(saved id: String) { _ = lock.withLock { saved.insert(id) } }
    var savedIds: Set<String> { lock.withLock { saved } }
}

/// One request as the trainer's log shows it.
public struct RequestLogEntry: Sendable, Equatable {
    public var time: Date
    public var username: String?
    public var method: String
    public var path: String
    public var status: Int
    /// The statuses inside a composite or collection answer (`201×20 400×2`), whose envelope is
    /// 200 even when parts of it were refused.
    public var inner: String?
    public var milliseconds: Double
    /// The command that did it when it was not a request (`localorg edit`), nil for requests.
    public var origin: String?

    public init(
        time: Date, username: String?, method: String, path: String, status: Int, inner: String?, milliseconds: Double,
        origin: String? = nil
    ) {
        self.time = time
        self.username = username
        self.method = method
        self.path = path
        self.status = status
        self.inner = inner
        self.milliseconds = milliseconds
        self.origin = origin
    }

    /// `2026-11-26T17:12:21Z trainee01@class.test POST /services/data/v66.0/composite/sobjects 200 [200×23 REQUIRED_FIELD_MISSING×2] 24.4 ms`
    public var line: String {
        let stamp = ISO8601DateFormatter.string(
            from: time, timeZone: TimeZone(identifier: "UTC") ?? .current,
            formatOptions: [.withInternetDateTime])
        // A username is what someone typed: control characters would reach the trainer's terminal.
        let who = username.flatMap { $0.isEmpty ? nil : $0 }.map(Self.printable) ?? "-"
        return "\(stamp) \(who) \(Self.printable(method)) \(Self.printable(path)) \(status)"
            + (inner.map { " [\($0)]" } ?? "") + " \(String(format: "%.1f", milliseconds)) ms" + (origin.map { " (\($0))" } ?? "")
    }

    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    /// What the request came to, counted record by record for composite answers: refused by a
    /// conflict (412, `If-Unmodified-Since`), refused otherwise, or done.
    public var tally: (done: Int, conflicts: Int, errors: Int) {
        guard let inner else {
            if status == 412 { return (0, 1, 0) }
            return status >= 400 ? (0, 0, 1) : (1, 0, 0)
        }
        var tally = (done: 0, conflicts: 0, errors: 0)
        for part in inner.split(separator: " ") {
            let pieces = part.split(separator: "×")
            guard pieces.count == 2, let count = Int(pieces[1]) else { continue }
            let outcome = String(pieces[0])
            if outcome == "412" || outcome == "PRECONDITION_FAILED" {
                tally.conflicts += count
            } else if outcome == "ok" || outcome == "absent" || Int(outcome).map({ $0 < 400 }) == true {
                tally.done += count
            } else {
                tally.errors += count
            }
        }
        return tally
    }

    /// The outcomes inside a composite family answer, counted: HTTP statuses of `composite` and
    /// `composite/batch` subrequests, `200` or the error code of each sObject Collections result,
    /// `201` or the error codes of a tree's records. Nil for every other answer.
    static func innerOutcomes(path: String, status: Int, body: [UInt8]) -> String? {
        guard status < 300, path.contains("/composite"), let document = try? JSONParser.parse(body) else { return nil }
        var outcomes: [String] = []
        if let parts = document["compositeResponse"]?.arrayValue {
            outcomes = parts.map { String($0["httpStatusCode"]?.int64Value ?? 0) }
        } else if let results = document["results"]?.arrayValue, document["hasErrors"] != nil {
            if path.contains("/composite/tree") {
                outcomes =
                    document["hasErrors"]?.boolValue == true
                    ? results.flatMap { ($0["errors"]?.arrayValue ?? []).map { $0["statusCode"]?.stringValue ?? "error" } }
                    : results.map { _ in "201" }
            } else {
                outcomes = results.map { String($0["statusCode"]?.int64Value ?? 0) }
            }
        } else if let results = document.arrayValue {
            outcomes = results.map { result in
                // A collections retrieve answers records (or null for an id not found), not results.
                if result.objectValue?["attributes"] != nil { return "ok" }
                if result == .null { return "absent" }
                return result["success"]?.boolValue == true ? "ok" : (result["errors"]?.arrayValue?.first?["statusCode"]?.stringValue ?? "error")
            }
        }
        guard !outcomes.isEmpty else { return nil }
        var counts: [(String, Int)] = []
        for outcome in outcomes {
            if let index = counts.firstIndex(where: { $0.0 == outcome }) { counts[index].1 += 1 } else { counts.append((outcome, 1)) }
        }
        return counts.map { "\($0.0)×\($0.1)" }.joined(separator: " ")
    }
}
