/// A list pane's state: the search, the selection and the rows on screen. Only the visible window
/// is loaded, so a soup of 100k records scrolls and filters without ever being read whole: the
/// whole list pages with LIMIT/OFFSET in sort order; a search places its matching ids (read from
/// the full-text index) in the list's order, read once as ids (`ListOrder`), and loads the window's
/// records by id. The selection follows the record, not the row number, through refreshes and
/// searches.
public struct RecordListViewModel: Sendable {
    public private(set) var repository: RecordRepository
    public private(set) var search = ""
    /// Which records the list shows: all, or only those with local changes, errors or conflicts.
    public private(set) var filter = RecordFilter.all
    public private(set) var totalCount = 0
    public private(set) var selectedIndex = 0
    public private(set) var topIndex = 0
    public private(set) var visibleRows: [LocalRecord] = []
    public private(set) var viewportHeight = 1
    /// The list's order while searching; read again after this list's writes and when a search
    /// meets a record it has not seen.
    private var order: ListOrder?
    /// The current search's matches, `nil` when the whole list shows.
    private var matches: SearchMatches?
    /// A record shown although the search or filter no longer lets it through: the one just
    /// saved, so the list does not slide another record under the cursor. Until the search or
    /// filter changes, or the list is read again after a sync.
    public private(set) var keptInView: Int64?

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
        // After a sync or another process's writes the list is what the store says again.
        keptInView = nil
        order = nil
        try match()
        if let keep, let position = try position(of: keep) {
            selectedIndex = position
        }
        try loadWindow()
    }

    /// Reads the list's order ahead of a search (when the search box opens), so the first
    /// keystroke does not wait for it.
    public mutating func prepareSearch() throws {
        if order == nil { order = ListOrder(ids: try repository.entryIdsInOrder()) }
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

    /// Selects the record with `entryId` if it is in the list (after creating it, say). With
    /// `keepingInView`, a narrowed list keeps showing it even when it no longer matches.
    public mutating func select(entryId: Int64, keepingInView: Bool = false) throws {
        if keepingInView, !search.isEmpty || filter != .all { keptInView = entryId }
        order = nil
        try match()
        if let position = try position(of: entryId) {
            selectedIndex = position
        }
        try loadWindow()
    }

    /// Sorts the list by `sort`, keeping the selected record selected (and in view).
    public mutating func setSort(_ sort: ListSort, accountsSoup: String?) throws {
        guard sort != repository.sort else { return }
        let keep = selected?.entryId
        repository.setSort(sort, accountsSoup: accountsSoup)
        order = nil
        try match()
        if let keep, let position = try position(of: keep) { selectedIndex = position }
        topIndex = max(selectedIndex - viewportHeight / 2, 0)
        try loadWindow()
    }

    /// Filters as the user types. The selected record stays selected when it still matches;
    /// otherwise the first match is.
    public mutating func setSearch(_ text: String) throws {
        guard text != search else { return }
        try narrow { $0.search = text }
    }

    /// Shows only the records `filter` keeps (with the search, if any); the selection stays on its
    /// record when that still shows.
    public mutating func setFilter(_ filter: RecordFilter) throws {
        guard filter != self.filter else { return }
        try narrow { $0.filter = filter }
    }

    /// Applies a change of search or filter, keeping the selection on its record when it still
    /// shows, else on the first row.
    private mutating func narrow(_ change: (inout RecordListViewModel) -> Void) throws {
        let keep = selected?.entryId
        keptInView = nil
        change(&self)
        try match()
        if let keep, let position = try position(of: keep) {
            selectedIndex = position
        } else {
            selectedIndex = 0
            topIndex = 0
        }
        try loadWindow()
    }

    /// The ids the search and the filter let through (and the one kept in view); nil when
    /// neither narrows.
    private func matchingIds() throws -> [Int64]? {
        guard var ids = try narrowedIds() else { return nil }
        if let keptInView, !ids.contains(keptInView) { ids.append(keptInView) }
        return ids
    }

    private func narrowedIds() throws -> [Int64]? {
        let searched = try repository.entryIds(matching: search)
        guard filter != .all else { return searched }
        let filtered = try repository.entryIds(in: filter)
        guard let searched else { return filtered }
        let kept = Set(filtered)
        return searched.filter(kept.contains)
    }

    /// Whether the record with `entryId` shows only because it is kept in view.
    public func showsOnlyAsKept(_ entryId: Int64) throws -> Bool {
        guard keptInView == entryId, let ids = try narrowedIds() else { return false }
        return !ids.contains(entryId)
    }

    /// Counts the list for the current search and filter and, when they narrow it, places the
    /// matches in the list's order (read first when needed, and again once if a match is newer).
    private mutating func match() throws {
        guard let ids = try matchingIds() else {
            guard repository.sort != .name else {
                matches = nil
                totalCount = try repository.count()
                return
            }
            // Another order than the sort index's: read once as ids, then paged by id like a search.
            let fresh = ListOrder(ids: try repository.entryIdsInOrder())
            order = fresh
            matches = fresh.place(fresh.ids).matches
            totalCount = matches?.count ?? 0
            return
        }
        try prepareSearch()
        var placed = order.map { $0.place(ids) }
        if placed == nil || placed?.unknown != 0 {
            // A match newer than the order: read it again. What it still lacks was deleted since.
            let fresh = ListOrder(ids: try repository.entryIdsInOrder())
            order = fresh
            placed = fresh.place(ids)
        }
        matches = placed?.matches
        totalCount = matches?.count ?? 0
    }

    /// The record's index in the list as it stands (searched or not); `nil` when it is not in it.
    private func position(of entryId: Int64) throws -> Int? {
        guard let matches else { return try repository.position(of: entryId) }
        guard let rank = order?.rank(of: entryId), matches.contains(rank) else { return nil }
        return matches.index(ofRank: rank)
    }

    /// Clamps the selection, scrolls the least needed to keep it visible, and loads those rows. A
    /// match deleted since the search ran (by a sync in another process) makes it run again once.
    private mutating func loadWindow(rematched: Bool = false) throws {
        selectedIndex = min(max(selectedIndex, 0), max(totalCount - 1, 0))
        if selectedIndex < topIndex { topIndex = selectedIndex }
        if selectedIndex >= topIndex + viewportHeight { topIndex = selectedIndex - viewportHeight + 1 }
        topIndex = max(min(topIndex, max(totalCount - viewportHeight, 0)), 0)
        guard let matches, let order else {
            visibleRows = try repository.page(offset: topIndex, limit: viewportHeight)
            return
        }
        let ids = matches.ranks(from: topIndex, limit: viewportHeight).map { order.ids[$0] }
        visibleRows = try repository.records(entryIds: ids)
        if visibleRows.count < ids.count, !rematched {
            try match()
            try loadWindow(rematched: true)
        }
    }
}
