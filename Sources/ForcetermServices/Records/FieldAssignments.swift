import ContactsApp
import ForceJSON
import Foundation
import SmartStore

/// `Field=Value` pairs as a script writes them: split at the first `=`, so a value may hold more.
public struct FieldAssignments {
    public let pairs: [(field: String, text: String)]

    public init(_ arguments: [String]) throws {
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
}
