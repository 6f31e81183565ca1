import ContactsApp
import ForceJSON
import Foundation
import SmartStore
import TerminalUI
import Testing

@Suite("Screens on the in-memory terminal at 80x24 and 120x40")
struct ScreenSnapshotTests {
    static let small = Size(width: 80, height: 24)
    static let large = Size(width: 120, height: 40)

    @Test("Contacts list at 80x24: markers, accents, CJK, emoji, truncation")
    func contactsSmall() throws {
        let fixture = try ScreenFixture(size: Self.small)
        let canvas = try fixture.press([])
        try Snapshot.check(canvas, named: "contacts-80x24")
        #expect(!canvas.text.contains("│"), "at 80 columns the detail is not beside the list")
    }

    @Test("Contacts list and detail side by side at 120x40")
    func contactsLarge() throws {
        let fixture = try ScreenFixture(size: Self.large)
        let canvas = try fixture.press([.down, .down, .down, .down])
        try Snapshot.check(canvas, named: "contacts-120x40")
    }

    @Test("At 80x24 Enter shows the detail instead of the list, with the last sync error in full")
    func detailSmall() throws {
        let fixture = try ScreenFixture(size: Self.small)
        let canvas = try fixture.press([.enter])
        try Snapshot.check(canvas, named: "detail-error-80x24")
        #expect(canvas.text.contains("approval workflow"))
    }

    @Test("The new-contact form after a save with no last name")
    func formWithProblem() throws {
        let fixture = try ScreenFixture(size: Self.small)
        _ = try fixture.press(text: "n")
        let canvas = try fixture.press([.character("Z"), .character("ë"), .control("s")])
        try Snapshot.check(canvas, named: "form-invalid-80x24")
        #expect(canvas.cursor != nil, "the cursor sits in the focused field")
    }

    @Test("Delete asks for confirmation in a dialog")
    func deleteDialog() throws {
        let fixture = try ScreenFixture(size: Self.small)
        let canvas = try fixture.press([.down, .character("d")])
        try Snapshot.check(canvas, named: "delete-80x24")
    }

    @Test("Search as you type narrows the list, accent-insensitively")
    func search() throws {
        let fixture = try ScreenFixture(size: Self.small)
        let canvas = try fixture.press(text: "/nunez")
        try Snapshot.check(canvas, named: "search-80x24")
        #expect(fixture.app.model.list.totalCount == 1)
    }

    @Test("An account's detail lists its contacts at 120x40")
    func accountDetail() throws {
        let fixture = try ScreenFixture(size: Self.large)
        // Side by side, before Enter: the selected account's contact count follows the selection.
        #expect(try fixture.press([.character("2")]).text.contains("Contacts (3)"), "Café Olé has José, Priya and Ömer")
        #expect(try fixture.press([.down]).text.contains("Contacts (2)"), "Müller & Söhne has Zoë and Maximiliano")
        _ = try fixture.press([.up])
        let canvas = try fixture.press([.character("2"), .enter, .down])
        try Snapshot.check(canvas, named: "account-detail-120x40")
    }

    @Test("Help that does not fit (demo notes above the keys) scrolls with j/k down to the last key")
    func helpScrolls() throws {
        let fixture = try ScreenFixture(size: Self.large)
        fixture.app.helpNotes = HelpOverlay.Notes(title: "Demo org", lines: (1...10).map { "note line \($0)" })
        let first = try fixture.press(text: "?").text
        #expect(first.contains("note line 10") && first.contains("j/↓ more keys"), "\(first)")
        // Sections flow from column to column, so every browsing key shows at once...
        #expect(first.contains("quit (asks if a sync is running)"), "\(first)")
        #expect(!first.contains("decide later"))
        // ...and the last ones (the conflict and duplicate dialogs') come into view with j.
        var text = first
        for _ in 0..<120 where !text.contains("k/↑ back to the top") {
            text = try fixture.press([.character("j")]).text
        }
        #expect(text.contains("decide later") && text.contains("k/↑ back to the top"), "the last keys are reachable: \(text)")
        let back = try fixture.press(Array(repeating: .pageUp, count: 10)).text
        #expect(back == first, "PgUp returns to the top")
        #expect(try fixture.press([.escape]).text.contains("Contacts (7)") && fixture.app.model.mode == .browsing)
    }

    @Test("Help scrolls to its last key and no further: j past the end does nothing, one k comes back, G and g jump")
    func helpStopsAtItsEnd() throws {
        let fixture = try ScreenFixture(size: Self.small)
        let first = try fixture.press(text: "?").text
        #expect(first.contains("j/↓ more keys"), "\(first)")
        let end = try fixture.press([.character("G")]).text
        #expect(end.contains("decide later") && !end.contains("j/↓ more keys"), "G shows the last keys: \(end)")
        let limit = fixture.app.model.helpScroll
        #expect(limit > 0 && limit == fixture.app.model.helpScrollLimit)
        #expect(try fixture.press(Array(repeating: .character("j"), count: 30)).text == end, "nothing past the end")
        #expect(fixture.app.model.helpScroll == limit)
        _ = try fixture.press([.character("k")])
        #expect(fixture.app.model.helpScroll == limit - 1, "one k is one row back")
        #expect(try fixture.press([.character("g")]).text == first, "g: the top")
    }

