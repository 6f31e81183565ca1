/// How the HTTP transport connects: TLS trust, timeouts and how many connections it keeps.
public struct TransportConfiguration: Sendable, Equatable {
    /// A PEM file of certificate authorities to trust instead of the system's (`--cacert`), e.g.
    /// a company's private CA or localorg's `ca.pem`.
    public var caFile: String?
    /// Turns certificate verification off. For development only; the command line warns when set.
    public var allowsInsecureTLS = false
    /// Seconds to resolve the host, connect and finish the TLS handshake: three round trips and
    /// more, so long enough for a 3 s round trip (a congested 3G or satellite link) with a lost
    /// packet resent. A refused connection, an unknown host or a reset is reported at once, not
    /// after this; only a server that never answers waits it out.
    public var connectTimeout: Double = 15
    /// Seconds a transfer may move (almost) no bytes before it is abandoned as stalled.
    public var stallTimeout: Double = 20
    /// Seconds one request may take from start to end, whatever happens.
    public var requestDeadline: Double = 120
    /// Sends JSON request bodies of a kilobyte or more gzip-compressed (`Content-Encoding: gzip`,
    /// which Salesforce accepts), a fifth of the bytes for a sync up's batches.
    public var compressesRequestBodies = true
    /// Connections kept to one host at most. Over HTTP/2 every request in flight shares one; over
    /// HTTP/1.1 each needs its own, and requests beyond this many wait for one to be free.
    public var maxConnections = 4
    public var userAgent = "forceterm/0.1 (libcurl)"

    public init(caFile: String? = nil, allowsInsecureTLS: Bool = false) {
        self.caFile = caFile
        self.allowsInsecureTLS = allowsInsecureTLS
    }
}
