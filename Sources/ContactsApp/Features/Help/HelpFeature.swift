/// The `?` screen: every key, scrolled with the moving keys when it does not fit.
extension AppModel {
    /// Rows of the `?` screen's keys scrolled past, when they do not fit the terminal.
    public var helpScroll: Int {
        if case let .help(scroll) = overlay { return scroll }
        return 0
    }

    static let helpScrollLimit = 80

    mutating func help(_ command: AppCommand, scroll: Int) {
        switch command {
        case .toggleHelp, .back, .quit: overlay = nil
        case .moveDown: overlay = .help(scroll: min(scroll + 1, Self.helpScrollLimit))
        case .moveUp: overlay = .help(scroll: max(scroll - 1, 0))
        case .pageDown: overlay = .help(scroll: min(scroll + 10, Self.helpScrollLimit))
        case .pageUp: overlay = .help(scroll: max(scroll - 10, 0))
        default: break
        }
    }
}
