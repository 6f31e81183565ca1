import ArgumentParser
import ContactsApp
import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import MobileSync
import SmartStore

/// `forceterm login`: the OAuth device flow (made for SSH sessions) or the username-password
/// flow, then the session saved to `$XDG_DATA_HOME/forceterm/credentials.json` (mode 0600).
struct LoginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to Salesforce (or a localorg) and keep the session for later commands.",
        discussion: """
            By default forceterm uses the device flow: it prints a URL and a code; open the URL on \
            any device, enter the code and approve. forceterm polls until you do (Ctrl-C cancels). \
            With --username and --password-stdin it uses the username-password flow; the password \
            (with the security token appended, if your org wants one) is read from standard input, \
            never from the command line.

            Examples:
              forceterm login --login-url https://test.salesforce.com
              echo "$PASSWORD" | forceterm login --username me@example.com --password-stdin
              forceterm login --login-url https://localhost:8443 --cacert ~/.local/share/localorg/ca.pem
            """)

    @Flag(help: "Use the device flow (the default).") var device = false
    @Option(help: ArgumentHelp("Sign in as this user with the username-password flow.", valueName: "username")) var username: String?
    @Flag(help: "Read the password from standard input (required with --username); typed at a terminal, it is not shown.") var passwordStdin = false
    @Option(help: ArgumentHelp("login.salesforce.com (default), test.salesforce.com, a My Domain or a localorg URL.", valueName: "url"))
    var loginURL: String?
    @Option(help: ArgumentHelp("Trust the certificate authorities in this PEM file (a private CA, or localorg's ca.pem).", valueName: "file"))
    var cacert: String?
    @Option(
        help: ArgumentHelp("Trust the server's certificate authority if its SHA-256 fingerprint is this one (what localorg serve prints), without asking; for scripts.", valueName: "SHA256:AB:CD:…"))
    var trust: String?
    @Flag(help: "Do not verify the server's certificate. For development only: anyone on the network can read your session.")
    var insecure = false
    @OptionGroup var configOptions: ConfigOptions
    @ParentCommand var root: Forceterm
    @Flag(help: "Print one line per request to standard error (never tokens).") var verbose = false

    func validate() throws {
        try root.refuseOptions(except: [.config], in: "login")
        if device && username != nil { throw ValidationError("--device and --username are two different ways to sign in; pick one.") }
        if username != nil && !passwordStdin { throw ValidationError("--username needs --password-stdin: type or pipe the password on standard input.") }
        if passwordStdin && username == nil { throw ValidationError("--password-stdin goes with --username U.") }
        if let loginURL { _ = try Self.checkedLoginURL(loginURL) }
        if let trust, ServerCertificate.normalizedFingerprint(trust) == nil {
            throw ValidationError("--trust \(trust) is not a SHA-256 fingerprint; give the 32 bytes in hex as localorg serve prints them (SHA256:AB:CD:…)")
        }
        if trust != nil && (cacert != nil || insecure) { throw ValidationError("--trust goes without --cacert and --insecure: it trusts the CA the server presents, once its fingerprint matches.") }
    }

    /// Login URLs are https; plain http only to this machine (localorg --http).
    static func checkedLoginURL(_ text: String) throws -> String {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty else {
            // A host (and port) alone, as a trainer writes it on the board: say the URL it means.
            let example = !text.contains("://") && !text.isEmpty && !text.contains(" ") ? "https://\(text)" : "https://login.salesforce.com"
            throw ValidationError("--login-url \(text) is not a URL; use e.g. \(example)")
        }
        let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw ValidationError("--login-url must use https (plain http only for localhost), not \(text)")
        }
        return text
    }

    @Flag(help: "Sign in even when the user signed in now has changes not synced yet (they stay in that user's store).")
    var force = false

    func run() throws {
        try CommandFailure.reporting {
            let config = try ConnectedAppConfig.load(directory: ConnectedAppConfig.directory(explicit: configOptions.directory))
            let loginURL = self.loginURL ?? config.loginURL ?? OAuthClient.defaultLoginURL
            _ = try Self.checkedLoginURL(loginURL)
            let settings = UserSettings.load(path: UserSettings.path()).settings
            // No CA given: the system's, or the one the user trusts for this server (asked on first contact).
            let caFile =
                try cacert.map(CACertOption.readablePath)
                ?? (insecure
                    ? nil
                    : try FirstContactTrust(
                        servers: TrustedServers(directory: TrustedServers.defaultDirectory()),
                        configuration: settings.applied(to: TransportConfiguration()),
                        expectedFingerprint: trust.flatMap(ServerCertificate.normalizedFingerprint),
                        ask: Self.askToTrust, tell: { StandardStreams.writeError($0 + "\n") }
                    ).caFile(for: loginURL))
            // Read before signing in: a bad userstore.json is reported before anything is saved. A
            // directory with bootconfig.json alone has no soups of its own: the built-in ones.
            let soupsDirectory = configOptions.directory.flatMap { directory in
                ["userstore.json", "usersyncs.json"].contains { FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent($0)) }
                    ? directory : nil
            }
            let storeConfig = try SyncConfiguration.load(directory: soupsDirectory).store
            if insecure {
                StandardStreams.writeError("forceterm: WARNING: --insecure turns off certificate checks; anyone on the network can read and change this session. Use --cacert FILE instead.\n")
            }
            var password: Secret?
            if let username {
                guard let line = PasswordInput.readLine(prompt: "Password for \(username): "), !line.isEmpty else {
                    throw ConfigError("no password on standard input for \(username)")
                }
                password = Secret(line)
            }
            let transportConfiguration = settings.applied(to: TransportConfiguration(caFile: caFile, allowsInsecureTLS: insecure))
            let transport = CurlTransport(configuration: transportConfiguration)
            let oauth = OAuthClient(loginURL: loginURL, clientId: config.consumerKey, transport: transport)
            let store = CredentialStore(directory: CredentialStore.defaultDirectory())
            let username = self.username
            let trustedCAFile = caFile
            let typedPassword = password
            let force = force  // a value for the sendable closure below, not the command
            try AsyncCommand.run {
                let token: OAuthToken
                do throws(ForceAPIError) {
                    if let username, let typedPassword {
                        token = try await oauth.signIn(username: username, password: typedPassword)
                    } else {
                        let authorization = try await oauth.startDeviceFlow()
                        StandardStreams.write(
                            """
                            To sign in, open \(authorization.verificationURL)
                            and enter the code: \(authorization.userCode)
                            \(authorization.verificationURLComplete.map { "(or open \($0), the code filled in)\n" } ?? "")\
                            Waiting for approval (Ctrl-C cancels)...

                            """)
                        token = try await oauth.waitForApproval(authorization)
                    }
                } catch {
                    if error == .cancelled { throw ConfigError("sign-in cancelled; nothing was saved") }
                    if case .authentication("invalid_client_id", _) = error, let source = config.source {
                        throw ConfigError(
                            "the org does not know the consumer key \(config.consumerKey) (remoteAccessConsumerKey in \(source)); use the consumer key of a connected app of this org, or remove the file to use forceterm's own"
                        )
                    }
                    // A blocked username-password flow (the default for orgs made since Summer '23)
                    // answers exactly as a wrong password does: say both, and the way that works.
                    if username != nil, case .authentication("invalid_grant", "authentication failure") = error {
                        throw ConfigError(
                            "sign-in refused (invalid_grant: authentication failure): the username or password is wrong, the user is locked out, "
                                + "or the org does not allow the username-password flow for this app (orgs made since Summer '23 block it by default); "
                                + "check the password, or sign in through a browser with the device flow: forceterm login (without --username)")
                    }
                    throw error
                }
                let identity = try await oauth.identity(of: token)
                let credentials = OAuthCredentials(loginURL: oauth.loginURL, clientId: oauth.clientId, token: token, identity: identity, caFile: trustedCAFile)
                // An org that asks for a passcode nobody can give here: refused before anything is written.
                try StorePasscode.checkCanProtectAtSignIn(store: store.storePath(for: credentials), org: identity.mobilePolicy)
                // Another user's unsynced changes would wait unseen until they sign in again: say so.
                var stranded: String?
                if let previous = try? store.load(), OrgReset.isReset(from: previous, to: credentials) {
                    // The same user at the same address, another org: it was reset. Its store
                    // stays with the old org; what was not sent is set aside, never sent here.
                    var note =
                        "The org at \(credentials.loginURL) is a new org (\(credentials.organizationId); it was \(previous.organizationId)): it was refreshed or restored, so forceterm starts a fresh store for it."
                    let oldStore = store.storePath(for: previous)
                    do {
                        if let aside = try OrgReset.setAside(storePath: oldStore, previous: previous, directory: OrgReset.defaultDirectory()) {
                            note +=
                                " Your \(aside.count) change\(aside.count == 1 ? "" : "s") not sent to the old org \(aside.count == 1 ? "is" : "are") NOT sent to the new one: set aside in \(aside.path)."
                        }
                    } catch {
                        // Signing in goes on: the old store is never synced again, so what it holds stays there.
                        note += " Changes not sent to the old org could not be copied aside (\(error)); they stay in \(oldStore), which is never synced with the new org."
                    }
                    stranded = note
                } else if let previous = try? store.load(), previous.userId != credentials.userId || previous.organizationId != credentials.organizationId {
                    let path = store.storePath(for: previous)
                    let pending = try LocalChanges.count(storePath: path)
                    if pending.total > 0 {
                        guard force else {
                            throw ConfigError(
                                "\(previous.username) is signed in with \(pending.summary) in \(path), not synced yet; signing in as \(credentials.username) would leave them there until \(previous.username) signs in again. Run forceterm sync first, or forceterm login --force to switch anyway; nothing was saved"
                            )
                        }
                        stranded = "\(previous.username)'s \(pending.summary) stay unsynced in \(path) until they sign in again."
                    }
                }
                // The passcode first, so the tokens reach the disk sealed when the store has one.
                let userStore = store.storePath(for: credentials)
                let protected = try StorePasscode.protectAtSignIn(store: userStore, org: identity.mobilePolicy)
                try store.save(try StoreKeys.sealingTokens(credentials, store: userStore))
                StandardStreams.write("Signed in as \(identity.username) (org \(identity.organizationId)) at \(token.instanceURL).\n")
                if !protected.isEmpty { StandardStreams.write(protected + "\n") }
                if let stranded { StandardStreams.write(stranded + "\n") }
                Self.adoptSignedOutChanges(into: store.storePath(for: credentials), storeConfig: storeConfig)
            }
        }
    }
}

