import ContactsApp
import Foundation
import MobileSync
import SmartStore
import TerminalUI

/// Opens the store (registering the configured soups when missing) and runs the TUI until the user
/// quits or a signal arrives. The terminal is restored on every way out; every change was already
/// committed when it was made.
public enum TUILauncher {
    /// `session` is the org `s` syncs with (default: whoever signed in with `forceterm login`);
    /// `helpNotes` go on the `?` screen above the keys; `syncOnOpen` starts a sync as `s` would,
    /// with the list already on screen.
    public static func run(
        store location: StoreLocation, configDirectory: String?, options: TUIPreferences, session: SignedInSession? = nil,
        helpNotes: HelpOverlay.Notes? = nil, syncOnOpen: Bool = false
    ) throws {
        let config = try SyncConfiguration.load(directory: configDirectory)
        let fields = try SyncedFields(usersyncsJSON: config.syncsJSON)
        let (store, storeKey) = try StoreKeys.openWithKey(location.path)
        try store.setup(from: config.store)
        let environment = ProcessInfo.processInfo.environment
        let settingsPath = UserSettings.path(environment: environment)
        var (settings, problem) = UserSettings.load(path: settingsPath)
        // A read-only store is shown, not synced: a sync would only fail on its first write.
        let (sync, listener, notices) =
            store.isReadOnly
            ? (nil, nil, [])
            : try syncController(
                store: store, config: config, options: options, session: session, storeKey: storeKey,
                automatic: settings.automaticSync)
        listener?.start()
        defer {
            listener?.stop()
            sync?.close()
        }
        let kinds = RecordKind.tabs(for: config.syncs.withSubscriptions(in: store), soups: Set(try store.soupNames()))
        let descriptions = ObjectDescriptions(store: store, soupBySObject: ObjectDescriptions.soups(in: config.syncs))
        var model = try AppModel(
            store: store, syncedFields: fields, kinds: kinds, sync: sync, offline: options.offline,
            descriptions: descriptions)
        if !notices.isEmpty { model.announce(notices.joined(separator: "; ")) }
        if problem == nil, let soup = settings.unknownColumnSoups(kinds).first {
            let line = UserSettings.line(of: soup, in: "list.columns", text: (try? String(contentsOfFile: settingsPath, encoding: .utf8)) ?? "")
            problem =
                "\(settingsPath)\(line.map { " line \($0)" } ?? ""): [list.columns] names \(soup), which is not a record list here ("
                + kinds.map(\.soupName).joined(separator: ", ") + "); using the defaults"
            settings = UserSettings()
        }
        try model.applyListSettings(sort: settings.sort, columns: settings.columns)
        // On screen without the folders (a toast is one line); in full on stderr once the TUI ends.
        if let problem { model.announce(problem.replacingOccurrences(of: settingsPath, with: "config.toml"), isError: true) }
        defer { if let problem { StandardStreams.writeError("forceterm: \(problem)\n") } }
        let wantColors = !settings.monochrome && Theme.colorsWanted(noColorFlag: options.noColor, environment: environment)
        let screen = try NcursesScreen(wantColors: wantColors)
        // Said on screen (before any other notice: without it names look wrong) and on stderr after.
        let localeNote = screen.unicode ? nil : Self.notUTF8Note(environment: environment)
        if let localeNote {
            model.announce(localeNote, isError: true)
            model.notUTF8 = true
        }
        defer { if let localeNote { StandardStreams.writeError("forceterm: \(localeNote)\n") } }
        // Automatic sync starts one as the TUI opens anyway.
        if syncOnOpen, !model.syncsAutomatically { model.perform(.sync) }
        var app = TerminalApp(
            model: model, screen: screen,
            theme: Theme(colors: screen.colors, ascii: options.ascii || !screen.unicode, overrides: settings.styles))
        // The keys were checked when the file was read.
        if let keymap = try? AppKeymap.table(rebinding: settings.keys) { app.keymap = keymap }
        app.helpNotes = helpNotes
        app.screenLock = Self.screenLock(store: location.path)
        let exit = app.run()
        screen.restore()
        if let farewell = app.model.farewell { StandardStreams.writeError("forceterm: \(farewell)\n") }
        if case let .signal(number) = exit {
            // The shell's convention for "ended by a signal"; the store is already committed.
            throw TerminalEnded(signal: number)
        }
    }

