/// Salesforce REST resources localorg does not serve. An org that lacks a feature answers
/// `FUNCTIONALITY_NOT_ENABLED` naming it; localorg answers the same, so a client learns "this org
/// has no such feature" rather than "no such URL" (which stays `NOT_FOUND`, as in Salesforce).
struct UnservedFeature: Sendable {
    let name: String

    var error: APIError {
        APIError(
            status: 403, errorCode: "FUNCTIONALITY_NOT_ENABLED",
            message: "This feature is not currently enabled for this user type or org: [\(name)]")
    }

    /// The first segment of `/services/data/vNN.N/…` of resources localorg does not serve.
    static let byResource: [String: String] = [
        "actions": "Invocable Actions", "quickActions": "Quick Actions", "compactLayouts": "Compact Layouts",
        "scheduling": "Salesforce Scheduler", "process": "Approval Processes", "support": "Knowledge",
        "knowledgeManagement": "Knowledge", "appMenu": "App Menu", "consent": "Consent Management", "tabs": "Tabs",
        "theme": "Themes", "event": "Platform Events", "tooling": "Tooling API", "jobs": "Bulk API 2.0",
        "async-queries": "Async SOQL", "chatter": "Chatter", "connect": "Connect REST API",
        "smartdatadiscovery": "Einstein Prediction Service", "analytics": "Reports and Dashboards", "wave": "CRM Analytics",
        "recentlyViewed": "Recently Viewed", "commerce": "Commerce", "folders": "Folders", "licensing": "Licensing",
    ]

    /// Sub-resources of `sobjects/T/…` localorg does not serve.
    static let bySObjectResource: [String: String] = [
        "listviews": "List Views", "quickActions": "Quick Actions", "suggestedArticles": "Knowledge",
        "eventSchema": "Platform Events",
    ]

    /// Describe sub-resources (`sobjects/T/describe/…`) localorg does not serve.
    static let byDescribeResource: [String: String] = [
        "layouts": "Page Layouts", "compactLayouts": "Compact Layouts", "namedLayouts": "Named Layouts",
        "approvalLayouts": "Approval Processes", "describe": "Compact Layouts",
    ]

    /// The feature a data path (after the version) belongs to, when localorg does not serve it.
    static func matching(_ rest: [String]) -> UnservedFeature? {
        guard let first = rest.first else { return nil }
        // The briefcase resource is served from v54.0; before it, Salesforce has no such URL.
        if first == "connect", rest.dropFirst().first == "briefcase" { return nil }
        if first == "search", rest.count >= 2 { return UnservedFeature(name: "Search Layouts and Suggestions") }
        if first == "sobjects", rest.count == 3, rest[2] == "eventSchema" { return UnservedFeature(name: "Platform Events") }
        if first == "sobjects", rest.count >= 2, ["relevantItems", "Global"].contains(rest[1]) {
            return UnservedFeature(name: rest[1] == "Global" ? "Page Layouts" : "Relevant Items")
        }
        return byResource[first].map(UnservedFeature.init)
    }

    /// The feature a path under `sobjects/T/` belongs to, when localorg does not serve it.
    static func matching(sobjectPath path: [String]) -> UnservedFeature? {
        guard let first = path.first else { return nil }
        if first.lowercased() == "describe", path.count >= 2 { return byDescribeResource[path[1]].map(UnservedFeature.init) }
        if let name = bySObjectResource[first] { return UnservedFeature(name: name) }
        // Rich-text images; relationships after an id are served (`traverseRelationships`), and
        // the schema has no blob fields, so `{id}/{blob field}` names nothing, as in an org without one.
        if path.count >= 2, SalesforceId.isShapedLikeId(first), path[1] == "richTextImageFields" {
            return UnservedFeature(name: "Rich Text Images")
        }
        return nil
    }
}
