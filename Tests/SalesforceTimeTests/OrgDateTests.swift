import SalesforceTime
import Testing

/// Dates as localorg writes them and checks what clients send.
@Suite("Salesforce dates as the org checks them")
struct OrgDateTests {
    /// 2024-01-02T03:04:05Z
    static let sample: Int64 = 1_704_164_645

    @Test func datetimesAreWrittenInSalesforceFormat() {
        #expect(SalesforceDate.formatDateTime(Self.sample) == "2024-01-02T03:04:05.000+0000")
        #expect(SalesforceDate.formatDateTime(0) == "1970-01-01T00:00:00.000+0000")
        #expect(SalesforceDate.formatDateTime(-1) == "1969-12-31T23:59:59.000+0000")
    }

    @Test(arguments: [
        "2024-01-02T03:04:05Z", "2024-01-02T03:04:05+00:00", "2024-01-02T03:04:05.000+0000",
        "2024-01-02T03:04:05.123Z", "2024-01-01T22:04:05-05:00", "2024-01-02T04:04:05.000+0100",
    ])
    func everyClientFormReadsAsTheSameInstant(text: String) {
        #expect(SalesforceDate.parseDateTime(text) == Self.sample)
    }

    @Test(arguments: ["2024-01-02", "2024-01-02T03:04:05", "2024-02-30T00:00:00Z", "2024-01-02T25:00:00Z", "2024-01-02T03:04:05+0", "garbage"])
    func malformedDatetimesAreRejected(text: String) {
        #expect(SalesforceDate.parseDateTime(text) == nil)
    }

    @Test func datesCheckTheCalendar() {
        #expect(SalesforceDate.parseDate("2024-02-29") != nil)
        #expect(SalesforceDate.parseDate("2023-02-29") == nil)
        #expect(SalesforceDate.parseDate("2024-13-01") == nil)
        #expect(SalesforceDate.parseDate("2024-01-02").map { SalesforceDate.formatDate(days: $0) } == "2024-01-02")
    }

    @Test func httpDatesRoundTrip() {
        let text = SalesforceDate.formatHTTPDate(Self.sample)
        #expect(text == "Tue, 02 Jan 2024 03:04:05 GMT")
        #expect(SalesforceDate.parseHTTPDate(text) == Self.sample)
        #expect(SalesforceDate.parseHTTPDate("Tue, 30 Feb 2024 03:04:05 GMT") == nil)
    }
}
