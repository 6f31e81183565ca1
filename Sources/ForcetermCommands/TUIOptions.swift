import ArgumentParser
import ContactsApp
import ForcetermServices
import Foundation
import MobileSync
import SmartStore
import TerminalUI

/// The options of the TUI itself (`forceterm` with no subcommand).
struct TUIOptions: ParsableArguments {
    @Flag(name: .customLong("no-color"), help: "No colours (also when NO_COLOR is set).")
    var noColor = false

    @Flag(help: "ASCII line drawing and markers, for terminals or fonts without Unicode box drawing.")
    var ascii = false

    @Flag(help: "Work without the network: s reports that it is offline and keeps changes queued.")
    var offline = false

    var preferences: TUIPreferences { TUIPreferences(noColor: noColor, ascii: ascii, offline: offline) }
}
