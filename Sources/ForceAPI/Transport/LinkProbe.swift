import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a host can be reached now: a TCP connection opened and closed, no TLS and no request
/// (a few hundred bytes on the wire). Automatic sync tries it every few seconds while offline, so
/// the link's return starts a sync at once instead of at the end of a long backoff. Through a
/// proxy (`https_proxy`, as libcurl reads it, unless `no_proxy` names the host) it is the proxy
/// that is tried: it is what the requests would reach first.
public enum LinkProbe {
    /// The host and port `url`'s requests connect to first.
    public static func endpoint(of url: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> (host: String, port: Int)? {
        guard let target = URLComponents(string: url), let host = target.host, !host.isEmpty else { return nil }
        let port = target.port ?? (target.scheme == "http" ? 80 : 443)
        let proxy = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        if let proxy, !bypassesProxy(host, noProxy: environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""),
            let through = URLComponents(string: proxy.contains("://") ? proxy : "http://" + proxy), let proxyHost = through.host, !proxyHost.isEmpty
        {
            return (proxyHost, through.port ?? 1080)
        }
        return (host, port)
    }

    /// no_proxy as libcurl reads it: `*`, or hosts and domains separated by commas.
    static func bypassesProxy(_ host: String, noProxy: String) -> Bool {
        let names = noProxy.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let host = host.lowercased()
        return names.contains { name in
            guard !name.isEmpty else { return false }
            if name == "*" { return true }
            let domain = name.hasPrefix(".") ? String(name.dropFirst()) : name
            return host == domain || host.hasSuffix("." + domain)
        }
    }

    /// Whether a connection to `url`'s first hop opens within `timeout`. Runs on a thread of its
    /// own: name resolution and connect block, and Swift's cooperative threads must not.
    public static func canConnect(to url: String, timeout: Duration = .seconds(2)) async -> Bool {
        guard let (host, port) = endpoint(of: url) else { return false }
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: connects(host: host, port: port, timeoutMilliseconds: milliseconds)) }
            thread.name = "forceterm-link-probe"
            thread.start()
        }
    }

    static func connects(host: String, port: Int, timeoutMilliseconds: Int32) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(first) }
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let address = next {
            next = address.pointee.ai_next
            if connects(to: address.pointee, timeoutMilliseconds: timeoutMilliseconds) { return true }
        }
        return false
    }

    private static func connects(to address: addrinfo, timeoutMilliseconds: Int32) -> Bool {
        let socket = Glibc.socket(
            address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            address.ai_protocol)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        if connect(socket, address.ai_addr, address.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var waiting = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        guard poll(&waiting, 1, timeoutMilliseconds) == 1 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return false }
        return failure == 0
    }
}
