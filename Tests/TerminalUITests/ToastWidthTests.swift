import ContactsApp
import Foundation
import TerminalUI
import Testing

/// At 80 columns a toast has 76: every message the app composes from fixed words fits in one line
/// with realistic values, and one carrying outside words (an error, a long name) wraps to a second
/// line instead of losing its end.
@Suite("Toasts fit at 80 columns")
struct ToastWidthTests {
    let messages = Messages(keymap: AppKeymap.table)
    static let toastWidth = 80 - 4

    @Test("Every fixed message, with realistic values, fits one line of a toast at 80 columns")
    func fixedMessagesFitOneLine() {
        let texts: [String] = [
            messages.savedLocally, messages.nothingChanged, messages.savedOutsideSearch("wolf"),
            messages.savedOutsideSearch("a search someone typed at length"), messages.notSaved(problems: 3),
            messages.undeleteBeforeEditing(.account), messages.readOnlyField("Mailing Zip/Postal Code"),
            messages.noValues("Lead Source"), Messages.notSyncedUp(.contact), Messages.notSyncedUp(.account), Messages.readOnlyStore,
            messages.deleted(contacts: 12), messages.alreadyDeleted(.account), messages.onlyDeletedUndelete(.account),
            messages.undeleted(contacts: 12), messages.noChangesToRevert(.account), messages.reverted, messages.removedNeverSynced,
            messages.sorted(by: "last modified"), messages.emptyFilter("contacts with sync errors"), messages.contactWithoutAccount,
            messages.accountNotInStore, messages.nothingToCopy(name: "Zoë Ñúñez-Castellanos de la Vega", kind: .contact),
            messages.noConflict(.account), messages.resolvedSome(.takeServer, fields: "Title", left: 3),
            messages.resolved(.keepMine, fields: "Mobile Phone"), messages.resolved(.takeServer, fields: "Mobile Phone"),
            messages.resolved(.keepMine, fields: nil), messages.resolved(.takeServer, fields: nil),
            messages.tookServersKeepingOthers("Title and Mobile Phone"), messages.syncAlreadyRunning,
            messages.offlineSkipped(queued: 1234), messages.notSignedIn(queued: 1234), messages.syncOffline(queued: 1234),
            messages.syncFinished(SyncSummary(recordsWithErrors: 0, conflicts: 0, sent: 1234, receivedChanges: 12345)).message,
            messages.syncFinished(SyncSummary(recordsWithErrors: 0, conflicts: 0, sent: 1234, receivedChanges: 12345, removedOnServer: 1234)).message,
            messages.syncFinished(
                SyncSummary(
                    recordsWithErrors: 123, conflicts: 45, sent: 1234, receivedChanges: 12345,
                    removedOnServer: 12)
            ).message,
            messages.syncFinished(SyncSummary(recordsWithErrors: 123, conflicts: 45, sent: 1234, receivedChanges: 12345)).message,
            messages.syncFinished(
                SyncSummary(
                    recordsWithErrors: 12, conflicts: 3, failedSyncs: ["syncDownOpportunities"], sent: 1234,
                    receivedChanges: 12345)
            ).message,
            messages.syncFinished(
                SyncSummary(
                    recordsWithErrors: 12, conflicts: 3, failedSyncs: ["syncDownA", "syncDownB"], sent: 1234,
                    receivedChanges: 12345)
            ).message,
        ]
        let tooWide = texts.filter { $0.displayWidth > Self.toastWidth }
        #expect(tooWide.isEmpty, "wider than \(Self.toastWidth) columns:\n\(tooWide.joined(separator: "\n"))")
    }

    @Test("A failed sync says first that local changes are kept, and its reason wraps to a second line")
    func failedSyncWraps() {
        let reason =
            "syncUpContacts stopped: the server accepted the connection but never answered (limit 2 s). "
            + "Local changes are kept in the store; run forceterm sync again."
        let message = messages.syncFailed(reason)
        #expect(message.hasPrefix("Sync failed, local changes kept: syncUpContacts stopped"))
        #expect(!message.contains("Local changes are kept in the store"))

        var canvas = Canvas(size: Size(width: 80, height: 24))
        ToastWidget.draw(in: &canvas, y: 22, width: 80, message: message, isError: true, theme: Theme(colors: false, ascii: false))
        let rows = [canvas.line(21), canvas.line(22)].map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(rows[0].hasPrefix("Sync failed, local changes kept:"), "\(rows)")
        #expect(rows[1].hasSuffix("never answered (limit 2 s)"), "\(rows)")
        #expect(canvas.line(20).trimmingCharacters(in: .whitespaces).isEmpty, "two rows at most")

        // Over a list: the toast is one block, nothing of the rows under it shows beside it.
        var list = Canvas(size: Size(width: 80, height: 24))
        for row in 20...22 { list.draw("Bulk\(row) CutTest00\(row)        Tester number \(row)".padded(toWidth: 80), x: 0, y: row, style: .plain) }
        ToastWidget.draw(in: &list, y: 22, width: 80, message: message, isError: true, theme: Theme(colors: false, ascii: false))
        #expect(list.line(21).hasPrefix(" Sync failed, local changes kept:"), "the wide toast takes the whole row: \(list.line(21))")
        #expect(!list.line(22).contains("Bulk22") && list.line(22).hasPrefix(" "), "the second line is as wide: \(list.line(22))")
        #expect(list.line(20).hasPrefix("Bulk20"), "the row above the toast is left alone")
        var short = Canvas(size: Size(width: 80, height: 24))
        short.draw(String(repeating: "x", count: 80), x: 0, y: 22, style: .plain)
        ToastWidget.draw(in: &short, y: 22, width: 80, message: "Saved locally", isError: false, theme: Theme(colors: false, ascii: false))
        #expect(short.line(22) == String(repeating: " ", count: 64) + " Saved locally  ", "a short toast at the right of a cleared row")
    }

    @Test("Lines break between words; a third line's worth is cut with an ellipsis; a short toast stays on one row")
    func wrapping() {
        #expect(ToastWidget.lines(of: "Saved locally; s syncs it", width: 76, ellipsis: .unicode) == ["Saved locally; s syncs it"])
        let words = Array(repeating: "word", count: 40).joined(separator: " ")
        let lines = ToastWidget.lines(of: words, width: 20, ellipsis: .unicode)
        #expect(lines.count == 2)
        #expect(lines[0] == "word word word word")
        #expect(lines[1].displayWidth == 20 && lines[1].hasSuffix("…"))
        let unbroken = String(repeating: "x", count: 30)
        #expect(ToastWidget.lines(of: unbroken, width: 20, ellipsis: .unicode) == [String(repeating: "x", count: 20), String(repeating: "x", count: 10)])
    }
}
