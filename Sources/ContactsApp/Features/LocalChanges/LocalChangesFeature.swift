import MobileSync

/// Delete (asks), undelete and revert (asks) of the selected record, with the SDK's flags; an
/// account's contacts go with it, as Salesforce deletes them with it.
extension AppModel {
    mutating func askToDelete() {
        guard let record = selected else { return }
        if !list.kind.isSyncedUp {
            toast = Toast(Messages.notSyncedUp(list.kind))
        } else if record.isLocallyDeleted {
            toast = Toast(messages.alreadyDeleted(list.kind))
        } else {
            let text = messages.deleteQuestion(name: list.kind.displayName(of: record), cascade: cascadeCount(of: record))
            overlay = .question(Question(subject: .delete, text: text, entryId: record.entryId))
        }
    }

    mutating func delete(_ record: LocalRecord) throws {
        _ = try list.repository.delete(entryId: record.entryId)
        let contacts = try cascade(from: record) { try $0.delete(entryId: $1) }
        toast = Toast(messages.deleted(contacts: contacts))
        try refreshAll()
    }

    mutating func undeleteSelected() throws {
        guard let record = selected else { return }
        guard record.isLocallyDeleted else {
            toast = Toast(messages.onlyDeletedUndelete(list.kind))
            return
        }
        _ = try list.repository.undelete(entryId: record.entryId)
        let contacts = try cascade(from: record) { try $0.undelete(entryId: $1) }
        toast = Toast(messages.undeleted(contacts: contacts))
        try refreshAll()
    }

    mutating func askToRevert() {
        guard let record = selected else { return }
        if !record.hasLocalChanges {
            toast = Toast(messages.noChangesToRevert(list.kind))
        } else {
            overlay = .question(Question(subject: .revert, text: revertQuestion, entryId: record.entryId))
        }
    }

    /// What the revert question says will happen to the selected record.
    public var revertQuestion: String {
        guard let record = selected else { return "" }
        return messages.revertQuestion(name: list.kind.displayName(of: record), createdHere: record.isLocallyCreated)
    }

    /// The question on screen, if one is asked.
    public var question: Question? {
        if case let .question(question) = overlay { return question }
        return nil
    }

    /// Every local change of `record` back to its base (the server's version as last synced), in
    /// one transaction, through MobileSync's reverter; a record created here is removed.
    mutating func revert(_ record: LocalRecord) throws {
        switch try LocalChangeReverter(store: store, soupName: list.kind.soupName).revert(entryId: record.entryId) {
        case .reverted: toast = Toast(messages.reverted)
        case .removed: toast = Toast(messages.removedNeverSynced)
        }
        try refreshAll()
    }

    /// The contacts Salesforce deletes with `account` (it deletes an account's contacts with it):
    /// their number, for the delete question. 0 for anything but an account on the server.
    public func cascadeCount(of record: LocalRecord) -> Int {
        guard list.kind.role == .account, let id = record.serverId, !LocalField.isLocalId(id), let contacts else { return 0 }
        return (try? contacts.repository.count(where: "AccountId", equals: id)) ?? 0
    }

    /// Applies `change` to the contacts of `record` when it is an account (deleting or undeleting
    /// them with it); returns how many.
    private func cascade(from record: LocalRecord, _ change: (RecordRepository, Int64) throws -> LocalRecord) throws -> Int {
        guard list.kind.role == .account, let id = record.serverId, !LocalField.isLocalId(id), let contacts else { return 0 }
        let affected = try contacts.repository.records(where: "AccountId", equals: id, limit: 100_000)
            .filter { record.isLocallyDeleted ? $0.isLocallyDeleted : !$0.isLocallyDeleted }
        for contact in affected { _ = try change(contacts.repository, contact.entryId) }
        return affected.count
    }
}
