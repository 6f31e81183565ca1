import ArgumentParser
import ForceJSON
import Foundation
import LocalOrg

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the org over HTTPS (or HTTP), on this machine only unless --listen says otherwise.",
        discussion: """
            On first start this creates, in the data directory, a certificate authority (ca.pem and \
            its key) and a server certificate it signs for localhost, 127.0.0.1, ::1 and every \
            address given with --listen (re-issued by the same CA when a new one is added). Point \
            clients at ca.pem: forceterm login --cacert DIR/ca.pem, curl --cacert DIR/ca.pem, \
            Python requests verify='DIR/ca.pem'; its fingerprint is printed to check it by.

            A training room: localorg serve --listen 0.0.0.0 (every interface; the printed command \
            line is what trainees type). Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
            """)

    @OptionGroup var data: DataOption
    @Option(help: "Port to listen on; 0 picks a free one (printed on start).") var port = 8443
    @Option(
        name: .customLong("listen"),
        help: ArgumentHelp(
            "An address to listen on, with an optional port: 192.168.1.20, 10.0.0.5:9443, [fd00::5]:8443, 0.0.0.0 or :: for every interface. Repeatable. Default: 127.0.0.1 and ::1, this machine only.",
            valueName: "addr[:port]"))
    var listen: [String] = []
    @Option(name: .customLong("hostname"), help: ArgumentHelp("A host name clients use to reach this machine, added to the certificate (e.g. trainer.local). Repeatable.", valueName: "name"))
    var hostNames: [String] = []
    @Flag(help: "Serve plain HTTP instead of HTTPS.") var http = false
    @Flag(
        name: .customLong("no-http2"),
        help: ArgumentHelp(
            "Speak HTTP/1.1 only over TLS.",
            discussion:
                "By default HTTPS offers HTTP/2 as well (as Salesforce does): a client such as forceterm then sends its requests in flight together on one connection instead of one connection each."))
    var noHTTP2 = false
    @Option(help: "Seconds an access token stays valid.") var tokenTTL: Int64 = 7200
    @Option(help: "API requests allowed per user per day before 403 REQUEST_LIMIT_EXCEEDED.") var apiLimit = 100_000
    @Option(help: "public: everyone sees every record. private: users see and change only records they own (admins see all).")
    var sharing: OrgSettings.Sharing = .public
    @Option(help: "Milliseconds added to every data API request, to show a slow network.") var latency = 0
    @Option(help: "Share (0 to 1) of data API requests refused with 503 before doing anything, to show retries.") var failRate = 0.0
    @Option(help: "Refuse the first N data API requests with 503, then answer normally (a deterministic fault for retry tests).") var failFirst = 0
    @Option(
        help: ArgumentHelp(
            "The connected apps' mobile policy: passcodes of at least N characters (the identity's mobile_policy.pin_length).",
            discussion: "For the built-in app and every app in connected-apps.json without a mobilePolicy of its own.", valueName: "N"))
    var pinLength: Int?
    @Option(
        help: ArgumentHelp(
            "The connected apps' mobile policy: apps lock after this many idle minutes (mobile_policy.screen_lock).",
            discussion: "For the built-in app and every app in connected-apps.json without a mobilePolicy of its own.", valueName: "minutes"))
    var screenLock: Int?
    @Option(
        name: .customLong("no-change-events"), parsing: .singleValue,
        help: ArgumentHelp(
            "An object whose changes the Streaming API does not announce, as in an org that has not selected it for Change Data Capture. Repeatable.",
            discussion: "Subscribing to its /data/<Object>ChangeEvent channel is refused as Salesforce refuses a channel that does not exist; /data/ChangeEvents leaves it out.",
            valueName: "object"))
    var noChangeEvents: [String] = []
    @Option(
        name: .customLong("streaming-timeout"),
        help: ArgumentHelp(
            "Seconds the Streaming API holds a connect open when no event comes (Salesforce: 110).", valueName: "seconds"))
    var streamingTimeout = 110.0
    @Flag(help: "Do not print a line per request.") var quiet = false
    @Flag(
        name: .customLong("block-password-flow"),
        help: ArgumentHelp(
            "Refuse the username-password flow for the built-in forceterm app, as orgs made since Summer '23 do by default.",
            discussion: "The refusal reads as a wrong password, as Salesforce's does; the device flow still signs in. Other apps: \"passwordFlow\": false in connected-apps.json."))
    var blockPasswordFlow = false
    @Option(name: .customLong("lock-wait"), help: ArgumentHelp("Seconds a save waits for a record another job holds locked (localorg lock) before UNABLE_TO_LOCK_ROW.", valueName: "seconds"))
    var lockWait: Int64 = 10
    @Option(help: "Serve this certificate chain (PEM) instead of the local CA's.") var tlsCert: String?
    @Option(help: "Private key (PEM) for --tls-cert.") var tlsKey: String?
    @Option(
        help: ArgumentHelp("Stop (as on SIGTERM) when the process with this id is no longer our parent, so a program that started us never leaves us running (forceterm --demo).", valueName: "pid"))
    var parentPid: Int32?
    @Option(
        name: .customLong("ready-file"),
        help: ArgumentHelp(
            "Write this file, as JSON, once the server accepts connections: its URLs, port, CA file and fingerprint, process id.",
            discussion: "For scripts and tests that start localorg: wait for the file instead of reading the banner. Written whole (a rename), removed when the server stops.",
            valueName: "path"))
    var readyFile: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together.") }
        if tokenTTL < 1 { throw ValidationError("--token-ttl must be at least 1 second.") }
        if !(0...1).contains(failRate) { throw ValidationError("--fail-rate is a share between 0 and 1.") }
        if latency < 0 { throw ValidationError("--latency cannot be negative.") }
        if failFirst < 0 { throw ValidationError("--fail-first cannot be negative.") }
        if !(0.1...600).contains(streamingTimeout) { throw ValidationError("--streaming-timeout is between 0.1 and 600 seconds.") }
        if let pinLength, !(4...64).contains(pinLength) { throw ValidationError("--pin-length is between 4 and 64 characters, as a connected app's policy allows.") }
        if let screenLock, screenLock < 1 { throw ValidationError("--screen-lock is a number of minutes, at least 1.") }
        if !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 to 65535.") }
        if let parentPid, parentPid <= 1 { throw ValidationError("--parent-pid needs the id of the process that starts localorg.") }
        if let readyFile {
            let folder = (readyFile as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            if !FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder) || !isFolder.boolValue {
                throw ValidationError("--ready-file \(readyFile): the folder \(folder) does not exist; give a path in an existing folder.")
            }
        }
        _ = try listenAddresses()
        for name in hostNames where name.isEmpty || name.contains(where: { $0 == "/" || $0 == ":" || $0 == " " }) {
            throw ValidationError("--hostname \(name): give a host name such as trainer.local (no scheme, port or path).")
        }
    }

    func listenAddresses() throws -> [ListenAddress] {
        do {
            return try listen.map(ListenAddress.parse)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let directory = data.orgDirectory
        let store = try data.openStore()
        var settings = OrgSettings()
        settings.tokenLifetime = tokenTTL
        settings.dailyAPILimit = apiLimit
        settings.sharing = sharing
        settings.latencyMilliseconds = latency
        settings.failureRate = failRate
        settings.failFirstRequests = failFirst
        settings.streamingTimeoutMilliseconds = Int(streamingTimeout * 1000)
        for object in noChangeEvents {
            guard let known = store.schema.object(named: object) else {
                throw ValidationError("--no-change-events \(object): the org has no such object; give an object name such as Contact or Account.")
            }
            settings.objectsWithoutChangeEvents.insert(known.name)
        }
        settings.mobilePolicy = OrgSettings.MobilePolicy(pinLength: pinLength, screenLockMinutes: screenLock)
        settings.connectedApps = try directory.connectedApps()
        settings.connectedAppPolicies = try directory.connectedAppPolicies()
        settings.passwordFlowBlocked = try directory.passwordFlowBlockedApps()
        if blockPasswordFlow { settings.passwordFlowBlocked.insert(LocalOrgAPI.builtInClientId) }
        settings.lockWaitSeconds = max(0, lockWait)
        settings.briefcases = try directory.briefcases(schema: store.schema)
        let api = try LocalOrgAPI(store: store, settings: settings)
        let addresses = try listenAddresses()
        var tls: LocalOrgServer.TLSFiles?
        let authority = directory.certificateAuthority
        if !http {
            if let tlsCert, let tlsKey {
                tls = .init(certificateChainPath: tlsCert, privateKeyPath: tlsKey)
            } else {
                switch try authority.ensureCertificates(names: .serving(addresses, hostNames: hostNames)) {
                case .unchanged: break
                case .created:
                    Self.say("Created a local certificate authority: \(authority.caCertificatePath)")
                case .reissued(let added):
                    Self.say("Re-issued the server certificate (same CA) to add: \(added.joined(separator: ", "))")
                case .replacedAuthority:
                    Self.say("Created a new certificate authority (the old one could not sign new names): clients must trust the new \(authority.caCertificatePath)")
                }
                tls = .init(
                    certificateChainPath: authority.serverCertificatePath, privateKeyPath: authority.serverKeyPath,
                    authorityPath: authority.caCertificatePath)
            }
        }
        var server = LocalOrgServer(api: api, listen: addresses.isEmpty ? [.loopback] : addresses, port: port, tls: tls)
        server.offersHTTP2 = !noHTTP2
        if !quiet {
            // One line per request (never headers or query strings, so no tokens), for trainers to watch a sync.
            server.requestLog = { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        }
        let scheme = http ? "http" : "https"
        let localCA = tlsCert == nil && !http
        let fingerprint = localCA ? try authority.caFingerprint() : nil
        // Beyond this machine, only demo users whose password is still the published one are
        // listed, with a warning for an admin among them (checking costs a password hash each).
        let servesOthers = addresses.contains { !($0.host.hasPrefix("127.") || $0.host == "::1" || $0.host == "localhost") }
        let published =
            servesOthers
            ? try store.demoUsersWithPublishedPasswords()
            : try OrgStore.demoUsers.filter { try store.userId(username: $0.username) != nil }.map { ($0.username, $0.password, $0.admin) }
        let administratorFile = (try? String(contentsOfFile: directory.administratorPasswordPath, encoding: .utf8))?
            .split(separator: "\n").first.map(String.init)
        if let parentPid { ParentWatch.stopWhenOrphaned(parent: parentPid) }
        let stopDeadline = StopDeadline.arm()
        defer { withExtendedLifetime(stopDeadline) {} }
        // The trainer's localorg edit|delete|snapshot restore, run in another terminal, show in this log too.
        let commandLines =
            quiet
            ? nil
            : Task {
                var last = (try? await store.lastEventSequence()) ?? 0
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    for event in (try? await store.events(after: last)) ?? [] {
                        last = event.sequence
                        if event.entry.origin != nil { Self.say(event.entry.line) }
                    }
                }
            }
        defer { commandLines?.cancel() }
        try await server.run(stopOnSignals: true) { (bound: [LocalOrgServer.BoundAddress]) in
            let urls = Self.urls(bound, scheme: scheme)
            var lines = ["localorg is serving \(urls.first ?? "")  (data: \(directory.path))"]
            for url in urls.dropFirst() { lines.append("Also serving:   \(url)") }
            if localCA {
                lines.append("Trust this CA:  \(authority.caCertificatePath)")
                if let fingerprint { lines.append("CA fingerprint: SHA256 \(fingerprint)") }
            }
            lines.append("Client id:      \(LocalOrgAPI.builtInClientId)  (no secret needed)")
            for user in published {
                lines.append("Demo user:      \(user.username)  password \(user.password)\(user.admin ? "  (admin)" : "")")
            }
            if let administratorFile, !published.contains(where: \.admin) {
                lines.append("Administrator:  \(administratorFile)  (password in \(directory.administratorPasswordPath); trainer's page: /trainer)")
            }
            if servesOthers, let admin = published.first(where: \.admin) {
                lines.append(
                    """
                    WARNING: \(admin.username) is an administrator whose password is printed above and in the docs: anyone \
                    on this network can sign in as admin. Before a class: localorg user passwd \(admin.username) (or user deactivate).
                    """)
            }
            // The address other machines use when there is one, else this machine's.
            if let roomURL = urls.first(where: { !$0.contains("://localhost:") && !$0.contains("://127.") && !$0.contains("[::1]") }) ?? urls.first {
                lines.append("Sign in with:   forceterm login --login-url \(roomURL)\(fingerprint.map { " --trust SHA256:\($0)" } ?? "")")
            }
            lines.append("Stop with Ctrl-C.")
            Self.say(lines.joined(separator: "\n"))
            if let readyFile {
                do {
                    try ReadyFile(
                        urls: urls, port: bound.first?.port ?? port, caFile: localCA ? authority.caCertificatePath : nil,
                        caFingerprint: fingerprint, dataDirectory: directory.path
                    ).write(to: readyFile)
                } catch {
                    FileHandle.standardError.write(Data("localorg: could not write --ready-file \(readyFile): \(error)\n".utf8))
                }
            }
        }
        if let readyFile { try? FileManager.default.removeItem(atPath: readyFile) }
        Self.say("localorg stopped.")
    }

    /// Written unbuffered, so a script reading our output sees each line at once.
    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// The URLs clients can use: localhost for the loopback pair, each interface's address for a
    /// wildcard, the address itself otherwise.
    static func urls(_ bound: [LocalOrgServer.BoundAddress], scheme: String) -> [String] {
        var urls: [String] = []
        func add(_ url: String) { if !urls.contains(url) { urls.append(url) } }
        for address in bound {
            let listen = ListenAddress(host: address.host, port: address.port)
            if address.host == "127.0.0.1" || address.host == "::1" {
                add("\(scheme)://localhost:\(address.port)")
            } else if listen.isWildcard {
                for interface in IPAddressBytes.interfaceAddresses(includeIPv6: address.host.contains(":")) {
                    let candidate = ListenAddress(host: interface, port: address.port)
                    add(interface == "127.0.0.1" || interface == "::1" ? "\(scheme)://localhost:\(address.port)" : "\(scheme)://\(candidate)")
                }
            } else {
                add(address.url(scheme: scheme))
            }
        }
        return urls
    }
}

