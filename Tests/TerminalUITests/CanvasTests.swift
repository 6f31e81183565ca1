import Testing

@testable import TerminalUI

@Suite("The cell grid keeps wide characters whole")
struct CanvasTests {
    @Test("A wide character that does not fit at the edge becomes a space; rows keep their width")
    func wideAtEdge() {
        var canvas = Canvas(size: Size(width: 5, height: 1))
        canvas.draw("ab山田", x: 0, y: 0)
        #expect(canvas.line(0) == "ab山 ")
        #expect(canvas.line(0).displayWidth == 5)
    }

    @Test("Overwriting either half of a wide character blanks the other half")
    func overwriteHalf() {
        var canvas = Canvas(size: Size(width: 6, height: 1))
        canvas.draw("山田太", x: 0, y: 0)
        canvas.draw("x", x: 1, y: 0)
        #expect(canvas.line(0) == " x田太")
        canvas.draw("y", x: 2, y: 0)
        #expect(canvas.line(0) == " xy 太")
        #expect(canvas.line(0).displayWidth == 6)
    }

    @Test("Emoji sequences, flags and combining accents take the columns DisplayWidth gives them")
    func clusters() {
        var canvas = Canvas(size: Size(width: 12, height: 1))
        let end = canvas.draw("👩‍💻🇪🇸e\u{301}x", x: 0, y: 0)
        #expect(end == 6)
        #expect(canvas.line(0).displayWidth == 12)
        #expect(canvas[4, 0].text == "e\u{301}")
    }

    @Test("Control characters are drawn as spaces and cannot move the cursor")
    func controls() {
        var canvas = Canvas(size: Size(width: 6, height: 1))
        canvas.draw("a\u{1B}[2Jb", x: 0, y: 0)
        #expect(canvas.line(0) == "a [2Jb")
    }

    @Test("Wrapping breaks at spaces, splits over-long words and never splits a cluster")
    func wrapping() {
        #expect("Speaks Spanish and English".wrapped(toWidth: 10) == ["Speaks", "Spanish", "and", "English"])
        #expect("営業部長営業部長".wrapped(toWidth: 5) == ["営業", "部長", "営業", "部長"])
        #expect("a\nb".wrapped(toWidth: 3) == ["a", "b"])
    }

    @Test("Form fields scroll sideways so the cursor stays visible")
    func formWindow() {
        let (shown, column) = FormWidget.window("山田太郎さん", cursor: 6, width: 5)
        #expect(shown.displayWidth <= 5)
        #expect(column <= 4)
        #expect(FormWidget.window("abc", cursor: 1, width: 10) == ("abc", 1))
    }
}

@Suite("Colour choice")
struct ThemeTests {
    @Test("NO_COLOR (non-empty) and --no-color turn colours off")
    func noColor() {
        #expect(Theme.colorsWanted(noColorFlag: false, environment: [:]))
        #expect(!Theme.colorsWanted(noColorFlag: true, environment: [:]))
        #expect(!Theme.colorsWanted(noColorFlag: false, environment: ["NO_COLOR": "1"]))
        #expect(Theme.colorsWanted(noColorFlag: false, environment: ["NO_COLOR": ""]))
    }

    @Test("Monochrome keeps every marker and the selection distinguishable without colour")
    func monochrome() {
        let theme = Theme(colors: false, ascii: false)
        for role in StyleRole.allCases {
            #expect(theme.style(role).foreground == .standard && theme.style(role).background == .standard)
        }
        let markers: [StyleRole] = [.markerCreated, .markerUpdated, .markerDeleted, .markerError, .markerConflict]
        #expect(markers.allSatisfy { theme.style($0) != .plain })
        #expect(theme.style(.selection) != theme.style(.normal))
    }
}

extension CanvasTests {
    @Test("In ASCII, letters lose their accents, fullwidth forms become ASCII, other scripts ?, and wide characters keep two columns")
    func transliteratesToASCII() {
        var canvas = Canvas(size: Size(width: 30, height: 1))
        canvas.draw("José Ångström 太郎 Łódź ｘ→", x: 0, y: 0)
        canvas.transliterateToASCII()
        let row = (0..<30).map { canvas[$0, 0].text }.joined()
        #expect(row.hasPrefix("Jose Angstrom ? ?  Lodz x >"))
        #expect(row.unicodeScalars.allSatisfy { $0.isASCII })
        #expect(row.count == 30, "every column still has one character")
    }
}

/// The subscription prompt wraps a long condition instead of scrolling it sideways.
@Suite("The subscription prompt's rows")
struct SubscriptionPromptRowsTests {
    @Test("Rows of at most the width, a wide character never split, the cursor on its row and column")
    func rows() {
        let plain = SubscriptionPromptView.rows("abcdefg", cursor: 7, width: 3)
        #expect(plain.rows == ["abc", "def", "g"] && plain.row == 2 && plain.column == 1)
        let full = SubscriptionPromptView.rows("abcdef", cursor: 6, width: 3)
        #expect(full.rows == ["abc", "def", ""] && full.row == 2 && full.column == 0, "the cursor after a full row starts the next")
        let inside = SubscriptionPromptView.rows("abcdef", cursor: 4, width: 3)
        #expect(inside.row == 1 && inside.column == 1)
        let wide = SubscriptionPromptView.rows("a東京", cursor: 2, width: 4)
        #expect(wide.rows == ["a東", "京"] && wide.row == 1 && wide.column == 0)
        #expect(SubscriptionPromptView.rows("", cursor: 0, width: 5).rows == [""])
        let words = SubscriptionPromptView.rows("Title LIKE '%a%' OR x", cursor: 13, width: 12)
        #expect(words.rows == ["Title LIKE ", "'%a%' OR x"] && words.row == 1 && words.column == 2, "cut at a space: \(words)")
        let long = SubscriptionPromptView.rows("ab abcdefghij", cursor: 0, width: 5)
        #expect(long.rows == ["ab ", "abcde", "fghij"] && long.row == 0 && long.column == 0)
    }
}
