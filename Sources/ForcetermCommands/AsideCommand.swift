import ArgumentParser
import ForceJSON
import ForcetermServices
import Foundation

/// `forceterm aside`: the changes set aside when an org was reset, which are sealed with the old
/// store's key and so cannot be read with a text editor.
struct AsideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aside",
        abstract: "Show the changes set aside when the org you signed in to was reset.",
        discussion: """
            When the org at your login address turns out to be a new one (a sandbox refresh, a \
            localorg snapshot restored), the changes your store had not sent are written to a file \
            in set-aside/ instead of being sent to the new org. The file is sealed with that store's \
            key, as the store is: without FILE this lists them; with FILE it prints the changes as \
            JSON (each record, the fields changed here and the old org's values before), asking for \
            the passcode if the store is locked.
            """)

    @Argument(help: ArgumentHelp("A file of set-aside/ to show.", valueName: "file"), completion: .file(extensions: ["json"]))
    var file: String?
    @ParentCommand var root: Forceterm

    func validate() throws { try root.refuseOptions(except: [], in: "aside") }

    func run() throws {
        try CommandFailure.reporting {
            if let file {
                StandardStreams.write(JSONWriter.string(try SetAsideChanges.open(file), pretty: true) + "\n")
                return
            }
            let directory = OrgReset.defaultDirectory()
            let files = try SetAsideChanges.list(in: directory)
            guard !files.isEmpty else {
                StandardStreams.write("Nothing was set aside (\(directory) holds no changes).\n")
                return
            }
            for (path, summary) in files {
                let count = summary["count"]?.int64Value.map(Int.init) ?? summary["changes"]?.arrayValue?.count ?? 0
                let org = summary["organizationId"]?.stringValue ?? "?"
                let when = summary["setAsideAt"]?.stringValue ?? "?"
                StandardStreams.write("\(path)\t\(count) change\(count == 1 ? "" : "s") of the org \(org), set aside \(when)\n")
            }
            StandardStreams.write("forceterm aside FILE prints one.\n")
        }
    }
}