    /// The lock of a passcode-protected store: when the login's keyring loses its key (`forceterm
    /// lock`, the timeout) and, when the org (or config.toml) asks, after the idle time. The
    /// passcode typed on the lock screen is checked against the store's sealed key, wrong tries
    /// counted, and unlocks the login again.
    static func screenLock(store: String) -> ScreenLock? {
        // A store sharing the user's key locks and unlocks with the user's store.
        guard let path = try? StoreKeys.keyOwner(ofStore: store) else { return nil }
        let policy = LockPolicy.forStore(path)
        guard (try? WrappedStoreKey.read(forStore: path)) != nil else { return nil }
        let keyring = SessionKeyring(timeout: policy.idleSeconds)
        return ScreenLock(
            idleLimit: policy.locksScreen ? .seconds(policy.idleSeconds) : nil,
            reason: "\(policy.reason): \(policy.idleDescription) without a key",
            loginTimeout: .seconds(policy.idleSeconds), loginTimeoutDescription: policy.idleDescription,
            isUnlockedInLogin: { keyring.isUnlocked(store: path) },
            keepUnlockedInLogin: { _ = keyring.key(forStore: path) }
        ) { typed in
            do {
                guard let wrapped = try WrappedStoreKey.read(forStore: path) else { return .refused("The store's sealed key is gone: quit (Ctrl-C).") }
                _ = try StoreKeys.unwrap(wrapped, passcode: typed, store: path, keyring: keyring)
                return .right
            } catch let refused as PasscodeRefused {
                return .refused(refused.short)
            } catch {
                return .refused("\(error)".oneLine)
            }
        }
    }

    /// What a terminal whose locale is not UTF-8 is told: names are shown in ASCII, and how to fix it.
    public static func notUTF8Note(environment: [String: String]) -> String {
        let locale = environment["LC_ALL"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LANG"].flatMap { $0.isEmpty ? nil : $0 } ?? "unset"
        return "The locale (\(locale)) is not UTF-8: names are shown in ASCII; run export LANG=C.UTF-8 and start forceterm again"
    }

    /// The `s` key's sync (of the store opened, as `forceterm sync` does with `--store`), with the
    /// demo's session or whoever is signed in when `s` is pressed; nil with `--offline`. With it,
    /// what changed in the named syncs' definitions since they were last applied.
    /// `storeKey` is the key the TUI opened its store with: its sync uses it for the session's
    /// sealed tokens when the store is the signed-in user's, instead of asking the keyring.
    /// With automatic sync on, also the listener to the org's change events (not started).
    public static func syncController(
        store: SmartStore, config: SyncConfiguration, options: TUIPreferences,
        session: SignedInSession?, storeKey: StoreKey? = nil, automatic: AutoSyncSettings? = nil
    )
        throws -> (SyncController?, ServerChangeListener?, notices: [String])
    {
        guard !options.offline else { return (nil, nil, []) }
        let notices = try SyncsSoup(store: store).apply(config.syncs).compactMap(\.notice)
        var service = StoreSyncService(
            store: store, entries: config.syncs.entries, sessions: session.map { .fixed($0) } ?? .signedInUser,
            unsupported: config.syncs.unsupported)
        service.storeKey = storeKey
        let controller = SyncController(service: service, automatic: automatic)
        let listener =
            automatic?.enabled == true && automatic?.serverPush == true
            ? ServerChangeListener(service: service, controller: controller) : nil
        return (controller, listener, notices)
    }
}
