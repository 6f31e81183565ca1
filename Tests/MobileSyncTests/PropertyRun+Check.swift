import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import SmartStore
import Synchronization
import Testing

@testable import MobileSync

/// The property's final check: store and server agree, no edit lost, nothing twice.
extension PropertyRun {
    func check() async throws {
        let trail = "seed \(seed), \(mode):\n" + log.joined(separator: "\n")
        if ProcessInfo.processInfo.environment["FORCETERM_SYNC_PROPERTY_LOG"] != nil { print(trail) }
        let serverContacts = try await client.query("SELECT Id, LastName, Title, AccountId FROM Contact").records.compactMap(\.objectValue)
        let serverAccounts = try await client.query("SELECT Id, Name FROM Account").records.compactMap(\.objectValue)
        let contacts = try local.documents("contacts")
        let accounts = try local.documents("accounts")

        // Nothing twice, on either side.
        let serverNames = serverContacts.compactMap { $0["LastName"]?.stringValue }
        #expect(Set(serverNames).count == serverNames.count, "duplicate contacts on the server: \(serverNames.sorted())\n\(trail)")
        let accountServerNames = serverAccounts.compactMap { $0["Name"]?.stringValue }
        #expect(Set(accountServerNames).count == accountServerNames.count, "duplicate accounts on the server\n\(trail)")
        #expect(Set(contacts.compactMap { $0["Id"]?.stringValue }).count == contacts.count, "duplicate ids in the store\n\(trail)")

        // The store and the server agree, record for record, and the store is settled.
        func rows(_ records: [JSONObject], _ fields: [String]) -> [String] {
            records.map { record in fields.map { record[$0]?.stringValue ?? "-" }.joined(separator: "|") }.sorted()
        }
        #expect(
            rows(contacts, ["Id", "LastName", "Title", "AccountId"]) == rows(serverContacts, ["Id", "LastName", "Title", "AccountId"]),
            "store and server differ\n\(trail)")
        #expect(rows(accounts, ["Id", "Name"]) == rows(serverAccounts, ["Id", "Name"]), "accounts differ\n\(trail)")
        #expect(
            (contacts + accounts).allSatisfy { !$0.isDirty && !$0.hasConflict && $0[LocalField.lastError] == nil },
            "records left dirty or with errors\n\(trail)")

        // Each contact exists as its history says, with a Title no later edit overrode.
        let byName = Dictionary(
            serverContacts.compactMap { record in record["LastName"]?.stringValue.map { ($0, record) } },
            uniquingKeysWith: { first, _ in first })
        let accountIds = Dictionary(
            serverAccounts.compactMap { record in record["Name"]?.stringValue.map { ($0, record["Id"]) } },
            uniquingKeysWith: { first, _ in first })
        for (name, history) in histories.sorted(by: { $0.key < $1.key }) {
            let record = byName[name]
            if history.deletedOnServer || history.isLocallyDeleted {
                #expect(record == nil, "\(name) should be gone\n\(trail)")
                continue
            }
            guard let record else {
                let stored = contacts.first { $0["LastName"]?.stringValue == name }
                let state = stored.map { record in record.filter { $0.key.hasPrefix("__") }.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ") } ?? "not in the store"
                Issue.record("\(name) was lost: \(state)\n\(trail)")
                continue
            }
            let title = record["Title"]?.stringValue ?? ""
            #expect(history.allowedTitles.contains(title), "\(name) ends with Title \(title), expected one of \(history.allowedTitles.sorted())\n\(trail)")
            if let accountName = history.accountName {
                #expect(record["AccountId"] == accountIds[accountName] ?? nil, "\(name) is not under \(accountName)\n\(trail)")
            }
        }
        #expect(Set(accountServerNames).isSuperset(of: accountNames), "an account was lost\n\(trail)")
    }
}
