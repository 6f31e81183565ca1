import Foundation

/// The lists' shape: the pane's height and the user's list settings.
extension AppModel {
    /// The list pane's height changed (resize); the visible window is reloaded to fit.
    public mutating func setListHeight(_ height: Int) {
        inspector.setPageSize(max(height - 5, 1))
        do {
            for index in lists.indices { try lists[index].setViewportHeight(height) }
        } catch {
            toast = Toast("\(error)", isError: true)
        }
    }

    /// The user's list settings (config.toml), applied at start: the order every list opens in,
    /// at its top (where the kind offers that order), and second columns by soup.
    public mutating func applyListSettings(sort: ListSort?, columns: [String: String]) throws {
        listColumns = columns
        guard let sort else { return }
        let accountsSoup = accounts?.kind.soupName
        for index in lists.indices where ListSort.choices(for: lists[index].kind).contains(sort) {
            try lists[index].setSort(sort, accountsSoup: accountsSoup)
            // At start nothing was chosen yet: the list opens at its top, not on the record the
            // default order put first.
            try lists[index].moveToTop()
        }
    }
}
