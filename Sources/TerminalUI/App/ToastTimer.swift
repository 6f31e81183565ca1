import ContactsApp

/// Retires toasts: long enough to read, short enough not to hide the status line for good. An
/// error stays longer than a confirmation, since it usually asks the user to do something.
public struct ToastTimer: Sendable {
    public static let confirmationLifetime: Duration = .seconds(4)
    public static let errorLifetime: Duration = .seconds(8)

    private var generation: UInt64?
    private var shownAt: ContinuousClock.Instant?

    public init() {}

    /// Whether `toast`, first seen by this timer with this `generation`, has been up long enough.
    /// A new generation (another toast, or the same message again) starts the clock over.
    public mutating func hasExpired(_ toast: Toast?, generation: UInt64, now: ContinuousClock.Instant) -> Bool {
        guard let toast else {
            self.generation = nil
            shownAt = nil
            return false
        }
        guard self.generation == generation, let shownAt else {
            self.generation = generation
            shownAt = now
            return false
        }
        return now - shownAt >= (toast.isError ? Self.errorLifetime : Self.confirmationLifetime)
    }
}
