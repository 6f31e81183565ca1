import ArgumentParser
import ContactsApp
import ForceJSON
import ForcetermServices
import Foundation
import MobileSync
import SalesforceTime
import SmartStore
import TerminalUI

/// `forceterm subscribe`: adds a named slice of a soup's object to what this laptop carries, beside
/// the config's syncs, and fetches it (unless --no-wait). Checked offline before anything is stored.
struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Carry more records offline: a named SOQL condition on a soup's object, or one account and its contacts.",
        discussion: """
            The condition is one SOQL condition over the fields the soup's sync already fetches, \
            for example --where "MailingCity = 'Zürich'". It is checked against the object's \
            description kept by the last forceterm sync, or the org's for a config that keeps \
            none (a field your profile hides, or a long text area, is refused) before anything \
            is stored. The subscription is then fetched \
            (--no-wait only stores it) and every forceterm sync, s in the TUI and automatic sync \
            runs it with the config's syncs. Subscribing again with the same name changes its \
            condition: only the records it newly selects are fetched, and those it no longer \
            selects leave once the new set is known.

            --account ID takes one account and its contacts offline instead: two syncs, NAME and \
            NAME.contacts, so contacts created or moved under the account arrive at the next sync.

            Exit status: 0 stored (and fetched); 1 refused or the fetch failed (the subscription \
            stays, and the next sync fetches it); 2 a usage error.
            """)

    @Argument(help: "The subscription's name, used by unsubscribe and shown by subscriptions.") var name: String
    @Option(help: ArgumentHelp("The soup whose object the condition selects (contacts, accounts).", valueName: "soup")) var soup: String?
    @Option(name: .customLong("where"), help: ArgumentHelp("One SOQL condition, as after WHERE.", valueName: "condition")) var condition: String?
    @Option(help: ArgumentHelp("One account to carry offline with its contacts, by its id.", valueName: "id")) var account: String?
    @Flag(help: "Only store the subscription; the next sync fetches its records. Works offline once a metadata sync has kept the object's description.")
    var noWait = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm
    @Option(help: ArgumentHelp("Trust the certificate authorities in this PEM file instead of the one saved at sign-in.", valueName: "file"))
    var cacert: String?

    func validate() throws {
        try root.refuseOptions(except: [.store, .global, .config], in: "subscribe")
        _ = try globalOptions.explicitPath(storeOptions)
        if account != nil, soup != nil || condition != nil {
            throw ValidationError("--account takes an account and its contacts; --soup and --where select by a condition instead. Give one or the other.")
        }
        if account == nil, soup == nil || condition == nil {
            throw ValidationError("give --soup SOUP and --where CONDITION (for example --soup contacts --where \"MailingCity = 'Zürich'\"), or --account ID.")
        }
    }

    func run() throws {
        try CommandFailure.reporting {
            let configuration = try SyncConfiguration.load(directory: configOptions.directory, global: globalOptions.global)
            let session = noWait ? nil : try SignedInSession.load(cacert: cacert, verbose: false)
            let storePath = try globalOptions.explicitPath(storeOptions) ?? session?.storePath ?? globalOptions.location(storeOptions).path
            let store = try StoreKeys.open(storePath)
            if let session { try StoreOrigin.claim(store, at: storePath, for: session) }
            try store.setup(from: configuration.store)
            let remote: any SyncRemote =
                if let session { TestCrashPoint.wrapping(ForceClientRemote(client: try StoreDevice.naming(session.client, store: store))) } else { OfflineRemote() }
            let manager = try SyncManager(store: store, remote: remote, lockTimeout: SyncManager.briefLockWait, pagesInFlight: session?.pagesInFlight ?? 1)
            // The config's syncs are written to the store as `sync` writes them only when asked for
            // (--config) or for a store that has none yet: a store the TUI syncs with another
            // config keeps its definitions, which the subscription's fields come from.
            let syncs = try SyncsSoup(store: store)
            let configSyncsStored = try syncs.all().contains { $0.subscription == nil }
            if configOptions.directory != nil || !configSyncsStored {
                for notice in try syncs.apply(configuration.syncs).compactMap(\.notice) {
                    StandardStreams.writeError("forceterm: \(notice)\n")
                }
            }
            TestCrashPoint.arm(store)
            let (name, soup, condition, account) = (self.name, self.soup ?? "", self.condition ?? "", self.account)
            let states = try AsyncCommand.run {
                if let account { return try await manager.subscribe(name: name, account: account) }
                return [try await manager.subscribe(name: name, soup: soup, condition: condition)]
            }
            guard let session else {
                StandardStreams.write("\(name): stored; the next forceterm sync fetches its records\n")
                return
            }
            let entries = states.compactMap { state in
                state.name.map { SyncsConfig.Entry(name: $0, target: state.target, options: state.options, soupName: state.soupName) }
            }
            let plan = SyncRun(entries: entries, up: false, down: true, forceDelete: false)
            let report = try AsyncCommand.run { try await plan.run(manager: manager, store: store) }
            session.client.shutdown()
            if let failure = report.failure {
                throw ConfigError("\(failure)\nforceterm: the subscription \(name) is kept; the next forceterm sync fetches it")
            }
            let names = Set(states.compactMap(\.name))
            let held = try SubscriptionSummary.all(in: store).filter { names.contains($0.name) }
                .map { "\($0.held) record\($0.held == 1 ? "" : "s") of \($0.soupName)" }
            StandardStreams.write("\(name): \(held.joined(separator: " and ")) held (\(report.received) fetched)\n")
        }
    }
}