    @Test("At 80x24, notes too tall to stay put scroll away with the keys, so the keys get the whole box")
    func helpNotesScrollAtSmallSizes() throws {
        let fixture = try ScreenFixture(size: Self.small)
        fixture.app.helpNotes = HelpOverlay.Notes(title: "Demo org", lines: (1...12).map { "note line \($0)" })
        let first = try fixture.press(text: "?").text
        #expect(first.contains("note line 1") && first.contains("Lists and detail"), "\(first)")
        var text = first
        for _ in 0..<14 { text = try fixture.press([.character("j")]).text }
        #expect(!text.contains("note line"), "the notes scrolled away: \(text)")
        #expect(text.contains("Contacts tab") && text.contains("delete (asks y/n)"), "keys fill the box once the notes are gone: \(text)")
    }

    @Test("The help overlay is generated from the keymap, at both sizes")
    func help() throws {
        let large = try ScreenFixture(size: Self.large)
        try Snapshot.check(try large.press(text: "?"), named: "help-120x40")
        let small = try ScreenFixture(size: Self.small)
        let canvas = try small.press(text: "?")
        for row in canvas.text.split(separator: "\n") { #expect(row.displayWidth == 80) }
        #expect(canvas.text.contains("search as you type"))
    }

    @Test("--ascii draws with ASCII only and still marks rows; monochrome keeps the selection reversed")
    func asciiMonochrome() throws {
        let fixture = try ScreenFixture(size: Self.large, colors: false, ascii: true)
        let canvas = try fixture.press([])
        try Snapshot.check(canvas, named: "ascii-mono-120x40")
        #expect(!canvas.text.contains("│") && !canvas.text.contains("≠") && !canvas.text.contains("…"))
        #expect(!canvas.attributeMap.contains("C"), "no colour at all")
        #expect(canvas.attributeMap.split(separator: "\n")[2].contains("R"), "the selected row is reversed")
    }

    @Test("--ascii: no screen shows a non-ASCII symbol (status line, form, pickers, help, syncs, inspector); letters of any script stay")
    func asciiEverywhere() throws {
        for size in [Self.small, Self.large] {
            let fixture = try ScreenFixture(size: size, colors: false, ascii: true)
            let screens = [
                try fixture.press([]), try fixture.press(text: "?"), try fixture.press(text: "?"), try fixture.press(text: "n"),
                try fixture.press([.escape]), try fixture.press(text: "3"), try fixture.press(text: "4"),
            ]
            for canvas in screens {
                // Data stays as it is: letters of any script, and the fixture's emoji contact.
                let symbols = canvas.text.unicodeScalars.filter {
                    !$0.isASCII && !$0.properties.isAlphabetic && !$0.properties.isDiacritic && !$0.properties.isEmojiPresentation && $0.value != 0x200D
                }
                #expect(symbols.isEmpty, "\(String(String.UnicodeScalarView(symbols))) in:\n\(canvas.text)")
            }
        }
    }

    @Test("Resizing re-lays out at once: side by side, then the list alone, then side by side again")
    func resize() throws {
        let fixture = try ScreenFixture(size: Self.large)
        #expect(try fixture.press([]).text.contains("│"))
        let small = try fixture.resize(to: Self.small)
        #expect(small.size == Self.small)
        #expect(!small.text.contains("│"))
        #expect(try fixture.resize(to: Size(width: 100, height: 30)).text.contains("│"))
    }

    @Test("Keys create a contact that lands in the store with the created flags")
    func createThroughKeys() throws {
        let fixture = try ScreenFixture(size: Self.small)
        _ = try fixture.press(text: "n")
        _ = try fixture.press(text: "Ngozi")
        _ = try fixture.press([.tab])
        _ = try fixture.press(text: "Adébáyọ̀")
        let canvas = try fixture.press([.function(2)])
        #expect(canvas.text.contains("Saved locally"))
        let saved = try fixture.store.query(.exact("contacts", path: "LastName", matchKey: "Adébáyọ̀"))
        let document = try #require(saved.first?.objectValue)
        #expect(document["__locally_created__"] == true)
        #expect(document["FirstName"] == "Ngozi")
    }

    @Test("A conflicted contact's detail at 80x24: both versions in two columns, the differing ones highlighted")
    func conflictDetailSmall() throws {
        let fixture = try ScreenFixture(size: Self.small)
        let canvas = try fixture.press([.down, .down, .down, .down, .enter])
        try Snapshot.check(canvas, named: "conflict-detail-80x24")
        #expect(canvas.text.contains("Senior Buyer"))
        #expect(canvas.text.contains("1 Mine") && canvas.text.contains("2 Server's"))
        let rows = canvas.text.split(separator: "\n", omittingEmptySubsequences: false)
        let titleRow = try #require(rows.firstIndex { $0.contains("Senior Buyer") })
        let attributes = canvas.attributeMap.split(separator: "\n", omittingEmptySubsequences: false)
        let column = try #require(rows[titleRow].range(of: "Senior Buyer")).lowerBound
        let offset = rows[titleRow].distance(from: rows[titleRow].startIndex, to: column)
        let code = attributes[titleRow][attributes[titleRow].index(attributes[titleRow].startIndex, offsetBy: offset)]
        #expect(code == "B", "a differing value is highlighted")
    }

    @Test("c opens the conflict dialog, field by field when both sides changed several, at both sizes")
    func conflictDialog() throws {
        let small = try ScreenFixture(size: Self.small)
        try Snapshot.check(try small.press([.down, .down, .down, .down, .character("c")]), named: "conflict-dialog-80x24")
        let large = try ScreenFixture(size: Self.large)
        let canvas = try large.press([.down, .down, .down, .down, .character("c")])
        try Snapshot.check(canvas, named: "conflict-dialog-120x40")
        #expect(canvas.text.contains("▸ Title") && canvas.text.contains("M / T = for all 2"), "\(canvas.text)")
        let email = try large.press([.down])
        #expect(email.text.contains("▸ Email") && !email.text.contains("▸ Title"))
        let kept = try large.press([.character("m")])
        #expect(kept.text.contains("Kept yours for Email; 1 left to decide"), "\(kept.text)")
        #expect(large.app.model.mode == .resolvingConflict, "the dialog stays for the field left")
        let resolved = try large.press([.character("t")])
        #expect(resolved.text.contains("Took the server's"), "\(resolved.text)")
        #expect(large.app.model.mode == .browsing)
        #expect(large.app.model.selected?.string("Title") == "Senior Buyer")
        #expect(large.app.model.selected?.string("Email") == "003g@example.com", "my Email stayed")
    }

    @Test("Enter on the form's Account opens the picker over the form, searching as one types")
    func accountPicker() throws {
        let large = try ScreenFixture(size: Self.large)
        var canvas = try large.press(text: "e")
        while large.app.model.form?.focused?.name != "AccountId" { canvas = try large.press([.tab]) }
        canvas = try large.press([.enter])
        canvas = try large.press(text: "caf")
        try Snapshot.check(canvas, named: "account-picker-120x40")
        #expect(canvas.text.contains("Pick the account") && canvas.text.contains("Edit "), "the form stays behind: \(canvas.text)")
    }

    @Test("A narrow detail pane stacks the two versions instead of breaking the layout")
    func conflictStacked() throws {
        let fixture = try ScreenFixture(size: Size(width: 44, height: 24))
        let canvas = try fixture.press([.down, .down, .down, .down, .enter])
        try Snapshot.check(canvas, named: "conflict-detail-44x24")
        #expect(canvas.text.contains("2 Senior Buyer"))
    }

    @Test("The Syncs tab: each named sync with status, totals, last run; the changes waiting to send; the selected sync's high-water mark and error")
    func syncsTab() throws {
        for size in [Self.small, Self.large] {
            let fixture = try ScreenFixture(size: size, clock: AppClock { Date(timeIntervalSince1970: Double(ScreenFixture.changesSavedAt) / 1000 + 300) })
            try fixture.addSyncStates()
            let canvas = try fixture.press([.character("3"), .down])
            #expect(canvas.text.contains("Waiting to send (5)"), "\(canvas.text)")
            try Snapshot.check(canvas, named: "syncs-\(size.width)x\(size.height)")
            #expect(canvas.text.contains("syncDownContacts"))
            #expect(canvas.text.contains("connection refused"))
            if size == Self.large { #expect(canvas.text.contains("last sync 2025-03-04 10:00:05")) }
        }
    }

    @Test("The Inspector tab: a Smart SQL query's first page, and a bad query's error")
    func inspectorTab() throws {
        for size in [Self.small, Self.large] {
            let fixture = try ScreenFixture(size: size)
            _ = try fixture.press([.character("4"), .enter])
            _ = try fixture.press(text: "SELECT {contacts:LastName}, {contacts:Title} FROM {contacts} ORDER BY {contacts:_soupEntryId}")
            let canvas = try fixture.press([.enter])
            try Snapshot.check(canvas, named: "inspector-\(size.width)x\(size.height)")
            #expect(canvas.text.contains("山田"))
        }
        let fixture = try ScreenFixture(size: Self.small)
        _ = try fixture.press([.character("4"), .enter])
        _ = try fixture.press(text: "SELECT nonsense FROM {leads}")
        let canvas = try fixture.press([.enter])
        try Snapshot.check(canvas, named: "inspector-error-80x24")
        #expect(canvas.text.contains("leads"))
        let indices = try fixture.press([.character("i")])
        #expect(indices.text.contains("soupName") && indices.text.contains("accounts"), "\(indices.text)")
    }
}
