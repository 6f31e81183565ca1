import ForceAPI
import Synchronization

/// The REST transport kept from one sync to the next, so a sync finds its connection to the org
/// open and skips a TCP and a TLS handshake: two round trips, 0.6 s on a 3G link, before every
/// sync that a save or an announced change starts. libcurl itself does not reuse a connection idle
/// for longer than two minutes (its CURLOPT_MAXAGE_CONN), so a link that dropped meanwhile costs
/// a fresh handshake, not a stall. Forgotten after a failed sync: the next one starts afresh.
public final class KeptTransport: Sendable {
    private let kept = Mutex<CurlTransport?>(nil)

    public init() {}

    /// The transport kept, when it was made with `configuration` (the same CA, timeouts and
    /// limits); else a new one, kept from now on.
    public func transport(for configuration: TransportConfiguration) -> CurlTransport {
        let (transport, replaced) = kept.withLock { kept -> (CurlTransport, CurlTransport?) in
            if let kept, kept.configuration == configuration { return (kept, nil) }
            let made = CurlTransport(configuration: configuration)
            defer { kept = made }
            return (made, kept)
        }
        replaced?.shutdown()
        return transport
    }

    /// Lets the kept transport go: its connections close once its requests in flight end.
    public func forget() {
        kept.withLock { $0.take() }?.shutdown()
    }
}
