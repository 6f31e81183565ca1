/// A SOQL query split into its top-level clauses, for the rewrites sync down needs. Text inside
/// parentheses (subqueries, IN lists) and quotes is never taken for a clause, and keywords match
/// whole words only, so a field such as `From_customer__c` is not FROM.
public struct SoqlQuery: Sendable, Equatable {
    public enum Clause: String, Sendable, CaseIterable {
        case select, from, `where`, groupBy = "group by", having, orderBy = "order by", limit, offset
    }

    /// The query as given, or as rebuilt after a rewrite.
    public let text: String
    /// Clause bodies, trimmed; absent clauses are missing.
    public private(set) var clauses: [Clause: String]

    public init(_ text: String) {
        self.text = text
        clauses = Self.split(text)
    }

    private init(clauses: [Clause: String]) {
        self.clauses = clauses
        text = Clause.allCases.compactMap { clause in clauses[clause].map { "\(clause.rawValue) \($0)" } }.joined(separator: " ")
    }

    public subscript(clause: Clause) -> String? { clauses[clause] }

    /// The top-level select items, trimmed (subqueries count as one item each).
    public var selectFields: [String] {
        guard let select = clauses[.select] else { return [] }
        return Self.splitTopLevel(select, on: ",").map { $0.trimmingSpaces }
    }

