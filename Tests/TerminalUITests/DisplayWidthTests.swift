import Testing

@testable import TerminalUI

@Suite("Display width of characters and strings")
struct DisplayWidthTests {
    @Test("ASCII letters, digits and punctuation take one column each")
    func ascii() {
        #expect("Hello, world!".displayWidth == 13)
        #expect("".displayWidth == 0)
    }

    @Test("Control characters take no columns: callers escape them")
    func controls() {
        #expect(DisplayWidth.of(Character("\u{1B}")) == 0)
        #expect(DisplayWidth.of(Character("\r\n")) == 0)
        #expect(DisplayWidth.of(Character("\u{7F}")) == 0)
        #expect(DisplayWidth.of(Character("\u{85}")) == 0)
    }

    @Test(
        "Precomposed and combining accents are one column",
        arguments: [
            "é", "e\u{301}", "ñ", "n\u{303}", "ộ", "o\u{323}\u{302}", "Å", "A\u{30A}",
        ])
    func accents(_ text: String) {
        #expect(text.count == 1)
        #expect(text.displayWidth == 1)
    }

    @Test("A name with accents written either way has the same width")
    func accentedNames() {
        let precomposed = "José Müller"
        let decomposed = "Jose\u{301} Mu\u{308}ller"
        #expect(precomposed.displayWidth == 11)
        #expect(decomposed.displayWidth == 11)
    }

    @Test(
        "CJK ideographs, kana, Hangul and fullwidth forms are two columns",
        arguments: [
            "漢", "字", "の", "カ", "한", "ｱ" /* halfwidth katakana stays 1 */, "Ａ", "！", "\u{3000}",
        ])
    func wide(_ text: String) {
        let expected = text == "ｱ" ? 1 : 2
        #expect(text.displayWidth == expected)
    }

    @Test("Hangul written as conjoining jamo is one two-column syllable")
    func conjoiningJamo() {
        let syllable = "\u{1100}\u{1161}\u{11A8}"  // 각 decomposed
        #expect(syllable.count == 1)
        #expect(syllable.displayWidth == 2)
        #expect("각".displayWidth == 2)
    }

    @Test("Mixed Latin and CJK add up")
    func mixed() {
        #expect("東京 Tokyo".displayWidth == 10)
        #expect("山田太郎".displayWidth == 8)
    }

    @Test("Emoji with emoji presentation are two columns", arguments: ["😀", "👍", "🚀", "⌚", "🇯"])
    func emoji(_ text: String) {
        #expect(text.displayWidth == 2)
    }

    @Test(
        "Skin tones, ZWJ families, flags and keycaps are one two-column picture",
        arguments: [
            "👍🏽",
            "☝🏽",
            "👨‍👩‍👧‍👦",
            "👩‍💻",
            "🏳️‍🌈",
            "🇫🇷",
            "🇯🇵",
            "1️⃣",
            "❤️",
        ])
    func emojiSequences(_ text: String) {
        #expect(text.count == 1)
        #expect(text.displayWidth == 2)
    }

    @Test("Text-default symbols stay one column without VS16, and with VS15")
    func textPresentation() {
        #expect("❤".displayWidth == 1)
        #expect("☺".displayWidth == 1)
        #expect("☺\u{FE0E}".displayWidth == 1)
        #expect("1\u{20E3}".displayWidth == 1)  // keycap without VS16 is drawn as text
        #expect("#".displayWidth == 1)
    }

    @Test("Zero-width joiners, variation selectors and format characters alone take nothing")
    func invisible() {
        #expect(DisplayWidth.of("\u{200D}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{200B}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{FE0F}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{E0101}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{301}" as Unicode.Scalar) == 0)
        #expect("a\u{200B}b".displayWidth == 2)
    }

    @Test("A family of emoji counts once per picture in a string")
    func emojiInText() {
        #expect("Hi 👨‍👩‍👧‍👦!".displayWidth == 6)
        #expect("🇫🇷🇩🇪".displayWidth == 4)
    }
}

@Suite("Truncating and padding to a width")
struct TruncationTests {
    @Test("Text that fits is returned unchanged")
    func fits() {
        #expect("Smith".truncated(toWidth: 5) == "Smith")
        #expect("Smith".truncated(toWidth: 9) == "Smith")
        #expect("山田".truncated(toWidth: 4) == "山田")
    }

