import ContactsApp

/// The TUI's event loop: draw the model, wait for a key (or a resize, or a quit signal), turn the key
/// into a command through the keymap, repeat. It runs on one thread; a sync runs in the background
/// and is picked up on the loop's tick, so typing never waits for the network.
public struct TerminalApp {
    public private(set) var model: AppModel
    public let theme: Theme
    /// The keys: `AppKeymap.table`, or it with the user's keys (config.toml). The model keeps
    /// them, so its messages name the keys in use.
    public var keymap: Keymap<AppCommand, AppMode> {
        get { model.keymap }
        set { model.keymap = newValue }
    }
    private let screen: any TerminalScreen
    /// Extra text for the `?` screen, above the keys (forceterm --demo's org details).
    public var helpNotes: HelpOverlay.Notes?
    /// Locks the screen after a while without a key (a passcode-protected store); nil: never.
    public var screenLock: ScreenLock? {
        didSet { keyringHeldKey = screenLock?.isUnlockedInLogin() ?? false }
    }
    private var lastKey = ContinuousClock.now
    /// When the login's keyring was last asked whether the store is still unlocked, and last told
    /// the store is in use.
    private var lastLoginCheck = ContinuousClock.now
    private var lastKeptUnlocked = ContinuousClock.now
    /// Whether the keyring was seen holding the key since the last unlock: where it cannot hold
    /// one (some containers forbid keyctl), its absence says nothing.
    private var keyringHeldKey = false
    /// While locked: what the lock screen holds.
    private var lockPrompt: LockPrompt?
    public var isLocked: Bool { lockPrompt != nil }
    /// How often the loop wakes without a key, to show sync progress and retire toasts.
    public static let tickMilliseconds = 100
    private var toastTimer = ToastTimer()
    /// The layout last given to the model: it is told again only when it changes.
    private var fittedListHeight: Int?
    private var fittedDetail: (viewport: DetailViewport?, entryId: Int64?)?

    public init(model: AppModel, screen: any TerminalScreen, theme: Theme) {
        self.model = model
        self.screen = screen
        self.theme = theme
    }

    /// Why the loop ended.
    public enum Exit: Equatable, Sendable {
        case quit
        case signal(Int32)
        /// The memory screen ran out of queued events (tests only).
        case idle
    }

    /// Runs until the user quits or a signal arrives; the terminal is restored on every way out.
    /// With `stopWhenIdle`, returns when no event is waiting (tests with the memory screen).
    public mutating func run(stopWhenIdle: Bool = false) -> Exit {
        defer { if !stopWhenIdle { screen.restore() } }
        var needsDrawing = true
        while true {
            if toastTimer.hasExpired(model.toast, generation: model.toastGeneration, now: .now) {
                model.dismissToast()
                needsDrawing = true
            }
            if needsDrawing { draw() }
            needsDrawing = false
            if model.shouldQuit { return .quit }
            guard let event = screen.nextEvent(timeoutMilliseconds: Self.tickMilliseconds) else {
                if stopWhenIdle { return .idle }
                let wasSyncing = model.sync?.isRunning == true
                let hadResult = model.sync.map { if case .finished = $0.current { return true } else { return false } } ?? false
                let changed = model.tick()
                let locked = lockIfIdle(now: .now) || lockIfLockedInLogin(now: .now)
                needsDrawing = changed || wasSyncing || hadResult || locked
                continue
            }
            switch event {
            case let .quitSignal(number):
                return .signal(number)
            case .resized:
                needsDrawing = true
            case let .key(key):
                if lockPrompt != nil {
                    unlockingKey(key)
                } else {
                    lastKey = .now
                    keepUnlocked(now: lastKey)
                    handle(key)
                }
                needsDrawing = true
            }
        }
    }

    /// Locks when the screen lock's idle time has passed since the last key; true when it just did.
    public mutating func lockIfIdle(now: ContinuousClock.Instant) -> Bool {
        guard let screenLock, lockPrompt == nil, let idleLimit = screenLock.idleLimit, now - lastKey >= idleLimit else { return false }
        lockPrompt = LockPrompt()
        return true
    }

    /// Locks when the store's key left this login's keyring (asked once a second); true when it just did.
    public mutating func lockIfLockedInLogin(now: ContinuousClock.Instant) -> Bool {
        guard let screenLock, lockPrompt == nil, now - lastLoginCheck >= .seconds(1) else { return false }
        lastLoginCheck = now
        guard !screenLock.isUnlockedInLogin() else {
            keyringHeldKey = true
            return false
        }
        guard keyringHeldKey else { return false }
        keyringHeldKey = false
        lockPrompt = LockPrompt(reason: screenLock.reasonForLoginLock(idle: now - lastKey))
        return true
    }

    /// Keys count as use of the store, so the login's unlock does not time out under a user at
    /// work in the TUI.
    private mutating func keepUnlocked(now: ContinuousClock.Instant) {
        guard let screenLock, now - lastKeptUnlocked >= screenLock.keepAliveInterval else { return }
        lastKeptUnlocked = now
        screenLock.keepUnlockedInLogin()
    }

    /// A key on the lock screen: typing the passcode; Enter checks it.
    private mutating func unlockingKey(_ key: Key) {
        guard var prompt = lockPrompt, let screenLock else { return }
        if prompt.handle(key, check: screenLock.check) {
            lockPrompt = nil
            lastKey = .now
            lastKeptUnlocked = lastKey
            // Learnt again: a keyring that could not take the key back must not lock at once.
            keyringHeldKey = screenLock.isUnlockedInLogin()
        } else {
            lockPrompt = prompt
        }
    }

    /// Reads the store again (after another process, or a test, wrote to it).
    public mutating func refreshModel() throws { try model.refreshAll() }

    /// Draws the model at the screen's current size.
    /// The model hears of the layout only when it changed (a resize, another record's detail), so
    /// drawing stays a pure function of the model.
    public mutating func draw() {
        if let lockPrompt, let screenLock {
            screen.present(
                LockScreen.render(
                    lockPrompt, reason: lockPrompt.reason ?? screenLock.reason, syncing: model.sync?.isRunning == true,
                    size: screen.size, theme: theme))
            return
        }
        let layout = ScreenLayout(size: screen.size)
        if layout.list.height != fittedListHeight {
            model.setListHeight(layout.list.height)
            fittedListHeight = layout.list.height
        }
        let viewport = ContactsScreen.detailViewport(model, size: screen.size, theme: theme)
        let entryId = model.selected?.entryId
        if fittedDetail == nil || fittedDetail?.viewport != viewport || fittedDetail?.entryId != entryId {
            model.fitDetail(viewport, record: entryId)
            fittedDetail = (viewport, entryId)
        }
        if model.mode == .help {
            let limit = ContactsScreen.helpScrollLimit(model, size: screen.size, theme: theme, helpNotes: helpNotes)
            if limit != model.helpScrollLimit { model.fitHelp(scrollLimit: limit) }
        }
        screen.present(ContactsScreen.render(model, size: screen.size, theme: theme, helpNotes: helpNotes))
    }

    /// One key: the keymap decides; unbound printable keys type text in a search box or form. A
    /// toast stays until it times out or another replaces it: moving on with the keyboard does not
    /// hide a message before it could be read.
    public mutating func handle(_ key: Key) {
        if let command = keymap.action(for: key, in: model.mode) {
            model.perform(command)
            if let text = model.takeClipboardText() { screen.copyToClipboard(text) }
        } else if model.mode.takesText, let character = key.typedCharacter {
            model.type(character)
        }
    }
}
