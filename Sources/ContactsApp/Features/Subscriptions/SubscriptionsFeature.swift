import Foundation
import MobileSync

/// Subscriptions from the TUI: `a` subscribes to what the list's search shows (the condition shown
/// for editing, then the name), `d` on a subscription's row of Syncs removes it (asked first), `b`
/// on an account takes it and its contacts offline, or back. The sync service stores each under
/// the sync lock; one asked while a sync runs is made when that sync ends.
extension AppModel {
    /// `a`: the prompt for the list shown, or the one shown last when on Syncs.
    mutating func startSubscribing() {
        guard canChangeSubscriptions() else { return }
        let kind = list.kind
        guard !kind.soupName.isEmpty else {
            toast = Toast(messages.noListToSubscribe, isError: true)
            return
        }
        // The fields the soup's sync fetches; a soup only sent up is checked by the service.
        let synced = syncedFields.fields(forSoup: kind.soupName)
        let fields = synced.isEmpty ? kind.searchedFields : kind.searchedFields.filter(synced.contains)
        overlay = .subscribing(
            SubscriptionPrompt(
                soupName: kind.soupName, plural: kind.plural, condition: SubscriptionPrompt.condition(search: list.search, fields: fields),
                name: SubscriptionPrompt.suggestedName(search: list.search)))
    }

    /// The prompt has the keys: Enter goes from the condition to the name, then stores it.
    mutating func typingSubscription(_ prompt: SubscriptionPrompt, _ command: AppCommand) {
        var prompt = prompt
        switch command {
        case .submitPrompt:
            submit(prompt)
            return
        case .cancelPrompt:
            guard prompt.step == .name else {
                overlay = nil
                return
            }
            prompt.step = .condition
        case .deleteBackward: prompt.edit { $0.deleteBackward() }
        case .deleteForward: prompt.edit { $0.deleteForward() }
        case .cursorLeft: prompt.edit { $0.moveCursor(by: -1) }
        case .cursorRight: prompt.edit { $0.moveCursor(by: 1) }
        case .cursorHome: prompt.edit { $0.moveToStart() }
        case .cursorEnd: prompt.edit { $0.moveToEnd() }
        case .clearLine: prompt.edit { $0.clear() }
        default: return
        }
        overlay = .subscribing(prompt)
    }

    mutating func typeIntoSubscription(_ prompt: SubscriptionPrompt, _ character: Character) {
        var prompt = prompt
        prompt.edit { $0.insert(character) }
        overlay = .subscribing(prompt)
    }

    private mutating func submit(_ prompt: SubscriptionPrompt) {
        var prompt = prompt
        let condition = prompt.condition.text.trimmingCharacters(in: .whitespaces)
        let name = prompt.name.text.trimmingCharacters(in: .whitespaces)
        switch prompt.step {
        case .condition where condition.isEmpty: prompt.error = messages.emptySubscriptionCondition
        case .condition: prompt.step = .name
        case .name where name.isEmpty: prompt.error = messages.emptySubscriptionName
        case .name where prompt.replacing != name && syncs.subscriptions.contains(where: { $0.name == name }):
            // The same name changes that subscription: said once, Enter again does it.
            let selects = syncs.subscriptions.first { $0.name == name }.map(\.selection)
            prompt.replacing = name
            prompt.error = messages.replacesSubscription(name, selects: selects)
        case .name:
            guard let refusal = change(.add(.condition(name: name, soup: prompt.soupName, condition: condition))) else {
                overlay = nil
                return
            }
            // Most refusals are about the condition: back to it, the reason shown.
            prompt.step = .condition
            prompt.error = refusal
        }
        overlay = .subscribing(prompt)
    }

    /// `d` on Syncs: asks before removing the selected sync's subscription.
    mutating func askToUnsubscribe() {
        guard let state = syncs.selected else { return }
        guard let name = state.subscription?.name else {
            toast = Toast(messages.notASubscription(state.name ?? "#\(state.id)"))
            return
        }
        guard canChangeSubscriptions() else { return }
        ask(toUnsubscribe: name)
    }

    /// The y/n question before `name` goes, with what its syncs hold.
    private mutating func ask(toUnsubscribe name: String) {
        let held = syncs.subscriptions.filter { $0.name == name }
        overlay = .question(Question(subject: .unsubscribe(name: name), text: messages.unsubscribeQuestion(name, held: held)))
    }

