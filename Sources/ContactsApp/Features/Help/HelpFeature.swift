/// The `?` screen: every key, scrolled with the moving keys when it does not fit.
extension AppModel {
    /// Rows of the `?` screen's keys scrolled past, when they do not fit the terminal.
    public var helpScroll: Int {
        if case let .help(scroll) = overlay { return scroll }
        return 0
    }

    /// The screen tells how far its keys scroll (they fit: 0), so a key past the end does nothing.
    public mutating func fitHelp(scrollLimit: Int) {
        helpScrollLimit = max(scrollLimit, 0)
        if case let .help(scroll) = overlay, scroll > helpScrollLimit { overlay = .help(scroll: helpScrollLimit) }
    }

    mutating func help(_ command: AppCommand, scroll: Int) {
        switch command {
        case .toggleHelp, .back, .quit: overlay = nil
        case .moveDown: overlay = .help(scroll: min(scroll + 1, helpScrollLimit))
        case .moveUp: overlay = .help(scroll: max(scroll - 1, 0))
        case .pageDown: overlay = .help(scroll: min(scroll + 10, helpScrollLimit))
        case .pageUp: overlay = .help(scroll: max(scroll - 10, 0))
        case .moveToTop: overlay = .help(scroll: 0)
        case .moveToBottom: overlay = .help(scroll: helpScrollLimit)
        default: break
        }
    }
}
