/// Whether the org announces its changes to this client (Change Data Capture over the Streaming
/// API), object by object: what the Syncs tab says, so a user knows which changes arrive within
/// seconds and which wait for the timer.
public struct ServerPush: Sendable, Equatable {
    /// Objects whose changes the org announces now.
    public var listening: [String] = []
    /// Objects the org will not announce, with its reason: they come on the timer.
    public var refused: [String: String] = [:]
    /// Why the connection is down, while it is (it is tried again by itself).
    public var interrupted: String?

    public init(listening: [String] = [], refused: [String: String] = [:], interrupted: String? = nil) {
        self.listening = listening
        self.refused = refused
        self.interrupted = interrupted
    }

    /// Nothing known yet (not connected once): nothing to say.
    public var isEmpty: Bool { listening.isEmpty && refused.isEmpty && interrupted == nil }

    /// "server announces Contact, Account changes; Lead: no change events (…), on the timer".
    public func text(timerMinutes: Int) -> String {
        var parts: [String] = []
        if let interrupted {
            parts.append("server announcements interrupted (\(interrupted)), trying again")
        } else if !listening.isEmpty {
            parts.append("the server announces changes to \(listening.joined(separator: ", "))")
        }
        for (object, reason) in refused.sorted(by: { $0.key < $1.key }) {
            parts.append("\(object): not announced (\(reason)), synced every \(timerMinutes) min")
        }
        return parts.joined(separator: "; ")
    }
}