    @Test("Long text ends in an ellipsis and fills the width exactly")
    func ellipsis() {
        #expect("Alexander".truncated(toWidth: 6) == "Alexa…")
        #expect("Alexander".truncated(toWidth: 6, ellipsis: .tilde) == "Alexa~")
        #expect("Alexander".truncated(toWidth: 6, ellipsis: .threeDots) == "Ale...")
    }

    @Test("A wide character that straddles the edge gives way to a space", arguments: [3, 4, 5, 6, 7])
    func wideAtOddWidths(_ width: Int) {
        let text = "東京都港区"  // 10 columns
        let cut = text.truncated(toWidth: width)
        #expect(cut.displayWidth == width)
        #expect(cut.contains("…"))
        // Kept ideographs are whole: the cut is a prefix of the original plus the ellipsis and filler.
        let kept = cut.prefix { $0 != "…" }
        #expect(text.hasPrefix(kept))
    }

    @Test("Odd width through CJK gives the expected cells")
    func cjkOdd() {
        #expect("東京都港区".truncated(toWidth: 4) == "東… ")
        #expect("東京都港区".truncated(toWidth: 5) == "東京…")
        #expect("東京都港区".clipped(toWidth: 5) == "東京 ")
        #expect("東京都港区".clipped(toWidth: 1) == " ")
    }

    @Test("Accents written with combining marks are never split from their letter")
    func combiningKept() {
        let text = "Jose\u{301}phine"
        let cut = text.truncated(toWidth: 5)
        #expect(cut == "Jose\u{301}…")
        #expect(cut.unicodeScalars.contains("\u{301}"))
        #expect(cut.displayWidth == 5)
    }

    @Test("Emoji sequences are kept whole or dropped whole")
    func emojiKept() {
        let text = "👨‍👩‍👧‍👦 family"
        #expect(text.truncated(toWidth: 4) == "👨‍👩‍👧‍👦 …")
        #expect(text.truncated(toWidth: 2) == "… ")
        #expect("🇫🇷🇩🇪🇯🇵".truncated(toWidth: 5) == "🇫🇷🇩🇪…")
        #expect("🇫🇷🇩🇪🇯🇵".clipped(toWidth: 5) == "🇫🇷🇩🇪 ")
    }

    @Test("Widths of zero or less give nothing; an ellipsis too wide for the width is left out")
    func tinyWidths() {
        #expect("abc".truncated(toWidth: 0) == "")
        #expect("abc".truncated(toWidth: -3) == "")
        #expect("abcdef".truncated(toWidth: 1) == "…")
        #expect("abcdef".truncated(toWidth: 2, ellipsis: .threeDots) == "ab")
        #expect("漢字".truncated(toWidth: 1) == "…")
    }

    @Test(
        "Padding fills exactly the width on either side, whatever the script",
        arguments: [
            "Ana", "José", "Jose\u{301}", "山田", "👍🏽", "",
        ])
    func padding(_ text: String) {
        for width in 0...9 {
            let left = text.padded(toWidth: width)
            let right = text.padded(toWidth: width, alignment: .right)
            let centered = text.padded(toWidth: width, alignment: .center)
            #expect(left.displayWidth == width)
            #expect(right.displayWidth == width)
            #expect(centered.displayWidth == width)
            if text.displayWidth <= width {
                #expect(left.hasPrefix(text))
                #expect(right.hasSuffix(text))
            }
        }
    }

    @Test("Padding places spaces where the alignment says")
    func paddingPlacement() {
        #expect("山田".padded(toWidth: 7) == "山田   ")
        #expect("山田".padded(toWidth: 7, alignment: .right) == "   山田")
        #expect("山田".padded(toWidth: 7, alignment: .center) == " 山田  ")
        #expect("山田".padded(toWidth: 3) == "山 ")
    }

    @Test("Fitting truncates or pads to exactly the width")
    func fitting() {
        #expect("Alexander".fitted(toWidth: 6) == "Alexa…")
        #expect("Al".fitted(toWidth: 6) == "Al    ")
        #expect("42".fitted(toWidth: 5, alignment: .right) == "   42")
        for width in 1...12 {
            #expect("東京 Tokyo 👍🏽".fitted(toWidth: width).displayWidth == width)
        }
    }
}
