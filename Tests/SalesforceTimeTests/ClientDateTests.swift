import Foundation
import SalesforceTime
import Testing

@Suite("Salesforce datetimes as the client reads and writes them")
struct ClientDateTests {
    @Test("The forms Salesforce and SOQL use all parse to the same instant")
    func parsesEveryForm() throws {
        let expected = Date(timeIntervalSince1970: 1_704_164_645)
        for text in [
            "2024-01-02T03:04:05.000+0000", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05+00:00", "2024-01-02T05:04:05.000+0200",
            "2024-01-01T22:04:05-05:00",
        ] {
            #expect(SalesforceDate.parse(text) == expected, "\(text)")
        }
        #expect(SalesforceDate.parse("2024-01-02T03:04:05.250Z")?.timeIntervalSince1970 == 1_704_164_645.25)
    }

    @Test("Text that is not a datetime is refused")
    func refusesGarbage() {
        for text in ["", "2024-01-02", "2024-13-02T03:04:05Z", "2024-01-02T03:04:05", "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05Zjunk"] {
            #expect(SalesforceDate.parse(text) == nil, "\(text)")
        }
    }

    @Test("Formatting writes UTC with milliseconds and a colon-less offset, and round-trips")
    func formats() throws {
        let date = Date(timeIntervalSince1970: 1_704_164_645.123)
        #expect(SalesforceDate.format(date) == "2024-01-02T03:04:05.123+0000")
        #expect(SalesforceDate.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000+0000")
        #expect(SalesforceDate.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000+0000")
        for seconds in stride(from: -86_400.0 * 800, to: 86_400 * 40_000, by: 86_400 * 97.3) {
            let instant = Date(timeIntervalSince1970: (seconds * 1000).rounded(.down) / 1000)
            #expect(SalesforceDate.parse(SalesforceDate.format(instant)) == instant)
        }
    }

    @Test("HTTP dates for If-Unmodified-Since")
    func httpDates() {
        #expect(SalesforceDate.httpDate(Date(timeIntervalSince1970: 1_704_164_645)) == "Tue, 02 Jan 2024 03:04:05 GMT")
        #expect(SalesforceDate.httpDate(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}
