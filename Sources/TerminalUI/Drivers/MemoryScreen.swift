import ContactsApp

/// An in-memory terminal: events come from a queue a test fills, and each presented canvas is kept
/// so snapshots can read it as text plus an attribute map.
public final class MemoryScreen: TerminalScreen {
    public private(set) var size: Size
    public private(set) var presented: Canvas?
    private var queue: [TerminalEvent] = []

    public init(size: Size) {
        self.size = size
    }

    /// Queues key presses, in order.
    public func type(_ keys: [Key]) { queue += keys.map(TerminalEvent.key) }

    /// Queues every character of `text` as a key press.
    public func type(_ text: String) { queue += text.map { TerminalEvent.key(.character($0)) } }

    /// Queues a resize, as SIGWINCH would.
    public func resize(to newSize: Size) { queue.append(.resized(newSize)) }

    /// Queues a quit signal, as SIGTERM or SIGHUP would.
    public func signal(_ number: Int32) { queue.append(.quitSignal(number)) }

    public func present(_ canvas: Canvas) {
        presented = canvas
    }

    /// What was put on the clipboard, in order.
    public private(set) var clipboard: [String] = []

    public func copyToClipboard(_ text: String) { clipboard.append(text) }

    public func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent? {
        guard !queue.isEmpty else { return nil }
        let event = queue.removeFirst()
        if case let .resized(newSize) = event { size = newSize }
        return event
    }

    public func restore() {}
}
