/// A list pane's state: the search, the selection and the rows on screen. Only the visible window
/// is loaded, one LIMIT/OFFSET query in sort order, so a soup of 100k records scrolls and filters
/// without ever being read whole. The selection follows the record, not the row number, through
/// refreshes and searches.
public struct RecordListViewModel: Sendable {
    public let repository: RecordRepository
    public private(set) var search = ""
    public private(set) var totalCount = 0
    public private(set) var selectedIndex = 0
    public private(set) var topIndex = 0
    public private(set) var visibleRows: [LocalRecord] = []
    public private(set) var viewportHeight = 1

    public init(repository: RecordRepository) {
        self.repository = repository
    }

    public var kind: RecordKind { repository.kind }

    /// The selected record, when the list is not empty.
    public var selected: LocalRecord? {
        let offset = selectedIndex - topIndex
        return visibleRows.indices.contains(offset) ? visibleRows[offset] : nil
    }

    /// Reads the count and the window again (after a save, a sync, or on start) and keeps the
    /// selection on the same record when it is still in the list.
    public mutating func refresh() throws {
        let keep = selected?.entryId
        totalCount = try repository.count(matching: search)
        if let keep, let position = try repository.position(of: keep, matching: search) {
            selectedIndex = position
        }
        try loadWindow()
    }

    /// How many rows the pane shows; the window is reloaded to fit.
    public mutating func setViewportHeight(_ height: Int) throws {
        let height = max(height, 1)
        guard height != viewportHeight else { return }
        viewportHeight = height
        try loadWindow()
    }

    public mutating func move(by delta: Int) throws {
        selectedIndex += delta
        try loadWindow()
    }

    public mutating func pageDown() throws { try move(by: viewportHeight) }
    public mutating func pageUp() throws { try move(by: -viewportHeight) }

    public mutating func moveToTop() throws {
        selectedIndex = 0
        try loadWindow()
    }

    public mutating func moveToBottom() throws {
        selectedIndex = totalCount - 1
        try loadWindow()
    }

    /// Selects the record with `entryId` if it is in the list (after creating it, say).
    public mutating func select(entryId: Int64) throws {
        totalCount = try repository.count(matching: search)
        if let position = try repository.position(of: entryId, matching: search) {
            selectedIndex = position
        }
        try loadWindow()
    }

    /// Above this many matches a keystroke does not look for the selected record's place (a count
    /// that grows with the place); the user is still narrowing the search.
    static let keepSelectionLimit = 5_000

    /// Filters as the user types. The selected record stays selected when it still matches (and
    /// the matches are few enough to find its place at once); otherwise the first match is.
    public mutating func setSearch(_ text: String) throws {
        guard text != search else { return }
        let keep = selected?.entryId
        search = text
        totalCount = try repository.count(matching: search)
        guard let keep, search.isEmpty || totalCount <= Self.keepSelectionLimit else {
            selectedIndex = 0
            topIndex = 0
            return try loadWindow()
        }
        // While a search is typed the selection mostly sits in the first page: finding it among those
        // rows spares counting the matches sorted before it (the slowest part of such a keystroke).
        let firstPageLoaded = topIndex == 0
        if firstPageLoaded {
            selectedIndex = 0
            try loadWindow()
            if let offset = visibleRows.firstIndex(where: { $0.entryId == keep }) {
                selectedIndex = offset
                return
            }
        }
        if let position = try repository.position(of: keep, matching: search) {
            selectedIndex = position
        } else {
            selectedIndex = 0
            topIndex = 0
            if firstPageLoaded { return }
        }
        try loadWindow()
    }

    /// Clamps the selection, scrolls the least needed to keep it visible, and loads those rows.
    private mutating func loadWindow() throws {
        selectedIndex = min(max(selectedIndex, 0), max(totalCount - 1, 0))
        if selectedIndex < topIndex { topIndex = selectedIndex }
        if selectedIndex >= topIndex + viewportHeight { topIndex = selectedIndex - viewportHeight + 1 }
        topIndex = max(min(topIndex, max(totalCount - viewportHeight, 0)), 0)
        visibleRows = try repository.page(matching: search, offset: topIndex, limit: viewportHeight, matchCount: totalCount)
    }
}
