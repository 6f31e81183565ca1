import ForcetermCommands
import Foundation
import LocalOrgCommands
import SmartStoreToolCommands

// One executable for the three commands, told apart by the name it is started under, as busybox
// and the Swift driver are: the package installs it as forceterm with localorg and smartstore-tool
// linked to it, so the Swift runtime, Foundation and ICU's data are on the laptop once, not three times.
switch URL(fileURLWithPath: CommandLine.arguments.first ?? "forceterm").lastPathComponent {
case "localorg":
    await LocalOrgCommand.runAsRoot()
case "smartstore-tool":
    SmartStoreTool.main()
default:
    Forceterm.main()
}
