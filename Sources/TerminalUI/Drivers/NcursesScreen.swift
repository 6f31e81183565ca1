import CNcursesw
import ContactsApp
import Foundation

/// The real terminal, through ncursesw: UTF-8 locale, raw keys (so Ctrl-S reaches us instead of
/// pausing output), a short Esc delay, no mouse, colours when wanted and available. It paints a
/// `Canvas` cell run by cell run; ncurses sends only what changed since the last paint.
public final class NcursesScreen: TerminalScreen {
    public private(set) var size: Size
    /// Whether colours are on: wanted by the user and supported by the terminal.
    public let colors: Bool
    /// Whether the locale writes UTF-8. Without it every cell is drawn in ASCII (José as Jose,
    /// other scripts as ?) instead of as blanks.
    public let unicode: Bool
    private var isOpen = true
    private var colorPairs: [Int: Int16] = [:]
    /// The canvas last handed to ncurses, to skip the rows that did not change; `nil` after a resize.
    private var shown: Canvas?

    /// How long ncurses waits after Esc for the rest of an escape sequence, unless ESCDELAY is set.
    public static let escapeDelayMilliseconds: Int32 = 25

    /// Takes over the terminal. Throws when stdin or stdout is not a terminal ncurses can drive.
    public init(wantColors: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw NcursesScreenError.notATerminal }
        // These terminals cannot move the cursor: ncurses would start and draw one long line.
        let term = environment["TERM"] ?? ""
        if term.isEmpty || term == "dumb" || term == "unknown" { throw NcursesScreenError.cannotPlaceCursor(term: term) }
        _ = cnc_set_locale_from_environment()
        unicode = cnc_locale_is_utf8() == 1
        guard cnc_start_terminal() == 1 else { throw NcursesScreenError.cannotStart }
        raw()
        noecho()
        nonl()
        keypad(cnc_standard_screen(), true)
        if environment["ESCDELAY"] == nil { set_escdelay(Self.escapeDelayMilliseconds) }
        cnc_watch_quit_signals()
        var useColors = false
        if wantColors, has_colors() {
            start_color()
            use_default_colors()
            useColors = true
        }
        colors = useColors
        size = Size(width: Int(cnc_columns()), height: Int(cnc_rows()))
    }

    public func present(_ canvas: Canvas) {
        guard isOpen else { return }
        var canvas = canvas
        if !unicode { canvas.transliterateToASCII() }
        if shown?.size != canvas.size { shown = nil }
        let width = min(canvas.size.width, size.width)
        for y in 0..<min(canvas.size.height, size.height) {
            // A row drawn exactly so last time is still on ncurses' screen: no need to go through
            // its cells again (most of a frame, when the selection moves or a search narrows).
            let row = y * canvas.size.width..<(y * canvas.size.width + width)
            if let shown, shown.cells[row] == canvas.cells[row] { continue }
            var x = 0
            while x < width {
                // One call per run of cells with the same style.
                let style = canvas[x, y].style
                let start = x
                var text: [wchar_t] = []
                while x < width, canvas[x, y].style == style {
                    let cell = canvas[x, y]
                    if let ascii = Self.singleASCII(cell.text) {
                        text.append(ascii)
                    } else if !cell.isContinuation {
                        text += Self.drawable(cell.text)
                    }
                    x += 1
                }
                cnc_put_wide(Int32(y), Int32(start), text, Int32(text.count), attributes(for: style))
            }
        }
        shown = canvas
        if let cursor = canvas.cursor {
            curs_set(1)
            move(Int32(cursor.y), Int32(cursor.x))
        } else {
            curs_set(0)
        }
        refresh()
    }

    /// A printable ASCII cell's character: what nearly every cell holds, drawn without measuring.
    private static func singleASCII(_ text: String) -> wchar_t? {
        var bytes = text.utf8.makeIterator()
        guard let byte = bytes.next(), bytes.next() == nil, (0x20..<0x7F).contains(byte) else { return nil }
        return wchar_t(byte)
    }

    /// A cluster as ncurses will draw it at the width DisplayWidth gave it. When the C library's
    /// wcwidth disagrees (an emoji ZWJ sequence is several pictures to glibc), the first scalar alone
    /// or spaces are drawn instead, so one odd cluster can never shift the rest of the row.
    static func drawable(_ cluster: String) -> [wchar_t] {
        let wanted = DisplayWidth.of(cluster)
        let scalars = cluster.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        let libcWidth = scalars.reduce(0) { $0 + max(Int(cnc_character_width($1)), 0) }
        if libcWidth == wanted { return scalars }
        if let first = scalars.first, Int(cnc_character_width(first)) == wanted { return [first] }
        return Array(repeating: wchar_t(32), count: wanted)
    }

    private func attributes(for style: CellStyle) -> attr_t {
        var attributes = cnc_attribute_normal()
        if style.bold { attributes |= cnc_attribute_bold() }
        if style.dim { attributes |= cnc_attribute_dim() }
        if style.reverse { attributes |= cnc_attribute_reverse() }
        if style.underline { attributes |= cnc_attribute_underline() }
        if colors, style.foreground != .standard || style.background != .standard {
            attributes |= cnc_color_pair(Int32(pair(foreground: style.foreground, background: style.background)))
        }
        return attributes
    }

    /// The colour pair for a combination, allocated on first use.
    private func pair(foreground: TerminalColor, background: TerminalColor) -> Int16 {
        let key = (foreground.rawValue + 1) * 16 + background.rawValue + 1
        if let existing = colorPairs[key] { return existing }
        let number = Int16(colorPairs.count + 1)
        init_pair(number, Int16(foreground.rawValue), Int16(background.rawValue))
        colorPairs[key] = number
        return number
    }

    public func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent? {
        if let signal = takeSignal() { return signal }
        timeout(Int32(timeoutMilliseconds))
        var key: wint_t = 0
        let result = cnc_read_key(&key)
        if let signal = takeSignal() { return signal }
        switch result {
        case KEY_CODE_YES:
            if Int32(key) == KEY_RESIZE {
                size = Size(width: Int(cnc_columns()), height: Int(cnc_rows()))
                clear()
                shown = nil
                return .resized(size)
            }
            return Self.decodeKeyCode(Int32(key)).map(TerminalEvent.key)
        case OK:
            return Self.decodeCharacter(UInt32(key)).map(TerminalEvent.key)
        default:
            return nil
        }
    }

    private func takeSignal() -> TerminalEvent? {
        let number = cnc_take_quit_signal()
        return number == 0 ? nil : .quitSignal(number)
    }

    /// A typed character: control codes become named keys.
    static func decodeCharacter(_ value: UInt32) -> Key? {
        switch value {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26:
            guard let scalar = Unicode.Scalar(value + 96) else { return nil }
            return .control(Character(scalar))
        default:
            guard let scalar = Unicode.Scalar(value), value >= 32 else { return nil }
            return .character(Character(scalar))
        }
    }

    /// An ncurses KEY_ code.
    static func decodeKeyCode(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BTAB: return .backTab
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .deleteForward
        default:
            for number in 1...12 where code == cnc_key_function(Int32(number)) { return .function(number) }
            return nil
        }
    }

    /// OSC 52 written straight to the terminal, between ncurses' own writes (it moves no cursor
    /// and draws nothing). Terminals that do not know it ignore it.
    public func copyToClipboard(_ text: String) {
        guard isOpen else { return }
        let sequence = "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}"
        fflush(nil)
        FileHandle.standardOutput.write(Data(sequence.utf8))
    }

    public func restore() {
        guard isOpen else { return }
        isOpen = false
        curs_set(1)
        endwin()
    }

    deinit { restore() }
}

/// Why the terminal could not be taken over.
public enum NcursesScreenError: Error, CustomStringConvertible {
    case notATerminal
    case cannotStart
    case cannotPlaceCursor(term: String)

    public var description: String {
        switch self {
        case .notATerminal: return "the TUI needs a terminal; run it in one, or use a subcommand such as `forceterm query`"
        case .cannotStart: return "cannot start the terminal UI: check that TERM names a terminal this machine knows"
        case let .cannotPlaceCursor(term):
            return "\(term.isEmpty ? "TERM is not set" : "TERM=\(term) cannot move the cursor"), so the screen cannot be drawn; "
                + "set TERM to your terminal (xterm-256color, screen-256color, tmux-256color), or use a subcommand such as `forceterm query`"
        }
    }
}
