import ContactsApp
import Foundation
import MobileSync

/// The Syncs tab: a table of the named syncs (direction, status, progress, totals, last run) and,
/// below it, the selected sync in full: its high-water mark and its last error.
enum SyncsView {
    static func draw(_ model: AppModel, in canvas: inout Canvas, body: Rect, theme: Theme) {
        canvas.fill(body)
        let syncs = model.syncs
        if let error = syncs.loadError {
            DetailWidget.draw(in: &canvas, body, title: "Syncs", lines: [.text(error, role: .fieldError)], theme: theme)
            return
        }
        guard !syncs.syncs.isEmpty else {
            let hint =
                model.sync == nil
                ? "No syncs yet. Sign in with forceterm login; \(model.messages.key(.sync)) then runs the syncs of usersyncs.json."
                : "No syncs yet: \(model.messages.key(.sync)) runs the syncs of usersyncs.json, \(model.messages.key(.subscribe)) subscribes to more."
            DetailWidget.draw(in: &canvas, body, title: "Syncs", lines: [.text(hint, role: .hint)], theme: theme)
            return
        }
        // The subscriptions' own column, only once there is one: what each holds and how it stands.
        let subscribed = syncs.syncs.contains { $0.subscription != nil }
        let headers = ["Sync", "Dir", "Status", "Progress", "Total", "Last run"] + (subscribed ? ["Subscription"] : [])
        let rows = syncs.syncs.map { state in
            [
                state.name ?? "#\(state.id)", SyncText.kind(state), state.status.rawValue, "\(state.progress)%", SyncText.totals(state),
                SyncText.time(state.endTime > 0 ? state.endTime : state.startTime, timeZone: model.timeZone),
            ] + (subscribed ? [subscriptionCell(syncs, state)] : [])
        }
        let styles: [StyleRole] = syncs.syncs.map { state in
            switch state.status {
            case .failed, .stopped: return .markerError
            case .running: return .markerUpdated
            default: return .normal
            }
        }
        let outbox = syncs.outbox
        let tableHeight = min(rows.count + 1, max(body.height / (outbox.isEmpty || body.height < tallEnoughForOutbox ? 2 : 3), 2))
        let title = "Syncs (\(rows.count))"
        canvas.draw(title, x: body.x + 1, y: body.y, style: theme.style(.title), maxWidth: body.width - 2)
        // Said once for the tab, not per sync: which objects' changes arrive by themselves.
        if let sync = model.sync, let timer = sync.automatic?.settings.interval, case let push = sync.serverPush, !push.isEmpty {
            let note = push.text(timerMinutes: max(1, Int((timer / 60).rounded())))
            let x = body.x + 1 + DisplayWidth.of(title) + 2
            canvas.draw(
                note, x: x, y: body.y, style: theme.style(push.refused.isEmpty && push.interrupted == nil ? .hint : .markerUpdated),
                maxWidth: max(body.maxX - x - 1, 0))
        }
        TableWidget.draw(
            in: &canvas, Rect(x: body.x, y: body.y + 1, width: body.width, height: tableHeight), headers: headers, rows: rows,
            selectedRow: syncs.selectedIndex, theme: theme, rowStyles: styles)
        var detailTop = body.y + 1 + tableHeight + 1
        if !outbox.isEmpty {
            detailTop = drawOutbox(model, in: &canvas, top: detailTop, body: body, theme: theme)
        }
        guard let state = syncs.selected else { return }
        var lines: [DetailLine] = [
            .field(label: "Soup", value: state.soupName),
            .field(label: "Direction", value: state.type == .syncDown ? "sync down (server to store)" : "sync up (store to server)"),
            .field(label: "Status", value: "\(state.status.rawValue), \(state.progress)%"),
            .field(label: "Total", value: state.totalSize >= 0 ? "\(state.totalSize) record\(state.totalSize == 1 ? "" : "s")" : "not known yet"),
            .field(label: "Started", value: SyncText.time(state.startTime, timeZone: model.timeZone)),
            .field(label: "Ended", value: SyncText.time(state.endTime, timeZone: model.timeZone)),
        ]
        if state.type == .syncDown {
            lines.append(.field(label: "High-water", value: state.maxTimeStamp > 0 ? SyncText.time(state.maxTimeStamp, timeZone: model.timeZone) : "none: the next run fetches everything"))
        }
        lines.append(.field(label: "Merge mode", value: state.options.mergeMode.rawValue))
        lines += subscriptionLines(model, state)
        if state.error.isEmpty {
            lines.append(.field(label: "Last error", value: "none"))
        } else {
            lines.append(.text("Last error: \(state.error)", role: .fieldError))
        }
        DetailWidget.draw(
            in: &canvas, Rect(x: body.x, y: detailTop, width: body.width, height: max(body.maxY - detailTop, 0)),
            title: state.name ?? "#\(state.id)", lines: lines, theme: theme)
    }

