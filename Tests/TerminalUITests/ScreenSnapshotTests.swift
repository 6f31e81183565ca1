import ContactsApp
import ForceJSON
import SmartStore
import Testing
import TerminalUI

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
        let canvas = try fixture.press([.down, .down])
        try Snapshot.check(canvas, named: "contacts-120x40")
    }

    @Test("At 80x24 Enter shows the detail instead of the list, with the last sync error in full")
    func detailSmall() throws {
        let fixture = try ScreenFixture(size: Self.small)
        let canvas = try fixture.press([.down, .down, .down, .enter])
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
        let canvas = try fixture.press(text: "d")
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
        let canvas = try fixture.press([.character("2"), .enter, .down])
        try Snapshot.check(canvas, named: "account-detail-120x40")
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
}
