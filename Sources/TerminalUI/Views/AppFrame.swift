import ContactsApp
import ForceJSON

/// Where each part of the main screen goes for a terminal size: list and detail side by side from
/// 100 columns, the detail replacing the list below that.
public struct ScreenLayout: Sendable, Equatable {
    public static let sideBySideMinimumWidth = 100

    public let sideBySide: Bool
    /// The list's rows (below the tab bar and the list header, above the toast row and status line).
    public let list: Rect
    public let detail: Rect
    public let header: Rect

    public init(size: Size) {
        sideBySide = size.width >= Self.sideBySideMinimumWidth
        let bodyTop = 2
        let bodyHeight = max(size.height - bodyTop - 1, 0)
        if sideBySide {
            let listWidth = max(size.width * 2 / 5, 40)
            header = Rect(x: 0, y: 1, width: listWidth, height: 1)
            list = Rect(x: 0, y: bodyTop, width: listWidth, height: bodyHeight)
            detail = Rect(x: listWidth + 1, y: 1, width: size.width - listWidth - 1, height: bodyHeight + 1)
        } else {
            header = Rect(x: 0, y: 1, width: size.width, height: 1)
            list = Rect(x: 0, y: bodyTop, width: size.width, height: bodyHeight)
            detail = Rect(x: 0, y: 1, width: size.width, height: bodyHeight + 1)
        }
    }
}

/// Draws the app model: the frame (tab bar, toast, status line) and, over the tab, its dialog or
/// the help. Each part has its view file beside this one (records, detail, form, pickers,
/// conflict, syncs, inspector).
public enum ContactsScreen {
    /// `helpNotes` go above the keys on the `?` screen (forceterm --demo's org details); the keys are
    /// the model's keymap.
    /// How far the `?` screen scrolls at `size` (0 when every key fits).
    public static func helpScrollLimit(_ model: AppModel, size: Size, theme: Theme, helpNotes: HelpOverlay.Notes? = nil) -> Int {
        HelpOverlay.scrollLimit(within: body(size), sections: helpSections(model, theme: theme), notes: helpNotes)
    }

    /// Between the tab bar and the status line: where dialogs and the help are drawn.
    static func body(_ size: Size) -> Rect { Rect(x: 0, y: 1, width: size.width, height: size.height - 2) }

    static func helpSections(_ model: AppModel, theme: Theme) -> [HelpOverlay.Section] {
        AppKeymap.helpSections(ascii: theme.lines == .ascii, tabs: model.tabs.map(\.title), keymap: model.keymap)
    }

    public static func render(_ model: AppModel, size: Size, theme: Theme, helpNotes: HelpOverlay.Notes? = nil) -> Canvas {
        var canvas = Canvas(size: size)
        guard size.width >= 20, size.height >= 6 else {
            canvas.draw("Make the terminal at least 20x6".truncated(toWidth: size.width), x: 0, y: 0)
            return canvas
        }
        let layout = ScreenLayout(size: size)
        TabBar.draw(
            in: &canvas, y: 0, width: size.width, tabs: model.tabs.map(\.title),
            active: model.tabs.firstIndex(of: model.tab) ?? 0, right: "? help", theme: theme)

        let body = Self.body(size)
        switch model.tab {
        case .syncs:
            SyncsView.draw(model, in: &canvas, body: Rect(x: 0, y: 1, width: size.width, height: size.height - 3), theme: theme)
        case .inspector:
            InspectorView.draw(model, in: &canvas, body: Rect(x: 0, y: 1, width: size.width, height: size.height - 3), theme: theme)
        case .records:
            drawRecords(model, in: &canvas, layout: layout, theme: theme)
        }

        switch model.mode {
        case .confirmingDelete, .confirmingRevert, .confirmingQuit:
            ConfirmDialog.draw(in: &canvas, within: body, question: model.question?.text ?? "", theme: theme)
        case .confirmingDiscard:
            ConfirmDialog.draw(in: &canvas, within: body, question: model.messages.discardQuestion, theme: theme)
        case .pickingLookup:
            if let picker = model.choicePicker {
                drawChoicePicker(picker, in: &canvas, within: body, theme: theme)
            } else if let picker = model.lookupPicker {
                drawLookupPicker(picker, in: &canvas, within: body, theme: theme)
            }
        case .resolvingConflict:
            drawConflictDialog(model, in: &canvas, within: body, theme: theme)
        case .decidingCreate:
            drawCreateDecision(model, in: &canvas, within: body, theme: theme)
        case .typingSubscription:
            if case let .subscribing(prompt) = model.overlay { SubscriptionPromptView.draw(prompt, in: &canvas, within: body, theme: theme) }
        case .help:
            HelpOverlay.draw(
                in: &canvas, within: body, sections: helpSections(model, theme: theme),
                footer: "Rows: + created  ~ updated  - deleted  ! error  \(theme.lines == .ascii ? "#" : "≠") conflict",
                notes: helpNotes, scroll: model.helpScroll, theme: theme)
        default:
            break
        }
        // The help reaches the toast's row: the toast waits under it. (The conflict dialog's own
        // answers are toasts, shown over it.)
        if let toast = model.toast, model.mode != .help {
            ToastWidget.draw(in: &canvas, y: size.height - 2, width: size.width, message: toast.message, isError: toast.isError, theme: theme)
        }
        drawStatus(model, in: &canvas, theme: theme)
        if !model.mode.takesText { canvas.cursor = nil }
        if theme.lines == .ascii { canvas.replaceSymbolsWithASCII() }
        return canvas
    }

    static func drawStatus(_ model: AppModel, in canvas: inout Canvas, theme: Theme) {
        var progress: (String, Double)?
        if case let .running(state)? = model.sync?.current { progress = (state.phase, state.fraction) }
        let position: String
        switch model.tab {
        case .syncs:
            position = model.syncs.syncs.count == 1 ? "1 sync" : "\(model.syncs.syncs.count) syncs"
        case .inspector:
            position = model.inspector.page.map { "page \($0.summary.page)/\($0.summary.pageCount)" } ?? ""
        case .records:
            let list = model.list
            position = list.totalCount == 0 ? "0" : "\(list.selectedIndex + 1)/\(list.totalCount)"
        }
        StatusLine.draw(
            in: &canvas, y: canvas.size.height - 1, width: canvas.size.width, left: model.statusFacts.map(\.wordings),
            progress: progress, right: position, theme: theme)
    }
}
