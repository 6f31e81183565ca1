import ForceJSON
import Foundation
import Testing

@testable import LocalOrg

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

@Suite("Field history: every change with time, user, field, old and new value")
struct FieldHistoryTests {
    @Test("Created, each changed field (unchanged ones not), and deleted, as the user who did it")
    func changesOfARecord() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let trainee = try await org.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        let id = try await trainee.create("Contact", #"{"LastName":"Lovelace","Title":"Analyst"}"#)
        let update = await trainee.call(
            "PATCH", "/services/data/v59.0/sobjects/Contact/\(id)",
            body: #"{"LastName":"Lovelace","Title":"Countess","Email":"ada@example.com","Department":"Research"}"#)
        #expect(update.status == 204)
        let removed = await org.call("DELETE", "/services/data/v59.0/sobjects/Contact/\(id)")
        #expect(removed.status == 204)

        let history = try await org.store.history(of: id)
        #expect(history.map(\.field) == ["created", "Title", "Email", "Department", "deleted"])
        #expect(
            history.map(\.username) == [
                "trainer@localorg.test", "trainer@localorg.test", "trainer@localorg.test",
                "trainer@localorg.test", "demo@localorg.test",
            ])
        #expect(history[1].oldValue == "Analyst" && history[1].newValue == "Countess")
        #expect(history[2].oldValue == nil && history[2].newValue == "ada@example.com")
        #expect(history[3].oldValue == nil && history[3].newValue == "Research")
        #expect(history.allSatisfy { $0.object == "Contact" && $0.recordId == id })
    }

    @Test("Seeded records start without history; an account's delete notes its cascaded children")
    func seedingAndCascade() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        _ = try Seeder.seed(store: org.store, accounts: 3, contacts: 10, randomSeed: 4)
        let seededCount = try await org.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM localorg_field_history") ?? -1 }
        #expect(seededCount == 0)

        let account = try await org.create("Account", #"{"Name":"Cascade Ltd"}"#)
        let contact = try await org.create("Contact", #"{"LastName":"Child","AccountId":"\#(account)"}"#)
        #expect(await org.call("DELETE", "/services/data/v59.0/sobjects/Account/\(account)").status == 204)
        #expect(try await org.store.history(of: contact).map(\.field) == ["created", "deleted"])
    }

    @Test("localorg edit and delete write history as the acting user and log themselves, refusals included")
    func commandLineEdits() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let id = try await org.create("Contact", #"{"LastName":"Hopper"}"#)
        let editor = RecordEditor(store: org.store)
        try await editor.update(object: "Contact", id: id, body: ["Title": "Rear Admiral"], actingUsername: "trainer@localorg.test")
        await #expect(throws: APIError.self) {
            try await editor.update(object: "Contact", id: id, body: ["NoSuchField__c": "x"], actingUsername: "trainer@localorg.test")
        }
        try await editor.delete(object: "Contact", id: id, actingUsername: nil)

        #expect(try await org.store.history(of: id).suffix(2).map(\.field) == ["Title", "deleted"])
        let logged = try await org.store.events(after: 0).map(\.entry)
        #expect(logged.map(\.method) == ["PATCH", "PATCH", "DELETE"])
        #expect(logged.map(\.status) == [204, 400, 204])
        #expect(logged.map(\.origin) == ["localorg edit", "localorg edit", "localorg delete"])
        #expect(logged.allSatisfy { $0.username == "trainer@localorg.test" && $0.path.hasSuffix("/sobjects/Contact/\(id)") })
        #expect(logged[0].line.hasSuffix("(localorg edit)"))
    }
}

@Suite("The trainer's page: admins only, counts from the log, a live feed", .serialized)
struct TrainerPageTests {
    func page(
        _ org: TestOrg, _ method: String, _ path: String, query: String = "", body: String = "",
        headers: [String: String] = [:]
    ) async -> APIResponse {
        var all = headers
        if !body.isEmpty { all["Content-Type"] = "application/x-www-form-urlencoded" }
        return await org.api.handle(
            APIRequest(
                method: method, path: path, query: query, headers: all, body: Array(body.utf8),
                baseURL: TestOrg.baseURL))
    }

    func signInCookie(_ org: TestOrg) async throws -> String {
        let answer = await page(org, "POST", "/trainer/sign-in", body: "username=demo%40localorg.test&password=localorg-demo")
        #expect(answer.status == 303)
        let cookie = try #require(answer.header("Set-Cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Secure") && cookie.contains("Path=/trainer"))
        return try #require(cookie.split(separator: ";").first.map(String.init))
    }