    /// `b` on an account: offline with its contacts, or back (asked, as any removal is).
    mutating func toggleOffline() {
        guard list.kind.role == .account, let account = selected else {
            toast = Toast(messages.offlineNeedsAnAccount)
            return
        }
        guard canChangeSubscriptions() else { return }
        let title = list.kind.displayName(of: account)
        guard let id = account.serverId, !account.isLocallyCreated else {
            toast = Toast(messages.offlineNeedsServerAccount(title), isError: true)
            return
        }
        // Asked twice while a sync runs: the second press takes the first back.
        if let queued = queuedSubscriptionChanges.firstIndex(where: {
            if case let .add(.account(_, queuedId)) = $0 { return queuedId == id }
            return false
        }) {
            let name = queuedSubscriptionChanges.remove(at: queued).name
            toast = Toast(messages.offlineTakenBack(name))
            return
        }
        if let held = syncs.subscriptions.first(where: { $0.selection == .account(id) }) {
            ask(toUnsubscribe: held.name)
            return
        }
        let taken = Set(syncs.syncs.compactMap(\.name))
        let suggested = SubscriptionPrompt.suggestedName(search: title)
        let base = suggested.isEmpty ? "account" : suggested
        var name = base
        var number = 2
        while taken.contains(name) || taken.contains(SyncManager.contactsSyncName(of: name)) {
            name = "\(base)-\(number)"
            number += 1
        }
        if let refusal = change(.add(.account(name: name, id: id))) { toast = Toast(refusal, isError: true) }
    }

    /// Makes `change` now, or once the running sync has ended; returns why it was refused.
    @discardableResult
    mutating func change(_ change: SubscriptionChange, fetching: Bool = true) -> String? {
        guard let sync else { return messages.subscriptionsNeedSync }
        if sync.isRunning {
            guard !queuedSubscriptionChanges.contains(change) else {
                toast = Toast(messages.subscriptionQueued(change))
                return nil
            }
            // Checked now, while the prompt is open, though stored only after the sync.
            if case let .add(request) = change {
                do { try sync.checkSubscription(request) } catch { return "\(error)" }
            }
            queuedSubscriptionChanges.append(change)
            toast = Toast(messages.subscriptionQueued(change))
            return nil
        }
        do {
            switch change {
            case let .add(request):
                let names = try sync.subscribe(request)
                syncs.refresh()
                // Its records come with a sync like `s`, its progress on the status line.
                let fetching = fetching && sync.checkSession() != .signedOut && sync.start()
                if fetching { fetchedSubscriptions.append(request.name) }
                toast = Toast(messages.subscribed(request.name, syncs: names.count, fetching: fetching))
            case let .remove(name):
                let outcome = try sync.unsubscribe(name: name)
                try refreshAll()
                toast = Toast(messages.unsubscribed(name, outcome))
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// After a sync ends: the changes asked during it, in order. A refusal is said as an error
    /// (the prompt is closed by then); a subscribe starts the sync that fetches it, and the rest
    /// wait for that one.
    mutating func makeQueuedSubscriptionChanges(fetching: Bool) {
        while let next = queuedSubscriptionChanges.first, sync?.isRunning == false {
            queuedSubscriptionChanges.removeFirst()
            let said = toast
            if let refusal = change(next, fetching: fetching) {
                toast = Toast(refusal, isError: true)
            } else if let said, !said.isError, let now = toast {
                toast = Toast(said.message + " · " + now.message)
            }
        }
    }

    /// After the sync that fetched subscriptions: what each holds now, before what the sync says.
    mutating func sayWhatSubscriptionsHold(_ result: Result<SyncSummary, SyncFailure>) {
        defer { fetchedSubscriptions = [] }
        guard case .success = result, !fetchedSubscriptions.isEmpty else { return }
        let held = fetchedSubscriptions.map { name in
            messages.holds(name, syncs.subscriptions.filter { $0.name == name }.map { ($0.held, $0.soupName) })
        }
        toast = Toast((held + [toast?.message].compactMap { $0 }).joined(separator: " · "), isError: toast?.isError ?? false)
    }

    private mutating func canChangeSubscriptions() -> Bool {
        if readOnly {
            toast = Toast(Messages.readOnlyStore, isError: true)
            return false
        }
        if offline || sync == nil {
            toast = Toast(messages.subscriptionsNeedSync, isError: true)
            return false
        }
        return true
    }
}