extension LoginCommand {
    /// The first-contact question, answered on the terminal (not standard input, which may carry
    /// the password): nil when no one is watching (standard error is not a terminal) or there is
    /// no terminal, so a script or test never waits for an answer.
    static func askToTrust(_ question: FirstContactQuestion) -> Bool? {
        guard isatty(STDERR_FILENO) == 1, let answer = TerminalQuestion.ask(question.explanation + "\nTrust it for \(question.server) and remember it (yes/no)? ") else { return nil }
        return answer.lowercased() == "yes" || answer.lowercased() == "y"
    }

    /// Moves what was created while nobody was signed in into the store of the user now signed in
    /// (`SignedOutChanges`), and says so. Signing in has succeeded by then: a failure is reported,
    /// and the records stay where they were.
    static func adoptSignedOutChanges(into userStore: String, storeConfig: StoreConfig) {
        let signedOut = StoreLocation.defaultPath(environment: ProcessInfo.processInfo.environment)
        do {
            let outcome = try SignedOutChanges.move(from: signedOut, to: userStore, storeConfig: storeConfig)
            if outcome.movedCount > 0 {
                let detail = outcome.moved.map { "\($0.soup): \($0.count)" }.joined(separator: ", ")
                StandardStreams.write(
                    "Moved \(outcome.movedCount) record\(outcome.movedCount == 1 ? "" : "s") created while nobody was signed in (\(detail)) from \(signedOut) into your store; forceterm sync sends \(outcome.movedCount == 1 ? "it" : "them").\n"
                )
            }
            if outcome.left > 0 {
                StandardStreams.write(
                    "\(outcome.left) other local change\(outcome.left == 1 ? "" : "s") in \(signedOut) stay there: \(outcome.left == 1 ? "it changes a record" : "they change records") of an org that store was synced with while nobody was signed in (forceterm status --store \(signedOut)).\n"
                )
            }
        } catch {
            StandardStreams.writeError("forceterm: could not move the records created while nobody was signed in from \(signedOut) into your store: \(error); they stay there\n")
        }
    }
}

