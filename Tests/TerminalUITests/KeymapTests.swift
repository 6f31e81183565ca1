import ContactsApp
import Foundation
import Testing

@testable import TerminalUI

@Suite("One keymap table drives keys and help")
struct KeymapTests {
    @Test("No key is bound twice in one context")
    func noConflicts() {
        #expect(AppKeymap.table.conflicts.isEmpty)
    }

    @Test("Help notes too wide for the screen go on below, under their value, instead of being cut")
    func helpNotesWrap() {
        let path = "/tmp/trial/data/forceterm/demo/localorg/requests.log"
        let notes = HelpOverlay.Notes(title: "Demo org", lines: ["Requests  tail -f \(path)", "short line"])
        let fitted = notes.lines(fittedTo: 40)
        #expect(fitted.allSatisfy { $0.displayWidth <= 40 }, "\(fitted)")
        #expect(fitted.first?.hasPrefix("Requests  tail -f") == true && fitted.dropFirst().first?.hasPrefix("          ") == true, "\(fitted)")
        #expect(fitted.map { $0.trimmingCharacters(in: .whitespaces) }.joined().contains(path.dropFirst(10)), "nothing cut: \(fitted)")
        #expect(fitted.last == "short line")
        #expect(notes.lines(fittedTo: 120) == notes.lines, "lines that fit are as given")
    }

    @Test("Ctrl-C does something wherever the keys are: it cancels what is open, or quits")
    func controlCEverywhere() {
        for mode in AppMode.allCases {
            #expect(AppKeymap.table.action(for: .control("c"), in: mode) != nil, "Ctrl-C does nothing in \(mode)")
        }
    }

    @Test("Every binding dispatches to its action, and the help screen lists it")
    func dispatchMatchesHelp() {
        let helpText = AppKeymap.helpSections(ascii: false).flatMap { $0.lines.map { "\($0.keys) \($0.help)" } }
        for binding in AppKeymap.table.bindings {
            for context in binding.contexts {
                for key in binding.keys {
                    #expect(AppKeymap.table.action(for: key, in: context) == binding.action)
                }
            }
            if case .showTabNumber = binding.action { continue }
            if binding.contexts.contains(.browsing) || binding.contexts.contains(.editing) {
                let keys = binding.keys.map(\.label).joined(separator: " ")
                #expect(helpText.contains("\(keys) \(binding.help)"), "help is missing \(keys)")
            }
        }
    }

    @Test(
        "The design's keys are bound",
        arguments: [
            (Key.character("/"), AppCommand.startSearch), (.character("n"), .newRecord), (.character("e"), .editRecord),
            (.character("d"), .deleteRecord), (.character("u"), .undeleteRecord), (.character("s"), .sync),
            (.character("c"), .resolveConflict), (.character("?"), .toggleHelp), (.character("q"), .quit),
            (.character("j"), .moveDown), (.character("k"), .moveUp), (.character("g"), .moveToTop),
            (.character("G"), .moveToBottom), (.pageDown, .pageDown), (.enter, .openDetail), (.tab, .nextTab),
        ])
    func designKeys(key: Key, command: AppCommand) {
        #expect(AppKeymap.table.action(for: key, in: .browsing) == command)
    }

    @Test("The number keys pick tabs by position, and the help names the tabs the config has")
    func numberKeysAndTheirHelp() {
        for number in 1...9 {
            #expect(AppKeymap.table.action(for: .character(Character(String(number))), in: .browsing) == .showTabNumber(number))
            #expect(AppKeymap.table.action(for: .character(Character(String(number))), in: .inspecting) == .showTabNumber(number))
        }
        let builtIn = AppKeymap.helpSections(ascii: false)[0].lines.prefix(5).map { "\($0.keys) \($0.help)" }
        #expect(builtIn == ["1 Contacts tab", "2 Accounts tab", "3 Syncs tab: each named sync", "4 Inspector tab: Smart SQL, soups, indices", "Tab next tab"])
        let sdk = AppKeymap.helpSections(ascii: false, tabs: ["Contacts", "Syncs", "Inspector"])
        #expect(
            sdk[0].lines.prefix(4).map { "\($0.keys) \($0.help)" }
                == ["1 Contacts tab", "2 Syncs tab: each named sync", "3 Inspector tab: Smart SQL, soups, indices", "Tab next tab"])
        #expect(sdk.contains { $0.title == "Inspector (3)" })
        #expect(!sdk.flatMap(\.lines).contains { $0.help.hasPrefix("tab ") }, "no bare \"tab n\" line")
    }

    @Test("The Inspector's keys; m / t settle a conflict")
    func tabAndConflictKeys() {
        #expect(AppKeymap.table.action(for: .enter, in: .inspecting) == .editQuery)
        #expect(AppKeymap.table.action(for: .enter, in: .typingQuery) == .runQuery)
        #expect(AppKeymap.table.action(for: .character("q"), in: .typingQuery) == nil, "q types a q at the prompt")
        #expect(AppKeymap.table.action(for: .character("m"), in: .resolvingConflict) == .resolve(.keepMine))
        #expect(AppKeymap.table.action(for: .character("t"), in: .resolvingConflict) == .resolve(.takeServer))
    }

    @Test("Ctrl-S and F2 save in the form; Esc cancels")
    func formKeys() {
        #expect(AppKeymap.table.action(for: .control("s"), in: .editing) == .save)
        #expect(AppKeymap.table.action(for: .function(2), in: .editing) == .save)
        #expect(AppKeymap.table.action(for: .escape, in: .editing) == .cancelEdit)
        #expect(AppKeymap.table.action(for: .character("q"), in: .editing) == nil, "q types a q in a form")
    }

    @Test("ncurses codes decode to keys: control letters, Enter, Esc, Backspace, text")
    func decoding() {
        #expect(NcursesScreen.decodeCharacter(19) == .control("s"))
        #expect(NcursesScreen.decodeCharacter(13) == .enter)
        #expect(NcursesScreen.decodeCharacter(27) == .escape)
        #expect(NcursesScreen.decodeCharacter(127) == .backspace)
        #expect(NcursesScreen.decodeCharacter(9) == .tab)
        #expect(NcursesScreen.decodeCharacter(0x00E9) == .character("é"))
        #expect(NcursesScreen.decodeCharacter(0x5C71) == .character("山"))
    }
}
