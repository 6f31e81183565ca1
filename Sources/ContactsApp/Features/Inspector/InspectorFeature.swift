/// The Inspector tab: a Smart SQL prompt, its results a page at a time, the soups and indices.
extension AppModel {
    mutating func inspecting(_ command: AppCommand) throws {
        switch command {
        case .editQuery: overlay = .typingQuery
        case .moveDown, .pageDown: inspector.nextPage()
        case .moveUp, .pageUp: inspector.previousPage()
        case .showSoups: inspector.showSoups()
        case .showIndices: inspector.showIndices()
        default: try common(command)
        }
    }

    /// The prompt has the keys: typed text edits the query, Enter runs it.
    mutating func typingQuery(_ command: AppCommand) {
        switch command {
        case .runQuery:
            inspector.run()
            overlay = nil
        case .stopEditingQuery: overlay = nil
        case .deleteBackward: inspector.prompt.deleteBackward()
        case .deleteForward: inspector.prompt.deleteForward()
        case .cursorLeft: inspector.prompt.moveCursor(by: -1)
        case .cursorRight: inspector.prompt.moveCursor(by: 1)
        case .cursorHome: inspector.prompt.moveToStart()
        case .cursorEnd: inspector.prompt.moveToEnd()
        case .clearLine: inspector.prompt.clear()
        default: break
        }
    }
}
