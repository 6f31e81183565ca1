import ContactsApp
import ForceJSON
import SmartStore
import TerminalUI
import Testing

/// A detail longer than its pane (a 60x15 terminal over SSH, an account with many contacts) says
/// how much is hidden and scrolls; a toast never covers one of its lines.
@Suite("The detail pane scrolls when it does not fit")
struct DetailScrollTests {
    static let short = Size(width: 60, height: 15)

    /// The detail's rows between the title and the status line, as text.
    static func detailRows(_ canvas: Canvas) -> [String] {
        (2..<(canvas.size.height - 1)).map { canvas.line($0).trimmingCharacters(in: .whitespaces) }
    }

    @Test("At 60x15 the last row says how many lines are hidden; PgDn shows them, PgUp goes back, nothing is skipped")
    func pagesThroughAContact() throws {
        let tall = try ScreenFixture(size: Size(width: 60, height: 60))
        let everything = Self.detailRows(try tall.press([.enter])).filter { !$0.isEmpty }
        #expect(everything.contains { $0.hasPrefix("Local state") })

        let fixture = try ScreenFixture(size: Self.short)
        var canvas = try fixture.press([.enter])
        var rows = Self.detailRows(canvas)
        let hint = try #require(rows.last)
        #expect(hint.hasPrefix("↓ ") && hint.hasSuffix("more lines: PgDn"), "\(canvas.text)")
        #expect(!canvas.text.contains("Local state"))
        var seen = rows.dropLast().filter { !$0.isEmpty }
        while canvas.text.contains("more lines: PgDn") || canvas.text.contains("more line: PgDn") {
            canvas = try fixture.press([.pageDown])
            rows = Self.detailRows(canvas)
            #expect(canvas.line(2).trimmingCharacters(in: .whitespaces).hasPrefix("↑ "), "scrolled: the row under the title says so")
            for row in rows where !row.isEmpty && !row.hasPrefix("↓ ") && !row.hasPrefix("↑ ") && !seen.contains(row) { seen.append(row) }
        }
        #expect(canvas.text.contains("Local state"))
        #expect(seen == everything, "every line of the tall pane, in order, once the short one is paged through")
        canvas = try fixture.press([.pageUp, .pageUp, .pageUp])
        #expect(canvas.text.contains("First name"), "back at the top: \(canvas.text)")
        #expect(!canvas.text.contains("↑ "))
        #expect(fixture.app.model.list.selectedIndex == 0, "PgDn and PgUp scrolled the detail, not the list")
    }

    @Test("Another record's detail starts at the top")
    func anotherRecordStartsAtTheTop() throws {
        let fixture = try ScreenFixture(size: Self.short)
        _ = try fixture.press([.enter, .pageDown])
        #expect(fixture.app.model.detailScroll > 0)
        let canvas = try fixture.press([.down])
        #expect(fixture.app.model.detailScroll == 0)
        #expect(canvas.text.contains("First name"), "\(canvas.text)")
    }

    @Test("A toast takes the row above the status line; the detail ends above it instead of under it")
    func toastDoesNotCoverTheDetail() throws {
        let fixture = try ScreenFixture(size: Self.short)
        let before = Self.detailRows(try fixture.press([.enter]))
        // u on a record that is not deleted answers with a toast.
        let canvas = try fixture.press([.character("u")])
        let rows = Self.detailRows(canvas)
        #expect(rows.last == "Only a deleted contact can be undeleted", "\(canvas.text)")
        #expect(try #require(rows.dropLast().last).hasPrefix("↓ "), "the hidden lines are counted above the toast: \(canvas.text)")
        #expect(Array(rows.dropLast(2)) == Array(before.dropLast(2)), "every line still shown is whole")
    }

    @Test("A toast waits under the help, which reaches its row, and clears the row it takes over the list")
    func toastUnderHelpAndOverTheList() throws {
        let fixture = try ScreenFixture(size: Size(width: 80, height: 24))
        let toast = "Only a deleted contact can be undeleted"
        let listed = try fixture.press([.character("u")])
        let row = listed.line(22)
        #expect(row.trimmingCharacters(in: .whitespaces) == toast, "nothing of the list beside it: \(row)")
        let help = try fixture.press([.character("?")])
        #expect(!help.text.contains(toast), "\(help.text)")
    }

    @Test("In an account's detail, the contact j moves to is scrolled into view")
    func accountContactsFollowTheSelection() throws {
        let fixture = try ScreenFixture(size: Size(width: 80, height: 24))
        var flags = ScreenFixture.clean
        flags["attributes"] = ["type": "Contact"]
        for number in 1...20 {
            var contact = flags
            contact["Id"] = .string("003Z\(number)")
            contact["LastName"] = .string("Zamora \(number)")
            contact["AccountId"] = "001A"
            _ = try fixture.store.create(contact, in: "contacts")
        }
        try fixture.app.refreshModel()
        var canvas = try fixture.press([.character("2"), .enter])
        #expect(canvas.text.contains("more lines: PgDn"), "\(canvas.text)")
        for _ in 0..<22 {
            canvas = try fixture.press([.down])
            let index = fixture.app.model.accountContactIndex
            let name = fixture.app.model.accountContacts[index].string("LastName")
            #expect(canvas.text.contains(name), "the selected contact \(name) is on screen")
        }
        canvas = try fixture.press([.pageUp, .pageUp, .pageUp])
        #expect(canvas.text.contains("Industry"), "PgUp goes back up to the account's fields: \(canvas.text)")
    }

    @Test("Side by side, the detail names Enter before the page keys: they page the list until it has the keys")
    func sideBySideNamesEnter() throws {
        let fixture = try ScreenFixture(size: Size(width: 120, height: 14))
        var canvas = try fixture.press([])
        #expect(canvas.text.contains("more lines: Enter, then PgDn"), "\(canvas.text)")
        canvas = try fixture.press([.enter, .pageDown])
        #expect(canvas.text.contains("more lines: PgUp"), "\(canvas.text)")
    }

    @Test("DetailViewport: the window, the row that counts what is below, and revealing a row")
    func viewportArithmetic() {
        let viewport = DetailViewport(contentRows: 20, windowRows: 8)
        #expect(viewport.scrollLimit == 12)
        #expect(viewport.shownRows(from: 0) == 0..<7, "the last row says what is below")
        #expect(viewport.rowsBelow(from: 0) == 13)
        #expect(viewport.shownRows(from: 12) == 12..<20, "at the end every row shows content")
        #expect(viewport.rowsBelow(from: 12) == 0)
        #expect(viewport.clamped(99) == 12 && viewport.clamped(-3) == 0)
        #expect(viewport.revealing(7, from: 0) == 1)
        #expect(viewport.revealing(19, from: 0) == 12)
        #expect(viewport.revealing(2, from: 10) == 2)
        #expect(viewport.revealing(11, from: 5) == 5, "already shown: stays")
        let fits = DetailViewport(contentRows: 5, windowRows: 8)
        #expect(fits.scrollLimit == 0 && fits.shownRows(from: 3) == 0..<5 && fits.rowsBelow(from: 0) == 0)
    }
}
