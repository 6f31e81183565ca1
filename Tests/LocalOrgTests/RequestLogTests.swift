import Foundation
import Testing

@testable import LocalOrg

@Suite("The request log: who, what, and what a composite answer held")
struct RequestLogTests {
    func outcomes(_ path: String, _ json: String, status: Int = 200) -> String? {
        RequestLogEntry.innerOutcomes(path: path, status: status, body: Array(json.utf8))
    }

    @Test("Each composite family's answer is counted by its inner outcomes")
    func compositeFamilies() {
        #expect(outcomes("/services/data/v60.0/composite", #"{"compositeResponse":[{"httpStatusCode":201},{"httpStatusCode":201},{"httpStatusCode":412}]}"#) == "201×2 412×1")
        #expect(
            outcomes("/services/data/v60.0/composite/sobjects", #"[{"id":"003","success":true,"errors":[]},{"success":false,"errors":[{"statusCode":"ENTITY_IS_DELETED"}]}]"#)
                == "ok×1 ENTITY_IS_DELETED×1")
        #expect(outcomes("/services/data/v60.0/composite/batch", #"{"hasErrors":true,"results":[{"statusCode":204},{"statusCode":404}]}"#) == "204×1 404×1")
        #expect(outcomes("/services/data/v60.0/composite/tree/Account", #"{"hasErrors":false,"results":[{"referenceId":"a","id":"001"}]}"#) == "201×1")
        #expect(
            outcomes("/services/data/v60.0/composite/tree/Account", #"{"hasErrors":true,"results":[{"referenceId":"a","errors":[{"statusCode":"REQUIRED_FIELD_MISSING"}]}]}"#)
                == "REQUIRED_FIELD_MISSING×1")
        // A collections retrieve (POST with ids) answers the records, null for an id not found: read, not refused.
        let retrieved = outcomes(
            "/services/data/v60.0/composite/sobjects/Contact",
            #"[{"attributes":{"type":"Contact"},"Id":"003A"},{"attributes":{"type":"Contact"},"Id":"003B"},null]"#)
        #expect(retrieved == "ok×2 absent×1")
        let entry = RequestLogEntry(
            time: Date(), username: "t01@class.test", method: "POST", path: "/services/data/v60.0/composite/sobjects/Contact",
            status: 200, inner: retrieved, milliseconds: 5)
        #expect(entry.tally == (done: 3, conflicts: 0, errors: 0), "the trainer's page counts no error for records read")
    }

    @Test("Other answers, refused envelopes and bodies that are not JSON have none")
    func notComposite() {
        #expect(outcomes("/services/data/v60.0/query", #"{"records":[]}"#) == nil)
        #expect(outcomes("/services/data/v60.0/composite/sobjects", #"[{"errorCode":"INVALID_SESSION_ID"}]"#, status: 401) == nil)
        #expect(outcomes("/services/data/v60.0/composite", "not json") == nil)
    }

    @Test("A line: UTC time, user or -, method, path, status, inner outcomes, duration")
    func line() {
        let entry = RequestLogEntry(
            time: Date(timeIntervalSince1970: 1_795_000_000), username: "t01@class.test", method: "POST",
            path: "/services/data/v60.0/composite/sobjects", status: 200, inner: "ok×24 ENTITY_IS_DELETED×1", milliseconds: 24.44)
        #expect(entry.line == "2026-11-18T11:06:40Z t01@class.test POST /services/data/v60.0/composite/sobjects 200 [ok×24 ENTITY_IS_DELETED×1] 24.4 ms")
        var anonymous = entry
        anonymous.username = nil
        anonymous.inner = nil
        #expect(anonymous.line == "2026-11-18T11:06:40Z - POST /services/data/v60.0/composite/sobjects 200 24.4 ms")
        var typed = entry
        typed.username = "evil\n2026-11-18T11:06:40Z admin\u{1B}[2J"
        #expect(typed.line.hasPrefix("2026-11-18T11:06:40Z evil?2026-11-18T11:06:40Z admin?[2J POST"), "no control character reaches a terminal")
    }
}