/// `forceterm unsubscribe`: stops carrying a subscription's records. Works on the store alone.
struct UnsubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsubscribe",
        abstract: "Stop carrying a subscription's records: those nothing else holds leave the store.",
        discussion: """
            Records another subscription or a sync of usersyncs.json holds stay. A record with a \
            change not sent yet stays until a sync has sent it, then leaves. Works offline and \
            signed out; a process killed midway leaves the subscription marked as being removed, \
            and running the command again finishes it.
            """)

    @Argument(help: "The subscription to remove (forceterm subscriptions lists them).") var name: String
    @Flag(help: "Print what left and what waits as JSON.") var json = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .global], in: "unsubscribe")
        _ = try globalOptions.explicitPath(storeOptions)
    }

    func run() throws {
        try CommandFailure.reporting {
            let store = try SubscriptionsCommand.openExisting(globalOptions.location(storeOptions).path)
            let manager = try SyncManager(store: store, remote: OfflineRemote(), lockTimeout: SyncManager.briefLockWait)
            TestCrashPoint.arm(store)
            let name = self.name
            var soups: [String] = []
            for state in try SyncsSoup(store: store).subscriptions() where state.subscription?.name == name && !soups.contains(state.soupName) {
                soups.append(state.soupName)
            }
            let soup = soups.joined(separator: " and ")
            let outcome = try AsyncCommand.run { try await manager.unsubscribe(name: name) }
            if json {
                let object: JSONObject = [
                    "name": .string(name), "soups": .array(soups.map(JSONValue.string)), "removed": .int(Int64(outcome.removed)),
                    "waiting": .int(Int64(outcome.waiting)), "kept": .int(Int64(outcome.kept)),
                ]
                StandardStreams.write(JSONWriter.string(.object(object), pretty: true) + "\n")
                return
            }
            var parts = ["\(outcome.removed) record\(outcome.removed == 1 ? "" : "s") removed from \(soup)"]
            if outcome.waiting > 0 {
                parts.append(
                    "\(outcome.waiting) wait\(outcome.waiting == 1 ? "s" : "") to send \(outcome.waiting == 1 ? "its change" : "their changes") (leaving after the next sync)")
            }
            if outcome.kept > 0 { parts.append("\(outcome.kept) kept (other syncs hold them)") }
            StandardStreams.write("\(name): " + parts.joined(separator: ", ") + "\n")
        }
    }
}