    @Test("Signed out: a sign-in form; a trainee is refused on the page and on its data; an admin gets in")
    func door() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let form = await page(org, "GET", "/trainer")
        #expect(form.status == 200 && form.bodyText.contains("action=\"/trainer/sign-in\""))
        #expect(await page(org, "GET", "/trainer/activity").status == 401)

        let trainee = await page(org, "POST", "/trainer/sign-in", body: "username=trainer%40localorg.test&password=localorg-trainer")
        #expect(trainee.status == 403 && trainee.bodyText.contains("for administrators"))
        #expect(trainee.header("Set-Cookie") == nil || trainee.header("Set-Cookie")?.contains("Max-Age=0") == true)
        let wrong = await page(org, "POST", "/trainer/sign-in", body: "username=demo%40localorg.test&password=nope")
        #expect(wrong.status == 401 && wrong.bodyText.contains("Wrong username or password"))

        let traineeToken = try await TestOrg.signIn(org.api, username: "trainer@localorg.test", password: "localorg-trainer")
        let refused = await page(org, "GET", "/trainer/activity", headers: ["Authorization": "Bearer \(traineeToken)"])
        #expect(refused.status == 403 && refused.bodyText.contains("INSUFFICIENT_ACCESS"))
        let refusedPage = await page(org, "GET", "/trainer", headers: ["Cookie": "localorg_trainer=\(traineeToken)"])
        #expect(refusedPage.status == 403)

        let cookie = try await signInCookie(org)
        let main = await page(org, "GET", "/trainer", headers: ["Cookie": "other=1; \(cookie)"])
        #expect(main.status == 200)
        #expect(main.bodyText.contains("trainer@localorg.test") && main.bodyText.contains("id=\"feed\""))
        #expect(main.header("Content-Security-Policy")?.contains("default-src 'self'") == true)

        let signedOut = await page(org, "POST", "/trainer/sign-out", headers: ["Cookie": cookie])
        #expect(signedOut.status == 303 && signedOut.header("Set-Cookie")?.contains("Max-Age=0") == true)
        #expect(await page(org, "GET", "/trainer/activity", headers: ["Cookie": cookie]).status == 401)
    }

    @Test("The counts are the log's: requests, records changed, conflicts and errors inside composites")
    func counts() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let trainee = try await org.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        let id = try await trainee.create("Contact", #"{"LastName":"Turing"}"#)
        let composite = await trainee.call(
            "POST", "/services/data/v59.0/composite/sobjects",
            body: """
                {"allOrNone":false,"records":[{"attributes":{"type":"Contact"},"LastName":"One"},{"attributes":{"type":"Contact"}}]}
                """)
        let entries = [
            RequestLogEntry(
                time: Date(), username: "trainer@localorg.test", method: "POST", path: "/services/data/v59.0/sobjects/Contact/",
                status: 201, inner: nil, milliseconds: 1),
            RequestLogEntry(
                time: Date(), username: "trainer@localorg.test", method: "POST", path: "/services/data/v59.0/composite/sobjects",
                status: 200, inner: composite.innerOutcomes, milliseconds: 1),
            RequestLogEntry(
                time: Date(), username: "trainer@localorg.test", method: "POST", path: "/services/data/v59.0/composite",
                status: 200, inner: "200×3 412×2 PRECONDITION_FAILED×1 400×1", milliseconds: 1),
            RequestLogEntry(
                time: Date(), username: "TRAINER@localorg.test", method: "PATCH", path: "/services/data/v59.0/sobjects/Contact/\(id)",
                status: 412, inner: nil, milliseconds: 1),
        ]
        try await org.store.appendEvents(entries)
        let cookie = try await signInCookie(org)
        let answer = await page(org, "GET", "/trainer/activity", headers: ["Cookie": cookie])
        #expect(answer.status == 200)
        let row = try #require(try JSONParser.parse(answer.body).arrayValue?.first { $0["username"] == "trainer@localorg.test" })
        #expect(row["requests"] == 4)
        #expect(row["recordsChanged"] == 2)
        #expect(row["conflicts"] == 4)
        #expect(row["errors"] == 2)
        #expect(row["lastSync"]?.stringValue != nil)
        #expect(row["lastSignIn"]?.stringValue != nil)
    }

    @Test("A record's history page shows each change, escaped, and the record as it is now")
    func historyPage() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        let id = try await org.create("Contact", #"{"LastName":"Escaped","Title":"Plain"}"#)
        #expect(await org.call("PATCH", "/services/data/v59.0/sobjects/Contact/\(id)", body: #"{"Title":"<script>alert(1)</script>"}"#).status == 204)
        let cookie = try await signInCookie(org)
        let answer = await page(org, "GET", "/trainer/history", query: "id=\(id)", headers: ["Cookie": cookie])
        #expect(answer.status == 200)
        let html = answer.bodyText
        #expect(html.contains("Changed <b>Title</b> from “Plain” to “&lt;script&gt;alert(1)&lt;/script&gt;”"))
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("demo@localorg.test") && html.contains("Created."))
        let unknown = await page(org, "GET", "/trainer/history", query: "id=003000000000000AAA", headers: ["Cookie": cookie])
        #expect(unknown.bodyText.contains("No record has the id"))
        let malformed = await page(org, "GET", "/trainer/history", query: "id=nonsense", headers: ["Cookie": cookie])
        #expect(malformed.status == 200 && malformed.bodyText.contains("is not a Salesforce id"))
    }

    @Test("The live feed sends each new log line as a Server-Sent Event, from Last-Event-ID on")
    func feedStream() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        try await org.store.appendEvents([
            RequestLogEntry(
                time: Date(), username: "a@class.test", method: "GET", path: "/old",
                status: 200, inner: nil, milliseconds: 1)
        ])
        let response = await page(org, "GET", "/trainer/events", headers: ["Authorization": "Bearer \(org.accessToken)", "Last-Event-ID": "1"])
        #expect(response.status == 200 && response.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        let stream = try #require(response.stream)
        try await org.store.appendEvents([
            RequestLogEntry(
                time: Date(), username: "b@class.test", method: "POST", path: "/new",
                status: 201, inner: nil, milliseconds: 1)
        ])
        var received = ""
        for await chunk in stream {
            received += String(decoding: chunk, as: UTF8.self)
            if received.contains("\n\nid: ") && received.hasSuffix("\n\n") { break }
        }
        #expect(received.hasPrefix("retry: 1000\n\n"))
        #expect(received.contains("id: 2\nevent: request\ndata: {"))
        #expect(received.contains("b@class.test POST /new 201") && !received.contains("/old"))
        // A restore (every token gone) ends the open feed within seconds.
        try await org.store.write { db in try db.execute(sql: "DELETE FROM localorg_token") }
        let ended = Task {
            for await _ in stream {}
            return true
        }
        #expect(await ended.value)
    }
}

