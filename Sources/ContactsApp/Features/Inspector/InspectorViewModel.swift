import Foundation
import SmartStore

/// The Inspector tab, like the Mobile SDK's SmartStore Inspector: a Smart SQL prompt whose results
/// are paged from SQLite (never read whole), plus the soups and indices lists, which are the SDK
/// inspector's own queries over `soup_attrs` and `soup_index_map`. A bad query is an error message
/// on the tab, never a crash.
public struct InspectorViewModel: Sendable {
    public static let soupsQuery = "SELECT soupName FROM soup_attrs ORDER BY soupName"
    public static let indicesQuery = "SELECT soupName, path, columnType FROM soup_index_map ORDER BY soupName, path"

    public let store: SmartStore
    /// What is typed at the prompt, and its cursor.
    public var prompt = TextInput()
    public var queryText: String { prompt.text }
    /// The query the results belong to.
    public private(set) var ranQuery: String?
    public private(set) var page: SmartSqlPage?
    public private(set) var error: String?
    public private(set) var pageSize = 10

    public init(store: SmartStore) {
        self.store = store
    }

    public mutating func type(_ character: Character) {
        guard !character.isNewline else { return }
        prompt.insert(character)
    }

    /// Runs the prompt's query from its first page.
    public mutating func run() {
        let text = queryText.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            error = "Type a Smart SQL query, e.g. SELECT {contacts:LastName} FROM {contacts}"
            return
        }
        load(text, page: 1)
    }

    /// The soups list (the SDK inspector's Soups button).
    public mutating func showSoups() {
        prompt = TextInput(Self.soupsQuery)
        load(Self.soupsQuery, page: 1)
    }

    /// The indices of every soup (the SDK inspector's Indices button).
    public mutating func showIndices() {
        prompt = TextInput(Self.indicesQuery)
        load(Self.indicesQuery, page: 1)
    }

    public mutating func nextPage() {
        guard let ranQuery, let page, page.summary.page < page.summary.pageCount else { return }
        load(ranQuery, page: page.summary.page + 1)
    }

    public mutating func previousPage() {
        guard let ranQuery, let page, page.summary.page > 1 else { return }
        load(ranQuery, page: page.summary.page - 1)
    }

    /// How many result rows fit on screen; the current query is read again at that size.
    public mutating func setPageSize(_ size: Int) {
        let size = max(size, 1)
        guard size != pageSize else { return }
        pageSize = size
        if let ranQuery { load(ranQuery, page: 1) }
    }

    private mutating func load(_ query: String, page number: Int) {
        ranQuery = query
        do {
            page = try SmartSqlPage.fetch(query, store: store, page: number, pageSize: pageSize)
            error = nil
        } catch {
            page = nil
            self.error = "\(error)"
        }
    }
}
