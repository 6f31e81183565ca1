import Foundation
import MobileSync

/// What the screens add to MobileSync's `LocalEdit` (how a local change marks a document): the
/// temporary id of a record created here.
public enum LocalChanges {
    /// A temporary id for a record created here, in the Android SDK's shape `local_<nanoseconds>`;
    /// MobileSync's `LocalField.isLocalId` checks the `local_` prefix.
    public static func newLocalId(now: Date = Date()) -> String {
        let nanoseconds = UInt64(now.timeIntervalSince1970 * 1_000_000_000)
        return "\(LocalField.localIdPrefix)\(nanoseconds)\(UInt16.random(in: 100...999))"
    }
}
