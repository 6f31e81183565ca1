/// The Syncs tab: each named sync, ↑/↓ picking the one whose details show below.
extension AppModel {
    mutating func browseSyncs(_ command: AppCommand) throws {
        switch command {
        case .moveUp: syncs.move(by: -1)
        case .moveDown: syncs.move(by: 1)
        case .moveToTop, .pageUp: syncs.move(by: -syncs.syncs.count)
        case .moveToBottom, .pageDown: syncs.move(by: syncs.syncs.count)
        case .subscribe: startSubscribing()
        case .deleteRecord: askToUnsubscribe()
        default: try common(command)
        }
    }
}
