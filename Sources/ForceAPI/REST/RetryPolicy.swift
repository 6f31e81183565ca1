/// When a failed request is tried again: an idempotent one after a broken, refused or timed-out
/// connection or a 502/503/504, and any request (a create too) whose bytes never left because
/// no connection or TLS handshake was there to carry them; with jittered exponential backoff and
/// a cap.
/// An unreachable server is retried only within `offlineBudget`, so "offline" still arrives fast.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first one included.
    public var maximumAttempts = 4
    /// The first backoff's upper bound, in seconds; it doubles per retry up to `maximumDelay`.
    public var baseDelay = 0.25
    public var maximumDelay = 4.0
    /// Seconds after the first attempt beyond which an unreachable server is reported as offline.
    public var offlineBudget = 2.0
    /// Seconds after the first attempt during which a request whose transfer stalled is tried
    /// again, whether the link then stalls again or finds no route: a link that was moving bytes
    /// and went silent (a tunnel, a train between masts) usually comes back within a minute.
    public var linkDropBudget = 75.0

    public init() {}

    /// No retries at all.
    public static var never: RetryPolicy {
        var policy = RetryPolicy()
        policy.maximumAttempts = 1
        return policy
    }

    /// The wait before retry number `retry` (0 for the first retry): half fixed, half random
    /// ("equal jitter"), so many clients recovering together do not retry in lockstep.
    public func delay(beforeRetry retry: Int) -> Double {
        let ceiling = min(maximumDelay, baseDelay * Double(1 << min(retry, 16)))
        return ceiling / 2 + Double.random(in: 0...(ceiling / 2))
    }

    /// The wait before retry number `retry` once a transfer of the request has stalled: seconds
    /// apart, so that attempts failing at once (no route while the link is down) still reach
    /// across a drop of half a minute instead of using up the attempts in a second.
    public func delayAfterStall(beforeRetry retry: Int) -> Double {
        [1.0, 8.0, 20.0][min(max(retry, 0), 2)]
    }

    /// Whether to retry after `error` on attempt `attempt` (1-based), `elapsed` seconds in.
    /// `afterStall`: an earlier attempt of the same request stalled mid-transfer.
    /// `requestMayHaveLeft`: false when the transport knows nothing of the request was sent.
    public func shouldRetry(
        after error: ForceAPIError, attempt: Int, elapsed: Double, idempotent: Bool, nextDelay: Double,
        afterStall: Bool = false, requestMayHaveLeft: Bool = true
    ) -> Bool {
        guard idempotent || !requestMayHaveLeft, attempt < maximumAttempts else { return false }
        switch error {
        case .connectionLost: return true
        // A link that went silent mid-transfer: tried again while it may still come back.
        case .timeout(.stalled, _): return elapsed + nextDelay < linkDropBudget
        // The TLS handshake did not finish: on a 3 s round trip with 5 % loss a lost handshake
        // packet alone can take that long, so twice more; a server that never answers is not
        // waited out again and again.
        case .timeout(.noAnswer, _): return attempt < 3 || (afterStall && elapsed + nextDelay < linkDropBudget)
        case .offline: return elapsed + nextDelay < (afterStall ? linkDropBudget : offlineBudget)
        default: return false
        }
    }

    /// Whether to retry after an HTTP status on attempt `attempt`.
    public func shouldRetry(status: Int, attempt: Int, idempotent: Bool) -> Bool {
        idempotent && attempt < maximumAttempts && [502, 503, 504].contains(status)
    }
}