    /// "12 held" for a complete subscription's row, "12 held, pending" for another; empty for a
    /// sync of the config.
    static func subscriptionCell(_ syncs: SyncsViewModel, _ state: SyncState) -> String {
        guard let subscription = state.subscription else { return "" }
        let held = syncs.subscription(of: state).map { "\($0.held) held" } ?? "–"
        return subscription.state == .complete ? held : "\(held), \(subscription.state.rawValue)"
    }

    /// The selected subscription in full: what it selects, what it holds, what waits to leave,
    /// and the keys that change it.
    static func subscriptionLines(_ model: AppModel, _ state: SyncState) -> [DetailLine] {
        guard let subscription = state.subscription else { return [] }
        let selects =
            switch subscription.selection {
            case let .condition(text): text
            case let .account(id): state.soupName == model.accounts?.kind.soupName ? "the account \(id)" : "the contacts of the account \(id)"
            }
        var lines: [DetailLine] = [
            .field(label: "Subscription", value: "\(subscription.name), \(subscription.state.rawValue)"),
            .field(label: "Selects", value: selects),
        ]
        if let held = model.syncs.subscription(of: state)?.held {
            lines.append(.field(label: "Holds", value: "\(held) record\(held == 1 ? "" : "s") of \(state.soupName)"))
        }
        if let leaving = model.syncs.leaving[state.soupName], leaving > 0 {
            lines.append(.field(label: "Leaving", value: "\(leaving) record\(leaving == 1 ? "" : "s") once \(leaving == 1 ? "its change is" : "their changes are") sent"))
        }
        lines.append(
            .field(label: "Keys", value: "\(model.messages.key(.deleteRecord)) unsubscribes; \(model.messages.key(.subscribe)) subscribes to a list's search"))
        return lines
    }

    /// Below this many rows the outbox is one line, not a table.
    static let tallEnoughForOutbox = 30

    /// "Waiting to send (3)" and a row per unsent change, oldest first; returns where the selected
    /// sync's details start.
    static func drawOutbox(_ model: AppModel, in canvas: inout Canvas, top: Int, body: Rect, theme: Theme) -> Int {
        let syncs = model.syncs
        let now = model.clock.now()
        guard body.height >= tallEnoughForOutbox else {
            // A small terminal keeps its room for the selected sync: the outbox in one line.
            let oldest = syncs.outbox.compactMap(\.since).min()
            let waiting = syncs.outbox.filter { $0.needsYou != nil }.count
            let line =
                "Waiting to send (\(syncs.outboxTotal)) · oldest " + Outbox.age(since: oldest, now: now)
                + (waiting > 0 ? " · \(waiting) need\(waiting == 1 ? "s" : "") you" : "") + " · forceterm status lists them"
            canvas.draw(line, x: body.x + 1, y: top, style: theme.style(.title), maxWidth: body.width - 2)
            // The selected sync's box follows at once: its last error is what a small screen must keep.
            return top + 1
        }
        let shown = min(syncs.outbox.count, max(body.height / 4, 1))
        let more = syncs.outboxTotal - shown
        canvas.draw(
            "Waiting to send (\(syncs.outboxTotal))" + (more > 0 ? " · the oldest \(shown) here; forceterm status lists all" : ""),
            x: body.x + 1, y: top, style: theme.style(.title), maxWidth: body.width - 2)
        let rows = syncs.outbox.prefix(shown).map { entry in
            [
                entry.name.isEmpty ? entry.id : entry.name, entry.change.rawValue, Outbox.age(since: entry.since, now: now),
                "\(entry.attempts)", model.nextTry(of: entry), entry.needsYou ?? entry.lastError ?? "",
            ]
        }
        let styles: [StyleRole] = syncs.outbox.prefix(shown).map { $0.needsYou != nil || $0.lastError != nil ? .markerError : .normal }
        TableWidget.draw(
            in: &canvas, Rect(x: body.x, y: top + 1, width: body.width, height: rows.count + 1),
            headers: ["Record", "Change", "Waiting", "Tries", "Next try", "Last error"], rows: rows,
            selectedRow: nil, theme: theme, rowStyles: styles)
        return top + 1 + rows.count + 1 + 1
    }
}
