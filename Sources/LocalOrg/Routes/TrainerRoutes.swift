import ForceJSON
import Foundation
import GRDB
import SalesforceTime

/// The trainer's page at `/trainer`: what each user of the class did, a live feed of the log, and
/// a record's history. Administrators only; a browser signs in with a form and keeps a cookie,
/// a script may send `Authorization: Bearer` with an admin's access token.
extension LocalOrgAPI {
    static let trainerCookie = "localorg_trainer"
    /// The client id of tokens issued to the page's sign-in form.
    static let trainerClientId = "localorg-trainer-page"

    static func isTrainerPath(_ path: String) -> Bool { path == "/trainer" || path.hasPrefix("/trainer/") }

    func handleTrainer(_ request: APIRequest, rest: [String]) async throws -> APIResponse {
        let route = rest.joined(separator: "/")
        switch (request.method, route) {
        case ("GET", "trainer.js"): return TrainerPage.script
        case ("POST", "sign-in"): return try await trainerSignIn(request)
        case ("POST", "sign-out"):
            if let token = Self.trainerToken(request) { _ = try await tokens.revoke(token) }
            return TrainerPage.redirect(to: "/trainer", cookie: Self.expiredTrainerCookie)
        default: break
        }
        let wantsPage = route.isEmpty || route == "history"
        guard let token = Self.trainerToken(request), let session = try await tokens.session(forAccessToken: token) else {
            if wantsPage && request.method == "GET" { return TrainerPage.signIn(notice: nil) }
            return .error(APIError(status: 401, errorCode: "INVALID_SESSION_ID", message: "Session expired or invalid"))
        }
        guard session.isAdmin else {
            let message = "The trainer's page is for administrators; \(session.username) is not one."
            if wantsPage { return TrainerPage.refused(message) }
            return .error(APIError(status: 403, errorCode: "INSUFFICIENT_ACCESS", message: message))
        }
        switch (request.method, route) {
        case ("GET", ""):
            return TrainerPage.main(
                organization: try await organizationSummary(), signedInAs: session.username,
                activity: try await store.classActivity(), latest: try await store.latestEvents(50))
        case ("GET", "activity"):
            return .json(.array(try await store.classActivity().map(TrainerPage.json)))
        case ("GET", "events"):
            let asked = request.header("last-event-id").flatMap { Int64($0) } ?? request.queryItems["after"].flatMap { Int64($0) }
            let after = if let asked { asked } else { try await store.lastEventSequence() }
            return eventStream(after: after, token: token)
        case ("GET", "history"):
            return try await historyPage(idText: request.queryItems["id"] ?? "")
        default:
            return .error(.resourceNotFound)
        }
    }

    /// The page's cookie, or a bearer token.
    static func trainerToken(_ request: APIRequest) -> String? {
        if let authorization = request.header("authorization"), authorization.lowercased().hasPrefix("bearer ") {
            return String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        for part in (request.header("cookie") ?? "").split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0] == trainerCookie, !pair[1].isEmpty { return pair[1] }
        }
        return nil
    }

    static let expiredTrainerCookie = "\(trainerCookie)=; Path=/trainer; Max-Age=0; HttpOnly; SameSite=Strict"

    func trainerSignIn(_ request: APIRequest) async throws -> APIResponse {
        let form = FormDecoding.decode(String(decoding: request.body, as: UTF8.self))
        let username = form["username"] ?? ""
        RequestContext.current?.note(username: username)
        switch try await store.checkSignIn(username: username, password: form["password"] ?? "") {
        case let .accepted(userId, isAdmin):
            guard isAdmin else {
                return TrainerPage.refused("The trainer's page is for administrators; \(username) is not one.")
            }
            let issued = try await tokens.issue(kind: .access, userId: userId, clientId: Self.trainerClientId)
            let secure = request.baseURL.hasPrefix("https:") ? "; Secure" : ""
            let cookie = "\(Self.trainerCookie)=\(issued.token); Path=/trainer; Max-Age=\(tokens.accessTokenLifetime); HttpOnly; SameSite=Strict\(secure)"
            return TrainerPage.redirect(to: "/trainer", cookie: cookie)
        case .refused:
            return TrainerPage.signIn(notice: "Wrong username or password.", status: 401)
        case .inactive:
            return TrainerPage.signIn(notice: "This user is deactivated (localorg user activate).", status: 403)
        case .lockedOut:
            return TrainerPage.signIn(
                notice: "Too many failed sign-ins: locked out for \(LockoutPolicy.lockoutSeconds / 60) minutes, or until localorg user unlock.",
                status: 403)
        }
    }

    func organizationSummary() async throws -> (name: String, id: String) {
        let id = await organizationId()
        let table = quoted(schema.object(named: "Organization")?.tableName ?? "Organization")
        let name = try await store.read { db in try String.fetchOne(db, sql: "SELECT Name FROM \(table) LIMIT 1") }
        return (name ?? "localorg", id)
    }

    /// Server-Sent Events: each new log line as an `event: request`, checked five times a second;
    /// a comment every 15 s shows the connection alive (and finds a client that went away).
    /// The session is checked again every second: a sign-out, a deactivation, an expiry or a
    /// restore ends an open feed too.
    func eventStream(after start: Int64, token: String) -> APIResponse {
        let store = self.store
        let tokens = self.tokens
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let producer = Task {
            var last = start
            var quietPolls = 0
            var polls = 0
            continuation.yield(Array("retry: 1000\n\n".utf8))
            while !Task.isCancelled {
                polls += 1
                if polls % 5 == 0 {
                    guard let session = try? await tokens.session(forAccessToken: token), session.isAdmin else { break }
                }
                let events = (try? await store.events(after: last, limit: 200)) ?? []
                for event in events {
                    var bytes = Array("id: \(event.sequence)\nevent: request\ndata: ".utf8)
                    JSONWriter.write(TrainerPage.json(event), into: &bytes)
                    bytes += Array("\n\n".utf8)
                    continuation.yield(bytes)
                    last = event.sequence
                }
                quietPolls = events.isEmpty ? quietPolls + 1 : 0
                if quietPolls >= 75 {
                    continuation.yield(Array(": still here\n\n".utf8))
                    quietPolls = 0
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in producer.cancel() }
        var response = APIResponse(status: 200, headers: [("Content-Type", "text/event-stream;charset=UTF-8"), ("Cache-Control", "no-store")])
        response.stream = stream
        return response
    }

    func historyPage(idText: String) async throws -> APIResponse {
        let trimmed = idText.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return TrainerPage.history(id: "", record: nil, changes: [], notice: "Enter a record id.") }
        do {
            let record = try await RecordInspector(store: store).record(id: trimmed)
            let id = SalesforceId.canonical(trimmed) ?? trimmed
            let changes = try await store.history(of: id)
            let notice = record == nil && changes.isEmpty ? "No record has the id \(trimmed)." : nil
            return TrainerPage.history(id: id, record: record, changes: changes, notice: notice)
        } catch let error as APIError {
            return TrainerPage.history(id: trimmed, record: nil, changes: [], notice: error.message)
        }
    }
}
