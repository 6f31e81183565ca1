import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP port on 127.0.0.1 bound and not listening: a connection to it is refused at once, and no
/// other process's server (tests run in parallel) can take it meanwhile.
public final class ClosedPort: @unchecked Sendable {
    private let descriptor: Int32

    /// Nil when the port is taken already.
    public init?(port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}

/// A TCP listener on 127.0.0.1 that completes connections (through the kernel's backlog) but
/// never reads or answers: a server that hangs.
public final class SilentListener: @unchecked Sendable {
    public let port: Int
    let descriptor: Int32

    /// `receiveBuffer`: the bytes each connection's kernel buffer takes at most before the client
    /// must wait (a link that carries almost nothing), when given.
    public init(receiveBuffer: Int32? = nil) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LocalOrgProcessError("socket failed") }
        if var receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw LocalOrgProcessError("bind/listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptor = descriptor
    }

    /// Accepts the first connection waiting and reads it until its end, a reset or `timeout`
    /// seconds without a byte: the bytes that arrived, whether sent before or after the client
    /// let the connection go.
    public func readFirstConnection(timeout: Int) -> Int {
        let connection = accept(descriptor, nil, nil)
        guard connection >= 0 else { return -1 }
        defer { close(connection) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return total }
            total += count
        }
    }

    deinit { close(descriptor) }
}

/// A TCP port on 127.0.0.1 that accepts each connection, reads the client's first bytes and resets
/// it (SO_LINGER 0), as a server killed mid-handshake looks to the client.
public final class ResettingListener: @unchecked Sendable {
    public let port: Int
    private let silent: SilentListener
    private let thread: Thread

    public init() throws {
        silent = try SilentListener()
        port = silent.port
        let descriptor = silent.descriptor
        thread = Thread {
            while true {
                let connection = accept(descriptor, nil, nil)
                if connection < 0 { return }
                // Wait for the client's first TLS bytes, so the reset lands inside the handshake
                // (a reset before them can reach curl still connecting, as "connection refused").
                var hello = [UInt8](repeating: 0, count: 1024)
                _ = recv(connection, &hello, hello.count, 0)
                var linger = linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                close(connection)
            }
        }
        thread.start()
    }

    deinit { shutdown(silent.descriptor, Int32(SHUT_RDWR)) }
}

/// A TCP relay on 127.0.0.1 that holds every chunk `delay` seconds in each direction before
/// passing it on to `targetPort`: a link with a round trip of twice `delay` (a congested 3G or
/// satellite link) as the client sees it, handshake included. It loses nothing; the project's
/// link emulator (`scripts/field-link/`) drops real packets. The first `silentConnections`
/// connections are accepted and never answered, as a handshake whose packets were lost looks;
/// `silenceOpenConnections` makes the ones open go dead (a tunnel) while new ones still pass.
public final class DelayingRelay: @unchecked Sendable {
    public let port: Int
    private let listener: SilentListener
    private let thread: Thread
    private let held = HeldConnections()
    private let silence = RelaySilence()

    /// From now on nothing crosses the connections open now, either way; later ones work.
    public func silenceOpenConnections() { silence.silenceOpen() }

    public init(targetPort: Int, delay: Double, silentConnections: Int = 0) throws {
        listener = try SilentListener()
        port = listener.port
        let descriptor = listener.descriptor
        let held = self.held
        let silence = self.silence
        thread = Thread {
            var accepted = 0
            while true {
                let client = accept(descriptor, nil, nil)
                if client < 0 { return }
                accepted += 1
                let number = silence.opened()
                if accepted <= silentConnections {
                    held.add(client)
                    continue
                }
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = UInt16(targetPort).bigEndian
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard connected == 0 else {
                    close(client)
                    close(server)
                    continue
                }
                Self.pump(from: client, to: server, delay: delay) { silence.isSilenced(number) }
                Self.pump(from: server, to: client, delay: delay) { silence.isSilenced(number) }
            }
        }
        thread.start()
    }

    /// Reads `source` and writes each chunk to `destination` once `delay` has passed since it arrived.
    private static func pump(from source: Int32, to destination: Int32, delay: Double, silenced: @escaping @Sendable () -> Bool) {
        let queue = DispatchQueue(label: "relay-\(source)-\(destination)")
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(source, &buffer, buffer.count, 0)
                if count <= 0 {
                    queue.asyncAfter(deadline: .now() + delay) { shutdown(destination, Int32(SHUT_WR)) }
                    return
                }
                if silenced() { continue }
                let chunk = Array(buffer[0..<count])
                queue.asyncAfter(deadline: .now() + delay) {
                    var sent = 0
                    while sent < chunk.count {
                        let written = chunk[sent...].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        if written <= 0 { return }
                        sent += written
                    }
                }
            }
        }.start()
    }

    deinit {
        shutdown(listener.descriptor, Int32(SHUT_RDWR))
        held.closeAll()
    }
}

/// Which of a relay's connections have gone dead: those opened before the last `silenceOpen`.
final class RelaySilence: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var silencedThrough = 0

    func opened() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
    func silenceOpen() { lock.withLock { silencedThrough = count } }
    func isSilenced(_ number: Int) -> Bool { lock.withLock { number <= silencedThrough } }
}

/// Connections a test relay keeps open without answering, closed when the relay goes.
final class HeldConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptors: [Int32] = []

    func add(_ descriptor: Int32) { lock.withLock { descriptors.append(descriptor) } }

    func closeAll() {
        for descriptor in lock.withLock({ descriptors }) { close(descriptor) }
    }
}
