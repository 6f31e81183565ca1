import SalesforceTime

/// Salesforce datetimes (`2016-03-29T18:34:24.000+0000`, `…Z`, `…+00:00`) as the epoch
/// milliseconds the sync states store; the conversions live in ForceAPI's `SalesforceDate`.
public enum SalesforceTimestamp {
    /// Epoch ms for a Salesforce datetime; `nil` when the text is not one.
    public static func parse(_ text: String) -> Int64? { SalesforceDate.milliseconds(text) }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC, the form SOQL datetime literals take.
    public static func format(_ millis: Int64) -> String { SalesforceDate.soqlLiteral(milliseconds: millis) }
}
