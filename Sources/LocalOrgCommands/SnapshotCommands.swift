import ArgumentParser
import Foundation
import LocalOrg

/// `localorg snapshot save|restore|list`: a class's starting state, kept and brought back.
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Keep the org's state under a name and bring it back (a class's starting point).",
        discussion: """
            save copies the org as it is now into snapshots/NAME.sqlite in the data directory; \
            restore brings it back in one step, also while localorg serve runs (its clients see the \
            org before or after, never half of it). A restored org is a new org, as a refreshed \
            sandbox is: it gets a new organization id and every session ends, so each forceterm \
            signs in again, sees the org changed, and starts a fresh store instead of keeping the \
            last class's values (unsent changes are set aside in a file, never sent to the new org).

            Example, before a class:  localorg seed --contacts 2000 && localorg snapshot save class-start
            Between classes:          localorg snapshot restore class-start
            """,
        subcommands: [SaveSnapshot.self, RestoreSnapshot.self, ListSnapshots.self])
}

struct SaveSnapshot: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "save", abstract: "Keep the org as it is now under NAME (replacing a snapshot of that name).")

    @OptionGroup var data: DataOption
    @Argument(help: "Letters, digits, '.', '_' or '-' (e.g. class-start).") var name: String

    func validate() throws { _ = try OrgSnapshots.checkedName(name) }

    func run() throws {
        let directory = data.orgDirectory
        guard FileManager.default.fileExists(atPath: directory.databasePath) else {
            throw OrgRefusal("there is no org in \(directory.path) yet; create one with localorg seed first")
        }
        let store = try data.openStore()
        let saved = try OrgSnapshots(orgDirectory: directory).save(name, from: store)
        let counts = try store.counts().filter { $0.object == "Account" || $0.object == "Contact" }
            .map { "\($0.live) \($0.object.lowercased())s" }.joined(separator: ", ")
        print("Saved snapshot \(saved.name) (\(counts); \(saved.bytes / 1024) KB): \(saved.path)")
    }
}

struct RestoreSnapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring the org back to snapshot NAME, as a new org: new organization id, every session ended.")

    @OptionGroup var data: DataOption
    @Argument(help: "A name given to localorg snapshot save.") var name: String

    func validate() throws { _ = try OrgSnapshots.checkedName(name) }

    func run() throws {
        let directory = data.orgDirectory
        let store = try data.openStore()
        let started = Date()
        let restored = try OrgSnapshots(orgDirectory: directory).restore(name, into: store)
        let counts = ["Account", "Contact"].compactMap { object in restored.recordCounts[object].map { "\($0) \(object.lowercased())s" } }
        print(
            """
            Restored \(name) in \(String(format: "%.2f", Date().timeIntervalSince(started))) s: \(counts.joined(separator: ", ")).
            New organization id \(restored.organizationId) (was \(restored.previousOrganizationId)); every session has ended:
            trainees sign in again (forceterm login), and forceterm starts a fresh store for the new org.
            """)
    }
}

struct ListSnapshots: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the saved snapshots.")

    @OptionGroup var data: DataOption

    func run() throws {
        let snapshots = OrgSnapshots(orgDirectory: data.orgDirectory).list()
        if snapshots.isEmpty {
            print("No snapshots in \(data.orgDirectory.path)/snapshots; save one with localorg snapshot save NAME.")
            return
        }
        let formatter = ISO8601DateFormatter()
        for snapshot in snapshots {
            print("\(snapshot.name.padding(toLength: max(16, snapshot.name.count), withPad: " ", startingAt: 0))  \(formatter.string(from: snapshot.savedAt))  \(snapshot.bytes / 1024) KB")
        }
    }
}