    /// The object the query reads: the first word of FROM.
    public var objectName: String? {
        clauses[.from].flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).first.map(String.init) }
    }

    /// Whether a select item is a field or a relationship path (not a subquery, a function or an alias).
    public static func isFieldPath(_ item: String) -> Bool {
        !item.isEmpty && item.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
    }

    /// The query without these top-level select items (any case).
    public func droppingSelected(_ fields: [String]) -> SoqlQuery {
        guard !fields.isEmpty else { return self }
        var clauses = self.clauses
        clauses[.select] = selectFields.filter { item in !fields.contains { $0.caseInsensitiveEquals(item) } }.joined(separator: ", ")
        return SoqlQuery(clauses: clauses)
    }

    /// Whether `field` is selected at the top level (case-insensitive, whole item).
    public func selects(_ field: String) -> Bool {
        selectFields.contains { $0.caseInsensitiveEquals(field) }
    }

    /// The SDK's sync-down rewrite: the id and modification fields are selected and the query is
    /// ordered by modification. Unchanged text when nothing was missing.
    public func addingSyncFields(idField: String, modificationField: String) -> SoqlQuery {
        var clauses = self.clauses
        var mutated = false
        var select = clauses[.select] ?? ""
        if !selects(modificationField) {
            select = modificationField + "," + select
            mutated = true
        }
        if !selects(idField) {
            select = idField + "," + select
            mutated = true
        }
        if clauses[.orderBy] == nil {
            clauses[.orderBy] = modificationField
            mutated = true
        }
        if isCapped, let order = clauses[.orderBy], case let tiebroken = Self.order(order, tiebrokenBy: idField), tiebroken != order {
            clauses[.orderBy] = tiebroken
            mutated = true
        }
        guard mutated else { return self }
        clauses[.select] = select
        return SoqlQuery(clauses: clauses)
    }

    /// True when a top-level LIMIT or OFFSET caps the records returned: which records are in the
    /// set then depends on the order, so a sync down runs such a query whole every time, in an
    /// order without ties, and looks for ghosts with the same order and cap (docs/mobilesync.md,
    /// "Capped queries").
    public var isCapped: Bool { clauses[.limit] != nil || clauses[.offset] != nil }

    /// `order` with `idField` appended as its last key, unless one of its keys already is the id
    /// field (ids are unique, so such an order has no ties left).
    private static func order(_ order: String, tiebrokenBy idField: String) -> String {
        let fields = splitTopLevel(order, on: ",").map { $0.trimmingSpaces.prefix { !$0.isWhitespace } }
        return fields.contains { String($0).caseInsensitiveEquals(idField) } ? order : order + ", " + idField
    }

    /// True when the top-level ORDER BY is exactly the modification field (spaces ignored), which
    /// lets a sync save its high-water mark after each page.
    public func isSortedBy(_ modificationField: String) -> Bool {
        guard let order = clauses[.orderBy] else { return false }
        return order.filter { $0 != " " }.caseInsensitiveEquals(modificationField)
    }

    /// The incremental form: `<field> >= <timestamp>` and the original WHERE in parentheses, so an
    /// `or` in it cannot escape the filter. `>=` keeps records changed in the boundary second; the
    /// caller drops the ones it already has.
    public func modified(since timestamp: String, field: String) -> SoqlQuery {
        var clauses = self.clauses
        let predicate = "\(field) >= \(timestamp)"
        if let existing = clauses[.where], !existing.isEmpty {
            clauses[.where] = "\(predicate) and (\(existing))"
        } else {
            clauses[.where] = predicate
        }
        return SoqlQuery(clauses: clauses)
    }

    /// The same query for these records only: `<idField> IN (…)` and the original WHERE, without
    /// a cap (the ids came from the capped set). For records that joined the set without a change
    /// of their own (shared with the user since), which the incremental query never returns.
    public func restricted(toIds ids: [String], idField: String) -> SoqlQuery {
        var clauses = self.clauses
        let list = "\(idField) IN (\(ids.map(SoqlString.literal).joined(separator: ", ")))"
        if let existing = clauses[.where], !existing.isEmpty {
            clauses[.where] = "\(list) and (\(existing))"
        } else {
            clauses[.where] = list
        }
        clauses[.limit] = nil
        clauses[.offset] = nil
        return SoqlQuery(clauses: clauses)
    }

    /// The same query for the records where `condition` also holds: `(condition) and (WHERE)`.
    public func narrowed(by condition: String) -> SoqlQuery {
        var clauses = self.clauses
        if let existing = clauses[.where], !existing.isEmpty {
            clauses[.where] = "(\(condition)) and (\(existing))"
        } else {
            clauses[.where] = condition
        }
        return SoqlQuery(clauses: clauses)
    }

    /// The same records, ids only, for finding ghosts. An uncapped query loses its ORDER BY (its
    /// set does not depend on it); a capped one keeps it, with the id as its last key, and keeps
    /// its LIMIT and OFFSET, so it names the very records a sync down of it fetches. Give it the
    /// rewritten query (`addingSyncFields`), whose order a sync down uses.
    public func idsOnly(idField: String) -> SoqlQuery {
        var clauses = self.clauses
        clauses[.select] = idField
        clauses[.orderBy] = isCapped ? Self.order(clauses[.orderBy] ?? idField, tiebrokenBy: idField) : nil
        return SoqlQuery(clauses: clauses)
    }

    /// `SELECT COUNT()` over the same records, for a ghost check that costs one small answer
    /// instead of every id; nil for a capped or grouped query, whose count says nothing about
    /// which records are in it, and for one with a WHERE, whose set can change with no record edited,
    /// unless `keepingWhere` (the caller knows the condition is on the records' own fields).
    public func countOnly(keepingWhere: Bool = false) -> SoqlQuery? {
        guard !isCapped, clauses[.groupBy] == nil, clauses[.having] == nil, keepingWhere || clauses[.where] == nil else { return nil }
        var clauses = self.clauses
        clauses[.select] = "COUNT()"
        clauses[.orderBy] = nil
        return SoqlQuery(clauses: clauses)
    }

    // MARK: Tokenising

    /// Positions of top-level clause keywords, first occurrence of each, in query order.
    private static func split(_ text: String) -> [Clause: String] {
        let characters = Array(text)
        var found: [(clause: Clause, start: Int, bodyStart: Int)] = []
        var depth = 0
        var quote: Character?
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                if character == "\\" {
                    index += 2
                    continue
                }
                if character == open { quote = nil }
                index += 1
                continue
            }
            switch character {
            case "'", "\"": quote = character
            case "(": depth += 1
            case ")": depth = max(depth - 1, 0)
            default:
                if depth == 0, isWordStart(characters, index) {
                    for clause in Clause.allCases where !found.contains(where: { $0.clause == clause }) {
                        if let end = matchKeyword(clause.rawValue, in: characters, at: index) {
                            found.append((clause, index, end))
                            index = end - 1
                            break
                        }
                    }
                }
            }
            index += 1
        }
        var clauses: [Clause: String] = [:]
        for (position, item) in found.enumerated() {
            let end = position + 1 < found.count ? found[position + 1].start : characters.count
            clauses[item.clause] = String(characters[item.bodyStart..<max(end, item.bodyStart)]).trimmingSpaces
        }
        return clauses
    }

    private static func isIdentifier(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "." || character == "$"
    }

    private static func isWordStart(_ characters: [Character], _ index: Int) -> Bool {
        index == 0 || !isIdentifier(characters[index - 1])
    }

    /// Where the keyword (words separated by any whitespace) ends if it starts at `index` as whole words.
    private static func matchKeyword(_ keyword: String, in characters: [Character], at index: Int) -> Int? {
        var position = index
        let words = keyword.split(separator: " ")
        for (number, word) in words.enumerated() {
            if number > 0 {
                guard position < characters.count, characters[position].isWhitespace else { return nil }
                while position < characters.count, characters[position].isWhitespace { position += 1 }
            }
            for letter in word {
                guard position < characters.count, characters[position].lowercased() == String(letter) else { return nil }
                position += 1
            }
        }
        guard position == characters.count || !isIdentifier(characters[position]) else { return nil }
        return position
    }

    /// Splits on `separator` outside parentheses and quotes.
    static func splitTopLevel(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var quote: Character?
        var escaped = false
        for character in text {
            if let open = quote {
                current.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"": quote = character
            case "(": depth += 1
            case ")": depth = max(depth - 1, 0)
            case separator where depth == 0:
                parts.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}

extension String {
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }

    func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
