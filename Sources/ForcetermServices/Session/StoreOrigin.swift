import ContactsApp
import Foundation
import SmartStore

/// The org a store is synced with, kept in the store by its first sync: a store is never synced
/// with another org (a reset org, or another user's), so nothing of one org is ever sent to, or
/// shown clean as coming from, another. The SDK gets the same from keeping a store per user and org.
public enum StoreOrigin {
    static let organizationKey = "forceterm.organizationId"
    static let loginURLKey = "forceterm.loginURL"

    /// Binds the store at `path` to `session`'s org on its first sync; refuses, saying what to do,
    /// when it is bound to another.
    public static func claim(_ store: SmartStore, at path: String, for session: SignedInSession) throws {
        guard !session.organizationId.isEmpty else { return }
        let recorded = try store.read { try ($0.setting(organizationKey), $0.setting(loginURLKey)) }
        if let organization = recorded.0 {
            guard organization == session.organizationId else {
                throw Mismatch(path: path, storeOrganization: organization, storeLoginURL: recorded.1, session: session)
            }
            return
        }
        try store.write { transaction in
            try transaction.setSetting(organizationKey, session.organizationId)
            try transaction.setSetting(loginURLKey, session.loginURL)
        }
    }

    /// The store belongs to another org than the one signed in to.
    public struct Mismatch: Error, CustomStringConvertible {
        public let path: String
        public let storeOrganization: String
        public let storeLoginURL: String?
        public let session: SignedInSession

        public var description: String {
            let own = path == session.storePath ? "" : " Your store for the org you are signed in to is \(session.storePath) (forceterm opens it by default; restart an open forceterm to use it)."
            return
                "\(path) holds records of the org \(storeOrganization)\(storeLoginURL.map { " at \($0)" } ?? ""), but you are signed in to the org \(session.organizationId) at \(session.loginURL) (a refreshed or restored org is a new one); nothing was sent, so none of its changes reach the other org.\(own)"
        }

        /// For a toast: the essentials in a line.
        public var short: String { "not sent: this store is another org's; restart forceterm to open yours" }
    }
}
