import Foundation

/// Text encodings by the names files and users give them: a vCard's CHARSET parameter,
/// `forceterm import --encoding`.
public enum TextEncodingName {
    /// The text encoding a CHARSET parameter names (IANA names as phones and mail programs write
    /// them); nil for one this reader does not know, which is then read as UTF-8.
    public static func encoding(named name: String) -> String.Encoding? {
        switch name.uppercased().replacingOccurrences(of: "_", with: "-") {
        case "UTF-8", "UTF8": .utf8
        case "ISO-8859-1", "LATIN1", "ISO-LATIN-1", "WINDOWS-1252", "CP1252", "US-ASCII", "ASCII": .windowsCP1252
        case "ISO-8859-2", "LATIN2": .isoLatin2
        case "WINDOWS-1250", "CP1250": .windowsCP1250
        case "WINDOWS-1251", "CP1251": .windowsCP1251
        case "SHIFT-JIS", "SJIS", "CP932", "WINDOWS-31J", "X-SJIS": .shiftJIS
        case "EUC-JP": .japaneseEUC
        case "ISO-2022-JP": .iso2022JP
        case "UTF-16": .utf16
        default: nil
        }
    }
}
