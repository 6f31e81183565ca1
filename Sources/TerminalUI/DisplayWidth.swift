/// How many terminal columns text takes, so tables, lists and forms line up with CJK, accents and emoji.
///
/// Widths follow what terminals (xterm, tmux, VTE) draw: per Unicode scalar, 0 for combining marks,
/// joiners and variation selectors, 2 for East Asian Wide and Fullwidth characters and for emoji
/// with emoji presentation, 1 otherwise; a grapheme cluster is the sum of its scalars, except that an
/// emoji sequence (ZWJ family, skin tone, flag, keycap, text-default symbol with VS16) is one 2-wide
/// picture. Control characters are 0: callers escape or drop them before drawing.
public enum DisplayWidth {
    /// The columns one scalar takes on its own.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }  // Latin-1 and Latin Extended: the common case, decided quickly.
        if isZeroWidth(scalar) { return 0 }
        if isWide(value) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// The columns one grapheme cluster takes.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count == 1 { return of(first) }
        if isEmojiSequence(scalars) { return 2 }
        var width = 0
        for scalar in scalars { width += of(scalar) }
        if scalars.contains(textPresentationSelector) { width = min(width, 1) }
        return width
    }

    /// The columns a string takes, cluster by cluster.
    public static func of(_ text: some StringProtocol) -> Int {
        var width = 0
        for character in text { width += of(character) }
        return width
    }

    static let zeroWidthJoiner: Unicode.Scalar = "\u{200D}"
    static let emojiPresentationSelector: Unicode.Scalar = "\u{FE0F}"
    static let textPresentationSelector: Unicode.Scalar = "\u{FE0E}"

    /// Marks, joiners, selectors and other invisible formatting that draw on the previous column.
    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        // Hangul medial vowels and final consonants join the syllable started by a leading consonant.
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark:
            return true
        case .format:
            return value != 0x00AD  // the soft hyphen shows as a hyphen in terminals
        default:
            return false
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges outside the emoji, from Unicode's EastAsianWidth.txt.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo leading consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
        0x3400...0x4DBF,  // CJK unified ideographs extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4,  // ideographic symbols
        0x17000...0x18CFF,  // Tangut, Khitan
        0x1AFF0...0x1B2FF,  // Kana supplement and extensions, Nushu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B–F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extensions G–H
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    private static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }

    /// Whether a multi-scalar cluster is drawn as one emoji picture.
    private static func isEmojiSequence(_ scalars: Character.UnicodeScalarView) -> Bool {
        guard let first = scalars.first else { return false }
        let base = first.properties
        if isRegionalIndicator(first) { return scalars.dropFirst().contains(where: isRegionalIndicator) }
        guard base.isEmoji else { return false }
        if scalars.contains(textPresentationSelector) { return false }
        if base.isEmojiPresentation { return true }
        return scalars.contains { scalar in
            scalar == emojiPresentationSelector || scalar == zeroWidthJoiner || scalar.properties.isEmojiModifier
        }
    }
}

/// What marks text cut short: "…" normally, ASCII stand-ins for `--ascii` terminals.
public struct Ellipsis: Sendable, Equatable {
    public let text: String
    public let width: Int

    public init(_ text: String) {
        self.text = text
        self.width = DisplayWidth.of(text)
    }

    public static let unicode = Ellipsis("…")
    public static let tilde = Ellipsis("~")
    public static let threeDots = Ellipsis("...")
}

/// Where padding goes when text is narrower than its column.
public enum TextAlignment: Sendable {
    case left, right, center
}

extension StringProtocol {
    /// The terminal columns this text takes.
    public var displayWidth: Int { DisplayWidth.of(self) }

    /// The text cut to at most `width` columns, ending in `ellipsis` when anything was cut. Never splits
    /// a grapheme cluster; a wide character that straddles the edge gives way to a space so the cut
    /// text fills exactly `width` columns. When even the ellipsis does not fit, the text is clipped
    /// without one.
    public func truncated(toWidth width: Int, ellipsis: Ellipsis = .unicode) -> String {
        guard width > 0 else { return "" }
        guard displayWidth > width else { return String(self) }
        guard ellipsis.width <= width else { return clipped(toWidth: width) }
        let (kept, keptWidth) = prefix(fittingWidth: width - ellipsis.width)
        return kept + ellipsis.text + String(repeating: " ", count: width - ellipsis.width - keptWidth)
    }

    /// The text cut hard to at most `width` columns, with no ellipsis; a wide character that straddles
    /// the edge becomes a space.
    public func clipped(toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        let (kept, keptWidth) = prefix(fittingWidth: width)
        if keptWidth == width || kept.count == count { return kept }
        return kept + String(repeating: " ", count: width - keptWidth)
    }

    /// The text in exactly `width` columns: padded with spaces per `alignment`, or clipped if wider.
    public func padded(toWidth width: Int, alignment: TextAlignment = .left) -> String {
        let text = clipped(toWidth: width)
        let gap = Swift.max(width - text.displayWidth, 0)
        switch alignment {
        case .left: return text + String(repeating: " ", count: gap)
        case .right: return String(repeating: " ", count: gap) + text
        case .center:
            let before = gap / 2
            return String(repeating: " ", count: before) + text + String(repeating: " ", count: gap - before)
        }
    }

    /// The text in exactly `width` columns, truncated with `ellipsis` if too wide, padded if too narrow.
    public func fitted(toWidth width: Int, alignment: TextAlignment = .left, ellipsis: Ellipsis = .unicode) -> String {
        truncated(toWidth: width, ellipsis: ellipsis).padded(toWidth: width, alignment: alignment)
    }

    /// The longest run of whole clusters from the start that fits in `width` columns, and its width.
    private func prefix(fittingWidth width: Int) -> (String, Int) {
        var kept = ""
        var keptWidth = 0
        for character in self {
            let characterWidth = DisplayWidth.of(character)
            if keptWidth + characterWidth > width { break }
            kept.append(character)
            keptWidth += characterWidth
        }
        return (kept, keptWidth)
    }
}