extension OrgSettings.Sharing: ExpressibleByArgument {}

/// What `serve --ready-file` writes once the server accepts connections, for the program that
/// started it: one JSON object, written whole (a rename) so a reader never sees half of it.
struct ReadyFile {
    let urls: [String]
    let port: Int
    let caFile: String?
    let caFingerprint: String?
    let dataDirectory: String

    func write(to path: String) throws {
        var object: JSONObject = [
            "url": .string(urls.first ?? ""), "urls": .array(urls.map(JSONValue.string)), "port": .int(Int64(port)),
            "pid": .int(Int64(getpid())), "data": .string(dataDirectory),
        ]
        if let caFile { object["caFile"] = .string(caFile) }
        if let caFingerprint { object["caFingerprint"] = .string("SHA256:" + caFingerprint) }
        let partial = path + ".part"
        try Data((JSONWriter.string(.object(object)) + "\n").utf8).write(to: URL(fileURLWithPath: partial))
        guard rename(partial, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}

/// Ends `serve` when the program that started it is gone: a parent killed with SIGKILL cannot stop
/// its child, but the child sees that it was handed to another parent and stops itself cleanly.
enum ParentWatch {
    /// How often the parent is checked; a second's delay is fine for a server nobody uses any more.
    static let pollInterval: TimeInterval = 0.25

    /// Starts a thread that sends SIGTERM to this process (the server's own graceful stop) once
    /// `parent` is no longer its parent, including when it already is not.
    static func stopWhenOrphaned(parent: Int32) {
        Thread.detachNewThread {
            while getppid() == parent { Thread.sleep(forTimeInterval: pollInterval) }
            kill(getpid(), SIGTERM)
        }
    }
}

/// Ends `serve` a few seconds after SIGTERM or SIGINT even if connections are left: the graceful
/// stop waits for each to close, and one whose client vanished mid-handshake (a laptop that left
/// the room's network, a link that went dead) never does, so Ctrl-C did not stop the server.
/// Every write is committed as it is made, so nothing is lost by not waiting longer.
final class StopDeadline {
    static let grace: Double = 5
    private let sources: [any DispatchSourceSignal]

    private init(sources: [any DispatchSourceSignal]) { self.sources = sources }

    static func arm() -> StopDeadline {
        let queue = DispatchQueue(label: "localorg.stop-deadline")
        let sources = [SIGTERM, SIGINT].map { signalNumber in
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                queue.asyncAfter(deadline: .now() + grace) {
                    FileHandle.standardError.write(Data("localorg: connections still open \(Int(grace)) s after the stop (clients gone from the network); stopped anyway.\n".utf8))
                    _exit(0)
                }
            }
            source.resume()
            return source
        }
        return StopDeadline(sources: sources)
    }
}
