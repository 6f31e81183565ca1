/// The prompt `a` opens: one SOQL condition over a soup's object, prefilled from the list's kept
/// search and shown for editing before anything is stored (SOQL's LIKE is not the list's word
/// search), then the subscription's name.
public struct SubscriptionPrompt: Sendable, Equatable {
    public enum Step: Sendable, Equatable {
        case condition, name
    }

    public let soupName: String
    /// What the condition selects, in words ("contacts").
    public let plural: String
    public internal(set) var step = Step.condition
    public internal(set) var condition: TextInput
    public internal(set) var name: TextInput
    /// Why the last Enter was refused (the service's words): the prompt stays open to fix it.
    public internal(set) var error: String?
    /// The subscription of this name the user was told exists: Enter again changes its condition.
    var replacing: String?

    init(soupName: String, plural: String, condition: String, name: String) {
        self.soupName = soupName
        self.plural = plural
        self.condition = TextInput(condition)
        self.name = TextInput(name)
    }

    /// The line being typed.
    public var input: TextInput { step == .condition ? condition : name }

    mutating func edit(_ change: (inout TextInput) -> Void) {
        switch step {
        case .condition: change(&condition)
        case .name: change(&name)
        }
        error = nil
    }

    /// The condition a list search suggests: every word of `search` in one of `fields`, anywhere
    /// in it (`LIKE '%word%'`, which takes in the list's matches at a word's start).
    static func condition(search: String, fields: [String]) -> String {
        let words = search.split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty, !fields.isEmpty else { return "" }
        return words.map { word in
            let either = fields.map { "\($0) LIKE '%\(literal(String(word)))%'" }.joined(separator: " OR ")
            return fields.count == 1 || words.count == 1 ? either : "(\(either))"
        }.joined(separator: " AND ")
    }

    /// `text` inside a SOQL LIKE literal: quotes and backslashes escaped, `%` and `_` taken as
    /// themselves.
    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\'%_".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// A name for the subscription from the words searched: lower case, letters and digits kept,
    /// the rest one dash ("Zürich AG" → "zürich-ag"); empty for no search.
    static func suggestedName(search: String) -> String {
        var name = ""
        for character in search.lowercased() {
            if character.isLetter || character.isNumber {
                name.append(character)
            } else if !name.isEmpty, name.last != "-" {
                name.append("-")
            }
        }
        while name.last == "-" { name.removeLast() }
        return name
    }
}
