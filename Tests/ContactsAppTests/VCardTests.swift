import Foundation
import Testing

@testable import ContactsApp

/// The vCard codec on cards as other programs write them, and its own output.
@Suite struct VCardTests {
    @Test("Apple's 3.0: groups, repeated TYPE parameters, a folded NOTE, escapes")
    func appleCard() throws {
        let text = [
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//macOS 14.0//EN", "N:Ørsted;Zoë;;Dr.;", "FN:Zoë Ørsted",
            "ORG:Nordlys AS;Procurement;", "item1.EMAIL;type=INTERNET;type=WORK;type=pref:zoe@nordlys.example",
            "item1.X-ABLabel:_$!<Work>!$_", "TEL;type=CELL;type=VOICE:+47 912 34 567",
            "NOTE:Met at the Oslo fair\\, twice\\; prefers email.\\nSecond line that is long enough to be fol",
            "\tded by a tab.", "ADR;type=WORK:;;Storgata 1\\nBak gården;Oslo;;0155;Norway", "END:VCARD",
        ].joined(separator: "\n")
        let cards = try VCardFormat.parse(text)
        #expect(cards.count == 1)
        let card = try #require(cards.first)
        #expect(card.version == "3.0" && card.line == 1)
        #expect(card.first("n")?.components == ["Ørsted", "Zoë", "", "Dr.", ""])
        let email = try #require(card.first("EMAIL"))
        #expect(email.group == "item1" && email.types == ["internet", "work", "pref"] && email.text == "zoe@nordlys.example")
        #expect(card.first("NOTE")?.text == "Met at the Oslo fair, twice; prefers email.\nSecond line that is long enough to be folded by a tab.")
        #expect(card.first("ADR")?.components == ["", "", "Storgata 1\nBak gården", "Oslo", "", "0155", "Norway"])
        #expect(card.first("ORG")?.components == ["Nordlys AS", "Procurement", ""])
    }

    @Test("vCard 2.1 from an old phone: quoted-printable UTF-8 with a soft line break, Latin-1, bare parameters, CRLF and a BOM")
    func oldPhoneCard() throws {
        let text =
            "\u{FEFF}"
            + [
                "BEGIN:VCARD", "VERSION:2.1", "N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Garc=C3=ADa;Jos=C3=A9;;;",
                "TEL;CELL;PREF:+34600111222", "TITLE;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Director de Ventas y =", "Desarrollo",
                "NOTE;ENCODING=QUOTED-PRINTABLE;CHARSET=ISO-8859-1:Se=F1or", "END:VCARD", "", "BEGIN:VCARD", "VERSION:2.1", "N:Two;Card", "END:VCARD",
            ].joined(separator: "\r\n") + "\r\n"
        let cards = try VCardFormat.parse(text)
        #expect(cards.count == 2 && cards[1].line == 10)
        let card = cards[0]
        #expect(card.first("N")?.components.prefix(2) == ["García", "José"])
        #expect(card.first("TEL")?.types == ["cell", "pref"])
        #expect(card.first("TITLE")?.text == "Director de Ventas y Desarrollo")
        #expect(card.first("NOTE")?.text == "Señor")
    }

    @Test("4.0: a quoted TYPE list, PREF=1, a tel: URI; a colon inside a quoted parameter value")
    func version4() throws {
        let cards = try VCardFormat.parse(
            """
            BEGIN:VCARD
            VERSION:4.0
            TEL;VALUE=uri;PREF=1;TYPE="work,voice":tel:+1-555-0100
            X-CUSTOM;X-NOTE="a:b":value
            END:VCARD
            """)
        let tel = try #require(cards.first?.first("TEL"))
        #expect(tel.types == ["work", "voice", "pref"] && tel.text == "tel:+1-555-0100")
        #expect(cards.first?.first("X-CUSTOM")?.parameters["X-NOTE"] == ["a:b"] && cards.first?.first("X-CUSTOM")?.text == "value")
    }

    @Test("Written cards fold at 75 octets without splitting a character, use CRLF, and read back the same")
    func writeAndReadBack() throws {
        let long = String(repeating: "東京テクノ Łódź 🚀 ", count: 12)
        let card = VCard(properties: [
            VCardProperty(name: "FN", text: "Zoë; Ørsted, \"Jr\""),
            VCardProperty(name: "N", components: ["Ørsted", "Zoë", "", "", ""]),
            VCardProperty(name: "NOTE", text: long + "\nsecond line\\with a backslash"),
            VCardProperty(name: "TEL", parameters: ["TYPE": ["work", "voice"]], text: "+47 22 00 00 00"),
            VCardProperty(name: "X-SALESFORCE-FIELD", parameters: ["X-FIELD": ["Region__c"]], text: "Nordics"),
        ])
        let text = VCardFormat.write(card)
        #expect(text.hasPrefix("BEGIN:VCARD\r\nVERSION:4.0\r\n") && text.hasSuffix("END:VCARD\r\n"))
        let physical = text.components(separatedBy: "\r\n").dropLast()
        #expect(physical.allSatisfy { $0.utf8.count <= 75 }, "every line within 75 octets")
        #expect(physical.count > 8, "the long NOTE was folded")
        let withoutCRLF = text.replacingOccurrences(of: "\r\n", with: "")
        #expect(!withoutCRLF.contains("\n") && !withoutCRLF.contains("\r"), "line ends are CRLF only; a newline in a value is escaped")
        let back = try #require(try VCardFormat.parse(text).first)
        #expect(back.properties == card.properties)
        #expect(back.first("NOTE")?.text == long + "\nsecond line\\with a backslash")
        #expect(back.first("FN")?.text == "Zoë; Ørsted, \"Jr\"")
    }

    @Test("Syntax errors name their line")
    func syntaxErrors() {
        func line(of text: String) -> Int? {
            do {
                _ = try VCardFormat.parse(text)
                return nil
            } catch let error as VCardSyntaxError {
                return error.line
            } catch {
                return -1
            }
        }
        #expect(line(of: "FN:Nobody\nBEGIN:VCARD\nEND:VCARD") == 1, "a property outside a card")
        #expect(line(of: "BEGIN:VCARD\nVERSION:3.0\nFN:Open") == 1, "no END: the card's first line")
        #expect(line(of: "BEGIN:VCARD\nFN:A\nBEGIN:VCARD\nEND:VCARD") == 3, "nested")
        #expect(line(of: "BEGIN:VCARD\nthis line has no colon\nEND:VCARD") == 2)
        #expect(line(of: "BEGIN:VCALENDAR\nEND:VCALENDAR") == 1, "not a vCard")
        #expect(line(of: "BEGIN:VCARD\nEND:VCARD\nEND:VCARD") == 3)
        #expect(line(of: "\n\nBEGIN:VCARD\nN:A;B\nEND:VCARD\n\n") == nil)
    }
}
