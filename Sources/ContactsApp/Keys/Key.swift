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

    /// A key as config.toml names it: one character (`S`, `/`), `ctrl-x`, `f1`…`f12`, or `enter`,
    /// `esc`, `tab`, `shift-tab`, `space`, `backspace`, `del`, `up`, `down`, `left`, `right`, `pgup`,
    /// `pgdn`, `home`, `end` (any case).
    public init?(configName name: String) {
        if name.count == 1, let character = name.first {
            self = .character(character)
            return
        }
        let lowered = name.lowercased()
        if lowered.hasPrefix("ctrl-"), lowered.count == 6, let letter = lowered.last, letter.isLetter, letter.isASCII {
            self = .control(letter)
            return
        }
        if lowered.hasPrefix("f"), let number = Int(lowered.dropFirst()), (1...12).contains(number) {
            self = .function(number)
            return
        }
        let named: [String: Key] = [
            "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape, "tab": .tab, "shift-tab": .backTab,
            "space": .character(" "), "backspace": .backspace, "del": .deleteForward, "delete": .deleteForward,
            "up": .up, "down": .down, "left": .left, "right": .right, "pgup": .pageUp, "pageup": .pageUp,
            "pgdn": .pageDown, "pagedown": .pageDown, "home": .home, "end": .end,
        ]
        guard let key = named[lowered] else { return nil }
        self = key
    }

    /// The text a key types into a field, if it types anything.
    public var typedCharacter: Character? {
        guard case let .character(character) = self else { return nil }
        return character
    }
}
