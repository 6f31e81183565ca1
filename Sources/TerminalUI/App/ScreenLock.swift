import ContactsApp

/// The screen lock of a passcode-protected store (the org's `mobile_policy.screen_lock`, or
/// config.toml's `lock-after`): after `idleLimit` without a key the records leave the screen and the
/// passcode is asked; a sync running meanwhile goes on. `check` says whether a passcode is the
/// store's (slow on purpose: a key derivation).
public struct ScreenLock {
    public var idleLimit: Duration
    /// Why it locks, for the lock screen ("your org's policy: 10 minutes").
    public var reason: String
    public var check: (String) -> Bool

    public init(idleLimit: Duration, reason: String, check: @escaping (String) -> Bool) {
        self.idleLimit = idleLimit
        self.reason = reason
        self.check = check
    }
}

/// What the lock screen holds while locked: the passcode typed so far (never shown) and the wrong tries.
struct LockPrompt: Equatable {
    var typed = ""
    var wrongTries = 0

    /// Handles one key; true when `check` accepted the passcode.
    mutating func handle(_ key: Key, check: (String) -> Bool) -> Bool {
        switch key {
        case .enter:
            guard !typed.isEmpty else { return false }
            if check(typed) { return true }
            wrongTries += 1
            typed = ""
        case .backspace:
            if !typed.isEmpty { typed.removeLast() }
        case .escape, .control("u"):
            typed = ""
        default:
            if let character = key.typedCharacter { typed.append(character) }
        }
        return false
    }
}

/// The lock screen: nothing of the store, a box asking for the passcode, one dot per character typed.
enum LockScreen {
    static func render(_ prompt: LockPrompt, reason: String, syncing: Bool, size: Size, theme: Theme) -> Canvas {
        var canvas = Canvas(size: size)
        canvas.fill(Rect(x: 0, y: 0, width: size.width, height: size.height), style: theme.style(.normal))
        var lines = ["forceterm is locked (\(reason)).", "Type your passcode and press Enter."]
        if prompt.wrongTries > 0 { lines.append("Wrong passcode (\(prompt.wrongTries) in a row).") }
        if syncing { lines.append("The sync goes on in the background.") }
        let dots = String(repeating: theme.lines == .ascii ? "*" : "•", count: min(prompt.typed.count, 32))
        let width = min(max(lines.map(\.displayWidth).max() ?? 0, 24) + 6, max(size.width - 2, 10))
        let box = Rect(x: 0, y: 0, width: size.width, height: size.height).centered(width: width, height: lines.count + 5)
        Box.draw(in: &canvas, box, theme: theme, title: "Locked", style: theme.style(.dialog))
        for (index, line) in lines.enumerated() {
            canvas.draw(line, x: box.x + 2, y: box.y + 1 + index, style: theme.style(prompt.wrongTries > 0 && index == 2 ? .toastError : .dialog),
                        maxWidth: box.width - 4)
        }
        let field = "Passcode: " + dots
        canvas.draw(field, x: box.x + 2, y: box.y + lines.count + 2, style: theme.style(.fieldFocused), maxWidth: box.width - 4)
        canvas.draw("Ctrl-C quits", x: box.x + 2, y: box.maxY - 2, style: theme.style(.hint), maxWidth: box.width - 4)
        canvas.cursor = Point(x: min(box.x + 2 + field.displayWidth, box.maxX - 3), y: box.y + lines.count + 2)
        return canvas
    }
}