@Suite("The trainer's page over HTTP", .serialized)
struct TrainerPageHTTPTests {
    /// Runs blocking socket code on a thread of its own: on one of Swift's few concurrency threads it
    /// would starve the in-process server it talks to.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Reads from a plain-HTTP connection until `done` holds for what came, or 60 s pass (the whole
    /// suite runs beside this in one process and can hold the in-process server up for seconds).
    static func readUntil(port: Int, request: String, done: (String) -> Bool) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect failed") }
        _ = request.withCString { send(descriptor, $0, strlen($0), 0) }
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !done(received) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return received
    }

    /// Timing is the browser test's (PythonTests/training_room): here the suite shares the process.
    @Test("A trainee's request reaches an open feed; the server then stops with the feed open")
    func liveOverHTTP() async throws {
        let server = try await RunningServer.start(tls: false)
        let token = server.org.accessToken
        let port = server.port
        let reader = Task {
            try await Self.onOwnThread {
                try Self.readUntil(port: port, request: "GET /trainer/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n") {
                    $0.contains("/services/data/v59.0/query")
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let trainee = try await server.org.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/services/data/v59.0/query?q=SELECT+Id+FROM+Contact")))
        request.setValue("Bearer \(trainee.accessToken)", forHTTPHeaderField: "Authorization")
        _ = try await URLSession(configuration: .ephemeral).data(for: request)
        let received = try await reader.value
        #expect(received.hasPrefix("HTTP/1.1 200"))
        #expect(received.contains("trainer@localorg.test GET /services/data/v59.0/query 200"))
        #expect(!received.contains("/trainer/events"))
        // A feed still open must not hold the server up as it stops.
        let openFeed = Task {
            try await Self.onOwnThread {
                try Self.readUntil(port: port, request: "GET /trainer/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n") { _ in false }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let stopping = Date()
        await server.stop()
        _ = try? await openFeed.value
        #expect(Date().timeIntervalSince(stopping) < 30)
    }
}