/// Refuses while the user's store holds unsynced local changes, unless `--force`; even then the
/// store stays on disk, so the changes are kept for the next sign-in as the same user.
struct LogoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: revoke the session and remove the saved credentials.",
        discussion: """
            forceterm refuses to sign out while your store has local changes that were not synced \
            (it says how many and in which soups); sync first, or pass --force. The store file \
            itself is never deleted.
            """)

    @Flag(help: "Sign out even though local changes have not been synced (they stay in the store).") var force = false
    @OptionGroup var storeOptions: StoreOptions
    @ParentCommand var root: Forceterm

    func validate() throws {
        try root.refuseOptions(except: [.store], in: "logout")
    }

    func run() throws {
        try CommandFailure.reporting {
            let credentialStore = CredentialStore(directory: CredentialStore.defaultDirectory())
            guard let credentials = try credentialStore.load() else {
                StandardStreams.writeError("Not signed in; nothing to do.\n")
                return
            }
            let storePath = storeOptions.storePath ?? credentialStore.storePath(for: credentials)
            // A locked store (a forgotten passcode) cannot say what it holds, nor open the sealed
            // session to revoke it; --force signs out anyway.
            var pending = ForcetermServices.LocalChanges()
            var session: OAuthCredentials? = credentials
            do {
                pending = try LocalChanges.count(storePath: storePath)
                let key = try StoreKeys.sealingKey(forStore: credentialStore.storePath(for: credentials))
                session = try key.map { try SealedTokens.open(credentials, with: $0) } ?? credentials
            } catch  where force {
                // Locked, or tokens sealed with a key that is gone: sign out all the same.
                StandardStreams.writeError("forceterm: \(error) (signing out anyway: --force)\n")
                session = nil
            }
            if pending.total > 0 && !force {
                throw ConfigError(
                    "refusing to sign out: \(pending.summary) in \(storePath) are not synced yet; run forceterm sync first, or forceterm logout --force to sign out anyway (the changes stay in the store)"
                )
            }
            let transport = CurlTransport(configuration: TransportConfiguration(caFile: credentials.caFile))
            let oauth = OAuthClient(loginURL: credentials.loginURL, clientId: credentials.clientId, transport: transport)
            if let session {
                try AsyncCommand.run {
                    do throws(ForceAPIError) {
                        // Revoking the refresh token ends its access tokens too.
                        try await oauth.revoke(session.refreshToken ?? session.accessToken)
                    } catch {
                        StandardStreams.writeError("forceterm: warning: could not revoke the session at the server (\(error)); removing the local credentials anyway\n")
                    }
                }
            } else {
                StandardStreams.writeError(
                    "forceterm: warning: the session was not revoked at the server (its tokens are sealed with the locked store's key); it ends when it expires or an admin revokes it\n")
            }
            try credentialStore.remove()
            var message = "Signed out \(credentials.username)."
            if pending.total > 0 { message += " \(pending.summary) stay unsynced in \(storePath)." }
            StandardStreams.write(message + "\n")
        }
    }
}
