import Foundation

/// A soup a sync down writes records into: which sObject's records, under which id field, and
/// the fields it asks for. What the TUI needs to give a soup its tab, and the sync down to know
/// which soups a bulk load and ghost cleaning cover.
public struct FilledSoup: Sendable, Equatable {
    public var soupName: String
    /// `nil` when the target does not say (a SOSL query returning several objects).
    public var sobjectType: String?
    public var idFieldName: String
    /// The fields fetched, as written in the target (a SOQL select list's plain fields).
    public var fields: [String]
    /// False for the metadata and layout targets: the soup gets a description of the sObject,
    /// not its records.
    public var holdsRecords: Bool

    public init(soupName: String, sobjectType: String?, idFieldName: String, fields: [String], holdsRecords: Bool = true) {
        self.soupName = soupName
        self.sobjectType = sobjectType
        self.idFieldName = idFieldName
        self.fields = fields
        self.holdsRecords = holdsRecords
    }
}

extension SyncDownTarget {
    /// The soups this target fills, the sync's own (`soupName`) first.
    public func filledSoups(soupName: String) -> [FilledSoup] {
        switch kind {
        case let .soql(query, _):
            let soql = SoqlQuery(query)
            let fields = soql.selectFields.filter { !$0.contains("(") && !$0.contains(" ") }
            return [FilledSoup(soupName: soupName, sobjectType: Self.firstWord(of: soql[.from]), idFieldName: idFieldName, fields: fields)]
        case let .sosl(query):
            return [FilledSoup(soupName: soupName, sobjectType: Self.soslReturnedType(query), idFieldName: idFieldName, fields: [])]
        case let .mru(sobjectType, fieldlist):
            return [FilledSoup(soupName: soupName, sobjectType: sobjectType, idFieldName: idFieldName, fields: fieldlist)]
        case let .refresh(sobjectType, fieldlist, _, _):
            return [FilledSoup(soupName: soupName, sobjectType: sobjectType, idFieldName: idFieldName, fields: fieldlist)]
        case let .parentChildren(spec):
            return [
                FilledSoup(
                    soupName: spec.parent.soupName, sobjectType: spec.parent.sobjectType, idFieldName: spec.parent.idFieldName,
                    fields: spec.parentFieldlist),
                FilledSoup(
                    soupName: spec.children.soupName, sobjectType: spec.children.sobjectType, idFieldName: spec.children.idFieldName,
                    fields: spec.childrenFieldlist),
            ]
        case let .briefcase(infos, _):
            return infos.map {
                FilledSoup(soupName: $0.soupName, sobjectType: $0.sobjectType, idFieldName: $0.idFieldName, fields: $0.fieldlist)
            }
        case let .metadata(sobjectType):
            return [FilledSoup(soupName: soupName, sobjectType: sobjectType, idFieldName: idFieldName, fields: [], holdsRecords: false)]
        case let .layout(request):
            return [FilledSoup(soupName: soupName, sobjectType: request.sobjectType, idFieldName: idFieldName, fields: [], holdsRecords: false)]
        }
    }

    private static func firstWord(of text: String?) -> String? {
        guard let word = text?.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).first else { return nil }
        return String(word)
    }

    /// The object of `RETURNING X` or `RETURNING X(...)` when it is the only one.
    static func soslReturnedType(_ query: String) -> String? {
        guard let range = query.range(of: "returning", options: .caseInsensitive) else { return nil }
        let rest = query[range.upperBound...].trimmingCharacters(in: .whitespaces)
        // Objects are separated by commas outside parentheses.
        var depth = 0
        var objects: [String] = []
        var current = ""
        for character in rest {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if character == ",", depth == 0 {
                objects.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        objects.append(current)
        guard objects.count == 1 else { return nil }
        let name = objects[0].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }
}
