import MobileSync

/// A create the org did not take as it was, and the user's way out (`c`, as for a conflict): a
/// duplicate the org's rule refused is saved anyway, opened as the record the org has, or
/// discarded; a create in doubt after a lost answer takes one of the server's candidates as it,
/// or is created anew. Through MobileSync's `CreateDecisions`, as `forceterm resolve` does.
public struct CreateDecisionDialog: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The org's message and the records its duplicate rule matched.
        case duplicate(message: String, matches: [RecordReference])
        /// Why it could not be settled, and the server's records that may be it.
        case inDoubt(reason: String, candidates: [RecordReference])
    }

    public let kind: Kind
    /// The record it is about (an entry of the shown list's soup).
    public let entryId: Int64

    /// The dialog `record` needs, when it waits for such a decision.
    public init?(record: LocalRecord) {
        entryId = record.entryId
        let errors = RecordError.stored(record.document[LocalField.lastError])
        if let doubt = record.document[LocalField.createInDoubt], !doubt.isNull {
            kind = .inDoubt(
                reason: doubt["reason"]?.stringValue ?? "its answer was lost",
                candidates: doubt["candidates"]?.arrayValue?.compactMap(RecordReference.init) ?? [])
        } else if record.isLocallyCreated, let duplicate = errors.first(where: { $0.errorCode == "DUPLICATES_DETECTED" }) {
            kind = .duplicate(message: duplicate.message, matches: duplicate.duplicates)
        } else {
            return nil
        }
    }
}

extension AppModel {
    /// The create-decision dialog open now, if any.
    public var createDecision: CreateDecisionDialog? {
        if case let .decision(dialog) = overlay { return dialog }
        return nil
    }

    mutating func deciding(_ dialog: CreateDecisionDialog, _ command: AppCommand) throws {
        overlay = nil
        guard case let .decide(choice) = command else { return }
        let decisions = CreateDecisions(store: store, soupName: list.kind.soupName)
        do {
            switch (choice, dialog.kind) {
            case (.saveAnyway, .duplicate):
                try decisions.allowDuplicate(entryId: dialog.entryId)
                toast = Toast(messages.savingDuplicateAnyway)
            case let (.openExisting, .duplicate(_, matches)):
                guard let match = matches.first, let held = try list.repository.record(id: match.id) else {
                    overlay = .decision(dialog)
                    toast = Toast(messages.matchNotHeld(matches.first?.label ?? ""))
                    return
                }
                try updateList { try $0.select(entryId: held.entryId, keepingInView: true) }
                toast = Toast(messages.openedMatch(match.label))
            case (.discard, .duplicate):
                _ = try LocalChangeReverter(store: store, soupName: list.kind.soupName).revert(entryId: dialog.entryId)
                toast = Toast(messages.discardedDuplicate)
            case let (.adopt(number), .inDoubt(_, candidates)):
                guard candidates.indices.contains(number - 1) else {
                    overlay = .decision(dialog)
                    return
                }
                try decisions.adopt(entryId: dialog.entryId, serverId: candidates[number - 1].id)
                toast = Toast(messages.adoptedCandidate(candidates[number - 1].label))
            case (.sendAgain, .inDoubt):
                try decisions.sendAgain(entryId: dialog.entryId)
                toast = Toast(messages.creatingAnew)
            default:
                // A key of the other kind of decision: the dialog stays.
                overlay = .decision(dialog)
                return
            }
        } catch let refusal as CreateDecisions.Refusal {
            toast = Toast("\(refusal)", isError: true)
        }
        try refreshAll()
    }
}
