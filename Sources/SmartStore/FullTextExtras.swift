import Foundation
import GRDB

/// What the full-text index holds beside a value, so a search finds what the SDK's tokenizer
/// (`unicode61 remove_diacritics 2`) cannot: letters that are not a base letter plus a diacritic
/// (Ø, Ł, ß, Æ: `ostergaard` finds Østergaard) and a word inside a run of CJK text, which the
/// tokenizer keeps as one token (`テクノ` in `東京テクノ Partners`). The extras follow the value:
/// the folded spelling of each word that has such letters, then each CJK run as single
/// characters, which `FullTextQuery` searches as a phrase. The SDK's own queries still match the
/// value as it was; nothing else reads the index's text.
public enum FullTextExtras {
    /// Letters without a decomposition, folded as people type them on a plain keyboard.
    static let letterFolds: [Character: String] = [
        "ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "ß": "ss", "ẞ": "ss",
        "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "þ": "th", "Þ": "th", "ı": "i", "ħ": "h", "Ħ": "h", "ŧ": "t", "Ŧ": "t",
    ]

    static let foldedScalars = Set(letterFolds.keys.compactMap { $0.unicodeScalars.first?.value })

    /// Scripts written without spaces between words: Han, kana, Hangul, half-width katakana.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFF66...0xFF9F: true
        default: false
        }
    }

    /// The text indexed for `value`: `value` itself when it needs nothing more (all ASCII, say).
    public static func indexed(_ value: String) -> String {
        // Most values need nothing (ASCII, or accents unicode61 folds itself): one pass over the
        // scalars decides, without hashing Characters; sync down calls this for every value.
        guard value.unicodeScalars.contains(where: { $0.value >= 0x80 && (foldedScalars.contains($0.value) || isCJK($0)) }) else {
            return value
        }
        var extras: [String] = []
        for word in value.split(whereSeparator: { $0.isWhitespace }) where word.contains(where: { letterFolds[$0] != nil }) {
            extras.append(String(word.flatMap { letterFolds[$0] ?? String($0) }))
        }
        for run in cjkRuns(value) where run.count > 1 {
            extras.append(run.map(String.init).joined(separator: " "))
        }
        return extras.isEmpty ? value : value + " " + extras.joined(separator: " ")
    }

    /// The maximal runs of CJK characters in `text`.
    static func cjkRuns(_ text: some StringProtocol) -> [[Character]] {
        var runs: [[Character]] = []
        var current: [Character] = []
        for character in text {
            if let scalar = character.unicodeScalars.first, isCJK(scalar) {
                current.append(character)
            } else if !current.isEmpty {
                runs.append(current)
                current = []
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    /// `smartstore_fts_text(x)`: `indexed(x)` for SQL, so a full-text table can be filled from the
    /// soup's columns in one statement. Every connection of a store registers it.
    static let function = DatabaseFunction("smartstore_fts_text", argumentCount: 1, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return values[0] }
        return indexed(text)
    }
}
