/// One error from Salesforce's error array: `errorCode` (or `statusCode` in collection results),
/// `message` and the `fields` it concerns, kept exactly as the server sent them.
public struct SalesforceError: Sendable, Equatable, CustomStringConvertible {
    public var errorCode: String
    public var message: String
    public var fields: [String]
    /// `DUPLICATES_DETECTED`: the ids of the records a duplicate rule matched, in the answer's order.
    public var duplicateIds: [String]

    public init(errorCode: String, message: String, fields: [String] = [], duplicateIds: [String] = []) {
        self.errorCode = errorCode
        self.message = message
        self.fields = fields
        self.duplicateIds = duplicateIds
    }

    public var description: String {
        fields.isEmpty ? "\(errorCode): \(message)" : "\(errorCode): \(message) (fields: \(fields.joined(separator: ", ")))"
    }
}

/// Everything that can go wrong talking to Salesforce, sorted by what the caller can do about it.
/// Descriptions are one line, say what to do, and never contain tokens, passwords or query strings.
public enum ForceAPIError: Error, Sendable, Equatable {
    /// No connection could be made: the host name did not resolve, the connection was refused or
    /// could not be made in time. The network (or the server) is gone; try again later.
    case offline(OfflineReason, host: String)
    /// The connection broke during the exchange (reset, empty reply).
    case connectionLost(detail: String)
    /// The server accepted the connection but the answer stalled or missed the deadline.
    case timeout(TimeoutKind, seconds: Double)
    /// The TLS handshake failed: an untrusted or mismatched certificate, or an unreadable CA file.
    case tls(detail: String)
    /// The caller cancelled (Ctrl-C, task cancellation).
    case cancelled
    /// 401 that a token refresh could not fix (or no refresh token): sign in again.
    case sessionExpired
    /// The OAuth server refused (`invalid_grant`, `invalid_client_id`, `access_denied`, …).
    case authentication(error: String, description: String)
    /// 403 REQUEST_LIMIT_EXCEEDED: the org's API limit is used up for now.
    case apiLimit(SalesforceError)
    /// 412: the record changed on the server after the given time (a conflict), or a failed `If-Match`.
    case preconditionFailed(SalesforceError?)
    /// 404: no such record or resource.
    case notFound(SalesforceError)
    /// 404 ENTITY_IS_DELETED: the record is in the recycle bin.
    case entityDeleted(SalesforceError)
    /// 400 with Salesforce errors: validation rules, required fields, bad SOQL.
    case validation(status: Int, errors: [SalesforceError])
    /// Another 4xx the caller cannot fix by retrying (403 refused, 405, 409, 410 retired version, …).
    case refused(status: Int, errors: [SalesforceError])
    /// 5xx: the server failed or is unavailable.
    case server(status: Int, errors: [SalesforceError])
    /// The body was not the JSON the API promises (e.g. an HTML maintenance page).
    case nonJSON(status: Int, contentType: String?)
    /// Anything else the transport reported (curl's code and message).
    case transport(code: Int, detail: String)

    public enum OfflineReason: String, Sendable {
        case hostNotFound = "host not found"
        case connectionRefused = "connection refused: is the server running, and on that port?"
        case networkUnreachable = "network unreachable: this machine has no route there; is it connected?"
        case hostUnreachable = "host unreachable: nothing answers at that address"
        /// curl could not connect for a reason of the system's other than these (a local firewall,
        /// no address to send from).
        case couldNotConnect = "could not connect"
        case connectTimeout = "no answer to the connection attempt"
    }

    public enum TimeoutKind: String, Sendable {
        case noAnswer = "the server accepted the connection but never answered"
        case stalled = "the transfer stalled"
        case deadline = "the request took too long"
    }

    /// Whether the failure says nothing reached the server's logic, so the user is simply offline.
    public var isOffline: Bool {
        if case .offline = self { return true }
        return false
    }
}

extension ForceAPIError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .offline(.connectionRefused, host):
            // The network works: the machine answered that nothing takes the connection.
            return "cannot connect to \(host) (\(OfflineReason.connectionRefused.rawValue)); try again once it is"
        case let .offline(reason, host):
            return "offline: cannot reach \(host) (\(reason.rawValue)); check the network and try again"
        case let .connectionLost(detail):
            return "the connection to the server broke (\(detail)); try again"
        case let .timeout(kind, seconds):
            return "timed out: \(kind.rawValue) (limit \(Self.format(seconds)) s); the network or server is slow, try again"
        case let .tls(detail):
            return "TLS failure: \(detail); if the server uses a private CA, sign in again with forceterm login (it shows the CA's fingerprint to check) or pass the CA with --cacert FILE"
        case .cancelled:
            return "cancelled"
        case .sessionExpired:
            return "the session has expired and could not be refreshed; sign in again with forceterm login"
        case let .authentication(error, description):
            return "sign-in refused: \(error)\(description.isEmpty ? "" : " (\(description))")"
        case let .apiLimit(error):
            return "the org's API request limit is used up (\(error.message)); wait and try again later"
        case let .preconditionFailed(error):
            return "conflict: the record changed on the server since it was read\(error.map { " (\($0.message))" } ?? "")"
        case let .notFound(error):
            return "not found: \(error.message)"
        case let .entityDeleted(error):
            return "the record is deleted on the server (\(error.errorCode))"
        case let .validation(status, errors):
            return "rejected by Salesforce (HTTP \(status)): \(errors.map(\.description).joined(separator: "; "))"
        case let .refused(status, errors):
            let detail = errors.isEmpty ? "" : ": \(errors.map(\.description).joined(separator: "; "))"
            return "refused by Salesforce (HTTP \(status))\(detail)"
        case let .server(status, errors):
            let detail = errors.isEmpty ? "" : ": \(errors.map(\.description).joined(separator: "; "))"
            return "server error (HTTP \(status))\(detail); try again later"
        case let .nonJSON(status, contentType):
            return "unexpected answer from the server: HTTP \(status) with \(contentType ?? "no content type") instead of JSON; is the URL a Salesforce org?"
        case let .transport(code, detail):
            return "network error (curl \(code)): \(detail)"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
