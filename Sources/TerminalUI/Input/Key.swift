/// One key press, decoded from ncurses (or queued by a test).
public enum Key: Sendable, Hashable {
    case character(Character)
    /// Ctrl plus a letter, lower-case: `.control("s")` is Ctrl-S.
    case control(Character)
    case function(Int)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, deleteForward

    /// How the key is written in the help screen and the README.
    public var label: String {
        switch self {
        case .character(" "): return "Space"
        case let .character(character): return String(character)
        case let .control(letter): return "Ctrl-\(String(letter).uppercased())"
        case let .function(number): return "F\(number)"
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .backspace: return "Backspace"
        case .deleteForward: return "Del"
        }
    }

    /// The label with ASCII stand-ins for the arrows, for `--ascii`.
    public var asciiLabel: String {
        switch self {
        case .up: return "Up"
        case .down: return "Down"
        case .left: return "Left"
        case .right: return "Right"
        default: return label
        }
    }

    /// The text a key types into a field, if it types anything.
    public var typedCharacter: Character? {
        guard case let .character(character) = self else { return nil }
        return character
    }
}