/// `forceterm subscriptions`: what this laptop carries beyond the config's syncs.
struct SubscriptionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "List the subscriptions: name, soup, condition, state, records held and last sync.",
        discussion: "Reads the local store only, so it works offline.")

    @Flag(help: "Print the subscriptions as JSON.") var json = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var globalOptions: GlobalStoreOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store, .global], in: "subscriptions")
        _ = try globalOptions.explicitPath(storeOptions)
    }

    func run() throws {
        try CommandFailure.reporting {
            let store = try Self.openExisting(globalOptions.location(storeOptions).path)
            let summaries = try SubscriptionSummary.all(in: store)
            let waiting = try SubscriptionSummary.waiting(in: store)
            if json {
                let object: JSONObject = [
                    "subscriptions": .array(summaries.map { .object(Self.json($0)) }),
                    "waiting": .object(JSONObject(uniqueKeysWithValues: waiting.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int(Int64($0.value))) })),
                ]
                StandardStreams.write(JSONWriter.string(.object(object), pretty: true) + "\n")
            } else {
                StandardStreams.write(Self.text(summaries, waiting: waiting))
            }
        }
    }

    static func openExisting(_ path: String) throws -> SmartStore {
        guard FileManager.default.fileExists(atPath: path) else { throw ConfigError(RecordCatalog.noStore(at: path)) }
        return try StoreKeys.open(path, mustExist: true)
    }

    static func selection(_ selection: Subscription.Selection) -> String {
        switch selection {
        case let .condition(text): text
        case let .account(id): "account \(id)"
        }
    }

    static func json(_ summary: SubscriptionSummary) -> JSONObject {
        var object: JSONObject = [
            "name": .string(summary.name), "soup": .string(summary.soupName), "state": .string(summary.state.rawValue),
            "held": .int(Int64(summary.held)),
            "lastSync": summary.lastSync > 0 ? .string(SalesforceTimestamp.format(summary.lastSync)) : .null,
            "error": summary.error.isEmpty ? .null : .string(summary.error),
        ]
        switch summary.selection {
        case let .condition(text): object["where"] = .string(text)
        case let .account(id): object["account"] = .string(id)
        }
        return object
    }

    static func text(_ summaries: [SubscriptionSummary], waiting: [String: Int]) -> String {
        guard !summaries.isEmpty || !waiting.isEmpty else {
            return "No subscriptions: the store carries what usersyncs.json syncs. Add one with forceterm subscribe NAME --soup SOUP --where CONDITION.\n"
        }
        let rows = summaries.map { summary in
            [
                summary.name, summary.soupName, summary.state.rawValue, "\(summary.held)",
                summary.lastSync > 0 ? SalesforceTimestamp.format(summary.lastSync) : "never", selection(summary.selection),
            ]
        }
        let header = ["NAME", "SOUP", "STATE", "HELD", "LAST SYNC", "SELECTS"]
        var lines: [String] = []
        // Padded by display width: a name in CJK takes two columns a character.
        let table = rows.isEmpty ? [] : [header] + rows
        let widths = (0..<header.count).map { column in table.map { $0[column].displayWidth }.max() ?? 0 }
        for row in table {
            lines.append(zip(row, widths).map { $0 + String(repeating: " ", count: max($1 - $0.displayWidth, 0)) }.joined(separator: "  ").trimmingTrailingSpaces)
        }
        for summary in summaries where !summary.error.isEmpty { lines.append("\(summary.name): last run failed: \(summary.error)") }
        for (soup, count) in waiting.sorted(by: { $0.key < $1.key }) {
            lines.append(
                "\(count) record\(count == 1 ? "" : "s") of \(soup) wait\(count == 1 ? "s" : "") to send a change, then leave\(count == 1 ? "s" : "") (no subscription holds \(count == 1 ? "it" : "them"))"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
