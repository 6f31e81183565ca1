import ContactsApp
import ForceJSON
import Foundation
import SmartStore

/// `Field=Value` pairs as a script writes them: split at the first `=`, so a value may hold more.
public struct FieldAssignments {
    public let pairs: [(field: String, text: String)]

    public init(_ arguments: [String]) throws {
        try Self.refuseUndecodableArguments()
        pairs = try arguments.map { argument in
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw UsageError("\(argument) is not Field=Value (for example Title=\"Head of Sales\"; an empty value clears the field: Title=)")
            }
            return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
        }
        var seen: Set<String> = []
        for pair in pairs where !seen.insert(pair.field.lowercased()).inserted {
            throw UsageError("\(pair.field) is given twice; give each field once")
        }
    }

    /// The program's own arguments decode to U+FFFD where their bytes are not UTF-8 (a Latin-1
    /// terminal, a script reading a Latin-1 file); stored, that would lose the letters for good.
    static func refuseUndecodableArguments() throws {
        for index in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
            let shown = String(decoding: UnsafeRawBufferPointer(start: raw, count: strlen(raw)), as: UTF8.self)
            throw UsageError(
                "the argument \(shown) is not UTF-8 text (the terminal or the file it came from uses another encoding: check LANG, or convert it with iconv -f latin1 -t utf-8); nothing was changed")
        }
    }
}
