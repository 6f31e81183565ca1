import ForceJSON
import Foundation
import GRDB

/// `query`, `queryAll` and their next pages.
extension LocalOrgAPI {
    func query(_ context: DataContext, includeDeleted: Bool, locator: String?) async throws -> APIResponse {
        let page: QueryEngine.Page
        if let locator {
            page = try await queries.more(locator: locator, userId: context.session.userId, apiVersion: context.apiVersion)
        } else {
            guard let text = context.request.queryItems["q"], !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw APIError.malformedQuery("A query string has to be specified")
            }
            page = try await queries.query(
                text, includeDeleted: includeDeleted, batchSize: batchSize(context.request),
                userId: context.session.userId, visibleTo: context.visibleOwner, policy: context.queryPolicy,
                apiVersion: context.apiVersion)
        }
        return .json(Self.queryResult(page, apiVersion: context.apiVersion))
    }

    /// A query page as the REST API answers it; `nextRecordsUrl` only while there are more.
    static func queryResult(_ page: QueryEngine.Page, apiVersion: String) -> JSONValue {
        var body: JSONObject = ["totalSize": .int(Int64(page.totalSize)), "done": .bool(page.done)]
        if let next = page.nextLocator { body["nextRecordsUrl"] = .string("/services/data/v\(apiVersion)/query/\(next)") }
        body["records"] = .array(page.records)
        return .object(body)
    }

    /// `Sforce-Query-Options: batchSize=N`, clamped by the engine to 200…2000.
    func batchSize(_ request: APIRequest) -> Int {
        guard let options = request.header("sforce-query-options") else { return QueryEngine.defaultBatchSize }
        for option in options.split(separator: ",") {
            let pair = option.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "batchsize", let size = Int(pair[1]) { return size }
        }
        return QueryEngine.defaultBatchSize
    }
}
