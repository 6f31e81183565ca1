import ContactsApp

/// What the event loop waits for: a key, a new terminal size, or a request to stop (SIGTERM,
/// SIGHUP, SIGINT).
public enum TerminalEvent: Sendable, Equatable {
    case key(Key)
    case resized(Size)
    case quitSignal(Int32)
}

/// A place to show canvases and read keys from: the real terminal through ncurses, or memory for tests.
/// Drivers are used from one thread, the event loop's.
public protocol TerminalScreen: AnyObject {
    var size: Size { get }
    /// Shows `canvas` (sized to `size`), moving the terminal cursor to `canvas.cursor` or hiding it.
    func present(_ canvas: Canvas)
    /// The next event, or `nil` when none came within `timeoutMilliseconds` (the loop's tick).
    func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent?
    /// Puts `text` on the clipboard of the terminal the user sits at (OSC 52: the terminal
    /// emulator does it, so it works over SSH and inside tmux with `set-clipboard on`).
    func copyToClipboard(_ text: String)
    /// Gives the terminal back: normal mode, cursor shown, screen restored. Safe to call twice.
    func restore()
}
