import Foundation

/// One address `localorg serve` listens on: an IP literal (IPv4, or IPv6 written with or without
/// brackets), `localhost`, or a wildcard (`0.0.0.0`, `::`) for every interface; with an optional port.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address without brackets: `10.0.0.5`, `::1`, `localhost`.
    public var host: String
    /// nil: the server's `--port`.
    public var port: Int?

    public init(host: String, port: Int? = nil) {
        self.host = host
        self.port = port
    }

    /// The loopback addresses, IPv4 and IPv6: the default, reachable only from this machine.
    public static let loopback = ListenAddress(host: "127.0.0.1")

    /// Reads `ADDR`, `ADDR:PORT`, `[IPV6]:PORT` or a bare IPv6 address.
    public static func parse(_ text: String) throws(ListenAddressError) -> ListenAddress {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var host = trimmed
        var portText: String?
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else { throw ListenAddressError(text, "an IPv6 address in brackets needs its closing ]") }
            host = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
            let rest = trimmed[trimmed.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw ListenAddressError(text, "after ] comes :PORT or nothing") }
                portText = String(rest.dropFirst())
            }
        } else if trimmed.filter({ $0 == ":" }).count == 1, let colon = trimmed.firstIndex(of: ":") {
            host = String(trimmed[..<colon])
            portText = String(trimmed[trimmed.index(after: colon)...])
        }
        var port: Int?
        if let portText {
            guard let number = Int(portText), (0...65_535).contains(number) else {
                throw ListenAddressError(text, "the port must be a number from 0 to 65535")
            }
            port = number
        }
        if host.lowercased() == "localhost" { return ListenAddress(host: "localhost", port: port) }
        guard IPAddressBytes.parse(host) != nil else {
            throw ListenAddressError(text, "give an IP address of this machine (e.g. 192.168.1.20), 0.0.0.0 or :: for every interface, or localhost; put host names in the certificate with --hostname")
        }
        return ListenAddress(host: host, port: port)
    }

    /// `0.0.0.0` or `::`: every interface (for `::`, IPv4 too on a dual-stack system).
    public var isWildcard: Bool { IPAddressBytes.parse(host)?.allSatisfy { $0 == 0 } ?? false }
    var isIPv6: Bool { host.contains(":") }

    /// The host as a URL writes it: IPv6 in brackets.
    public var urlHost: String { isIPv6 ? "[\(host)]" : host }

    public var description: String { port.map { "\(urlHost):\($0)" } ?? urlHost }
}

/// A `--listen` value that is not an address this server can listen on.
public struct ListenAddressError: Error, CustomStringConvertible {
    public let description: String
    init(_ text: String, _ problem: String) { description = "--listen \(text): \(problem)" }
}

/// IP addresses as bytes, as a certificate's subject alternative names hold them.
public enum IPAddressBytes {
    /// 4 bytes for IPv4, 16 for IPv6; nil when `text` is not an IP literal.
    public static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The addresses of this machine's interfaces that are up, IPv4 and (when `includeIPv6`)
    /// IPv6, link-local IPv6 left out (a URL cannot name one without its interface).
    public static func interfaceAddresses(includeIPv6: Bool) -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        var next = first
        while let entry = next {
            defer { next = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, (entry.pointee.ifa_flags & UInt32(IFF_UP)) != 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                var value = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                guard inet_ntop(AF_INET, &value, &text, socklen_t(text.count)) != nil else { continue }
            case AF_INET6 where includeIPv6:
                var value = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                let bytes = withUnsafeBytes(of: &value) { Array($0) }
                if bytes[0] == 0xFE && (bytes[1] & 0xC0) == 0x80 { continue }
                guard inet_ntop(AF_INET6, &value, &text, socklen_t(text.count)) != nil else { continue }
            default:
                continue
            }
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !addresses.contains(string) { addresses.append(string) }
        }
        return addresses
    }
}
