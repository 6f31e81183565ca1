import ContactsApp

/// The screen lock of a passcode-protected store. It locks when the store's key is no longer
/// unlocked in this login (`forceterm lock` in another terminal, or the keyring's timeout), and,
/// when the org's `mobile_policy.screen_lock` or config.toml's `lock-after` asks, after `idleLimit`
/// without a key. Locked, the records leave the screen and the passcode is asked; a sync running
/// meanwhile goes on. `check` says whether a passcode is the store's (slow on purpose: a key
/// derivation), unlocking the login again when it is, and what to show when it is not.
public struct ScreenLock {
    /// Nil: no idle lock (only the login's lock applies).
    public var idleLimit: Duration?
    /// Why it locks after `idleLimit`, for the lock screen ("your org's policy: 10 minutes").
    public var reason: String
    public var check: (String) -> PasscodeAnswer
    /// Whether the store's key is still unlocked in this login (read without counting as use).
    public var isUnlockedInLogin: () -> Bool
    /// Counts as use: restarts the login's unlock timeout, as any forceterm command does.
    public var keepUnlockedInLogin: () -> Void
    /// How long the login's unlock lasts without use, and that said in words ("15 minutes").
    public var loginTimeout: Duration
    public var loginTimeoutDescription: String

    public init(
        idleLimit: Duration?, reason: String, loginTimeout: Duration = .seconds(15 * 60), loginTimeoutDescription: String = "15 minutes",
        isUnlockedInLogin: @escaping () -> Bool = { true }, keepUnlockedInLogin: @escaping () -> Void = {},
        check: @escaping (String) -> PasscodeAnswer
    ) {
        self.idleLimit = idleLimit
        self.reason = reason
        self.loginTimeout = loginTimeout
        self.loginTimeoutDescription = loginTimeoutDescription
        self.isUnlockedInLogin = isUnlockedInLogin
        self.keepUnlockedInLogin = keepUnlockedInLogin
        self.check = check
    }

    /// How often keys count as use of the login's unlock: each is a system call, and well within
    /// the timeout so that a user at work never outlives it.
    var keepAliveInterval: Duration { min(.seconds(10), loginTimeout / 3) }

    /// The lock screen's reason when the login's key went. It cannot have timed out while the user
    /// was at work (keys keep it, and the kernel counts timeouts in whole seconds), so a key gone
    /// sooner is another terminal's `forceterm lock`.
    func reasonForLoginLock(idle: Duration) -> String {
        guard idle >= loginTimeout - keepAliveInterval - .seconds(1) else { return "locked by forceterm lock" }
        if idleLimit != nil { return reason }
        return "\(loginTimeoutDescription) without use in this login"
    }
}

/// What a passcode typed on the lock screen turned out to be.
public enum PasscodeAnswer: Equatable, Sendable {
    case right
    /// Refused, with the line the lock screen shows ("Wrong passcode (2 in a row).").
    case refused(String)
}

/// What the lock screen holds while locked: the passcode typed so far (never shown) and why the
/// last one was refused.
struct LockPrompt: Equatable {
    var typed = ""
    var refusal: String?
    /// Why it locked, when not the idle limit.
    var reason: String?

    /// Handles one key; true when `check` accepted the passcode.
    mutating func handle(_ key: Key, check: (String) -> PasscodeAnswer) -> Bool {
        switch key {
        case .enter:
            guard !typed.isEmpty else { return false }
            guard case let .refused(why) = check(typed) else { return true }
            refusal = why
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
        if let refusal = prompt.refusal { lines.append(refusal) }
        if syncing { lines.append("The sync goes on in the background.") }
        let dots = String(repeating: theme.lines == .ascii ? "*" : "•", count: min(prompt.typed.count, 32))
        let width = min(max(lines.map(\.displayWidth).max() ?? 0, 24) + 6, max(size.width - 2, 10))
        let box = Rect(x: 0, y: 0, width: size.width, height: size.height).centered(width: width, height: lines.count + 5)
        Box.draw(in: &canvas, box, theme: theme, title: "Locked", style: theme.style(.dialog))
        for (index, line) in lines.enumerated() {
            canvas.draw(
                line, x: box.x + 2, y: box.y + 1 + index, style: theme.style(prompt.refusal != nil && index == 2 ? .toastError : .dialog),
                maxWidth: box.width - 4)
        }
        let field = "Passcode: " + dots
        canvas.draw(field, x: box.x + 2, y: box.y + lines.count + 2, style: theme.style(.fieldFocused), maxWidth: box.width - 4)
        canvas.draw("Ctrl-C quits", x: box.x + 2, y: box.maxY - 2, style: theme.style(.hint), maxWidth: box.width - 4)
        canvas.cursor = Point(x: min(box.x + 2 + field.displayWidth, box.maxX - 3), y: box.y + lines.count + 2)
        return canvas
    }
}
