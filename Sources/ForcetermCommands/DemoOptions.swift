import ArgumentParser
import ContactsApp
import ForceAPI
import ForcetermServices
import Foundation
import MobileSync
import SmartStore
import TerminalUI

/// The options of `forceterm --demo`.
struct DemoOptions: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "Start a local demo org (localorg) with 50 accounts and 500 contacts, sign in to it and open the TUI.",
            discussion: "Demo state lives in $XDG_DATA_HOME/forceterm/demo/, apart from your own store and session, and is kept for the next --demo."))
    var demo = false

    @Flag(help: "With --demo: delete the demo org, store and session first and start from fresh demo data.")
    var reset = false

    @Option(help: ArgumentHelp("With --demo: the port the demo org listens on (default: a free one).", valueName: "port"))
    var demoPort: Int?

    @Option(help: ArgumentHelp("With --demo: milliseconds the demo org adds to every data request, to show a slow network.", valueName: "ms"))
    var demoLatency: Int?

    func validate() throws {
        if !demo {
            if reset { throw ValidationError("--reset goes with --demo: forceterm --demo --reset") }
            if demoPort != nil { throw ValidationError("--demo-port goes with --demo.") }
            if demoLatency != nil { throw ValidationError("--demo-latency goes with --demo.") }
        }
        if let demoPort, !(1...65535).contains(demoPort) { throw ValidationError("--demo-port must be between 1 and 65535, not \(demoPort).") }
        if let demoLatency, demoLatency < 0 { throw ValidationError("--demo-latency cannot be negative.") }
    }

    var request: DemoRequest { DemoRequest(reset: reset, port: demoPort, latencyMilliseconds: demoLatency) }
}
