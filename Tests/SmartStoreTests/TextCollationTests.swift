import Foundation
import PropertyBased
import Testing

@testable import SmartStore

/// The folding table must order exactly as Foundation's folding does: `_text_idx` indexes
/// already on disk were built with the Foundation path, and an index whose collation changed
/// order would no longer find its rows.
@Suite("smartstore_text collation")
struct TextCollationTests {
    static let tabled = TextCollation.tabled.compactMap(Unicode.Scalar.init).map(Character.init)
    static let someIdeographs = stride(from: TextCollation.unfolded.lowerBound, through: TextCollation.unfolded.upperBound, by: 97)
        .compactMap(Unicode.Scalar.init).map(Character.init)
    /// ASCII, every tabled scalar, some ideographs, and a few the table leaves to Foundation.
    static let alphabet: [Character] = Array("aAbBeEiInNoOsSuUzZ '-.09") + tabled + someIdeographs + ["가", "が", "ｶ", "Ａ", "ẞ", "ễ"]

    @Test func everyTabledScalarAloneAndBesideASCIIOrdersAsFoundationDoes() {
        let partners = ["", "a", "e", "n", "z", "A", "Z", " "]
        var compared = 0
        for letter in Self.tabled {
            // Against every 16th tabled scalar, with one of three endings: about 700k comparisons.
            for other in Self.tabled where (other.unicodeScalars.first?.value ?? 0).isMultiple(of: 16) || other == letter {
                for suffix in ["", "a", " "] {
                    let lhs = String(letter) + suffix
                    let rhs = String(other) + suffix
                    guard let fast = TextCollation.tableOrder(lhs, rhs) else { continue }
                    #expect(fast == TextCollation.foundationOrder(lhs, rhs), "\(lhs) vs \(rhs)")
                    compared += 1
                }
            }
            for partner in partners {
                let (lhs, rhs) = (String(letter), partner + "x")
                if let fast = TextCollation.tableOrder(lhs, rhs) { #expect(fast == TextCollation.foundationOrder(lhs, rhs), "\(lhs) vs \(rhs)") }
            }
        }
        #expect(compared > 300_000, "most tabled scalars have an entry: \(compared)")
    }

    @Test func ideographsFoldToThemselves() {
        for value in TextCollation.unfolded {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            #expect(Array(TextCollation.fold(text).unicodeScalars) == [scalar], "U+\(String(value, radix: 16))")
        }
    }

    /// Shrunk by the property below: Thaana's vowel sign U+07A7 (combining class 0, a nonspacing
    /// mark) folds away after Ą but not on its own, so the table must not fold it alone.
    @Test func aMarkOfClassZeroIsNotFoldedAlone() {
        #expect(TextCollation.foldedOrder("Ā", "Ą\u{07A7}") == TextCollation.foundationOrder("Ā", "Ą\u{07A7}"))
        #expect(TextCollation.tableOrder("Ā", "Ą\u{07A7}") == nil)
    }

    @Test func randomNamesOrderAsFoundationDoes() async {
        let name = Gen.element(of: Self.alphabet).array(of: 0...9).map { (characters: [Character?]) in String(characters.compactMap { $0 }) }
        await propertyCheck(count: 5_000, input: name, name) { lhs, rhs in
            if let fast = TextCollation.tableOrder(lhs, rhs) {
                #expect(fast == TextCollation.foundationOrder(lhs, rhs), "\(lhs) vs \(rhs)")
            }
            #expect(TextCollation.foldedOrder(lhs, rhs) == TextCollation.foundationOrder(lhs, rhs), "\(lhs) vs \(rhs)")
        }
    }

    @Test func namesSortAsPeopleExpect() throws {
        let names = [
            "Zoë", "ñúñez", "Nuñez", "de la Cruz", "Élise", "elise", "Øster", "Æble", "Łukasz", "Lukas", "Straße", "Strasse",
            "Ōno", "ono", "Über", "Смирнова", "смирнов", "Ёлкин", "Елкин", "王芳", "Παπαδόπουλος", "παπαδοπουλος", "علي",
        ]
        let sorted = names.sorted { TextCollation.compare($0, $1) == .orderedAscending }
        let reference = names.sorted { lhs, rhs in
            let order = TextCollation.foundationOrder(lhs, rhs)
            return order == .orderedAscending || (order == .orderedSame && Array(lhs.utf8).lexicographicallyPrecedes(Array(rhs.utf8)))
        }
        #expect(sorted == reference)
        #expect(try #require(sorted.firstIndex(of: "ñúñez")) < #require(sorted.firstIndex(of: "Zoë")))
        #expect(try #require(sorted.firstIndex(of: "Élise")) < #require(sorted.firstIndex(of: "Lukas")))
        #expect(TextCollation.foldedOrder("Ёлкин", "Елкин") == .orderedSame, "accents ignored in Cyrillic too")
        #expect(TextCollation.compare("Élise", "elise") != .orderedSame, "binary order breaks ties")
        // What the table leaves out goes through Foundation.
        #expect(TextCollation.tableOrder("e\u{301}", "é") == nil)
        #expect(TextCollation.tableOrder("가", "a") == nil)
        #expect(TextCollation.foldedOrder("e\u{301}", "é") == .orderedSame)
    }
}
