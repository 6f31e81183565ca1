import ContactsApp
import ForceJSON
import Foundation
import SmartStore

extension RecordCatalog {
    /// Refuses a change to records no sync up sends, as the terminal UI does.
    public func checkSyncedUp(_ kind: RecordKind) throws {
        if !kind.isSyncedUp { throw ConfigError(Messages.notSyncedUp(kind)) }
    }

    /// The draft's problems as the command reports them: one line each, naming the field.
    public static func report(_ problems: RecordDraft.Problems, record: String) -> ConfigError {
        ConfigError("\(record) not saved: " + problems.problems.map(\.message).joined(separator: "; "))
    }
}
