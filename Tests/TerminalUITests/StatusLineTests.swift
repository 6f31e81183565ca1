import ContactsApp
import TerminalUI
import Testing

@Suite("The status line shortens its facts to fit instead of cutting them off")
struct StatusLineTests {
    let facts = [
        StatusFact("not signed in — forceterm login", ["not signed in"]),
        StatusFact("4 local changes", ["4 pending"]),
        StatusFact("last sync 2025-03-04 10:00:05", ["synced 03-04 10:00", "synced 03-04"]),
        StatusFact("API 12/15000", [""]),
    ]

    @Test func everythingInFullWhenItFits() {
        #expect(
            StatusLine.fit(facts.map(\.wordings), width: 200)
                == "not signed in — forceterm login · 4 local changes · last sync 2025-03-04 10:00:05 · API 12/15000")
    }

    @Test func shrinksFromTheRightOneRoundAtATime() {
        #expect(StatusLine.fit(facts.map(\.wordings), width: 81) == "not signed in — forceterm login · 4 local changes · last sync 2025-03-04 10:00:05")
        #expect(StatusLine.fit(facts.map(\.wordings), width: 70) == "not signed in — forceterm login · 4 local changes · synced 03-04 10:00")
        #expect(StatusLine.fit(facts.map(\.wordings), width: 64) == "not signed in — forceterm login · 4 pending · synced 03-04 10:00")
        #expect(StatusLine.fit(facts.map(\.wordings), width: 50) == "not signed in · 4 pending · synced 03-04 10:00")
        #expect(StatusLine.fit(facts.map(\.wordings), width: 40) == "not signed in · 4 pending · synced 03-04")
    }

    @Test func atEightyColumnsTheLastSyncTimeIsWhole() throws {
        let fixture = try ScreenFixture(size: Size(width: 80, height: 24))
        try fixture.addSyncStates()
        let canvas = try fixture.press([.character("3")])
        let line = try #require(canvas.text.split(separator: "\n").last)
        #expect(line.contains("synced 03-04 10:00") && !line.contains("…"), "\(line)")
    }

    @Test("During a sync at 80 columns the progress and every fact fit whole: the label gives way before the facts are cut")
    func aRunningSyncFitsEightyColumns() {
        let syncing = [
            StatusFact("syncing"), StatusFact("1 local change", ["1 pending"]),
            StatusFact("last sync 2025-03-04 10:00:05", ["synced 03-04 10:00", "synced 03-04", ""]),
        ]
        let theme = Theme(colors: false, ascii: false)
        for (width, right) in [(80, "146/300"), (80, "14,600/100,000"), (60, "146/300"), (44, "1/5")] {
            var canvas = Canvas(size: Size(width: width, height: 1))
            StatusLine.draw(
                in: &canvas, y: 0, width: width, left: syncing.map(\.wordings),
                progress: (label: "Sync down contacts 4/6", fraction: 0.62), right: right, theme: theme)
            let line = canvas.line(0)
            #expect(!line.contains("…") && line.contains("syncing") && line.contains("1 pending") && line.contains("62%"), "\(width): \(line)")
            if width == 80 { #expect(line.contains("Sync down contacts 4/6"), "room for the label at 80: \(line)") }
        }
    }
}
