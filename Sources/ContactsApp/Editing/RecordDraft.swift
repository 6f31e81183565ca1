import ForceJSON
import SalesforceIds
import SmartStore

/// A local change written as `Field=text` pairs (a script's `forceterm create`, a row of an
/// imported file), checked by the same rules as the edit form and turned into the values the form
/// would save. Fields are named by their API name or their label, in any case; a lookup takes the
/// id or the name of the record it points at; a record type its id or its label.
public struct RecordDraft: Sendable {
    public let schema: RecordSchema
    public let store: SmartStore
    /// Names of accounts (lowercased) created by the same import, not in the store yet → their
    /// local ids, so an imported contact can point at an imported account.
    public var pendingNames: [RecordKind: [String: String]] = [:]

    public init(schema: RecordSchema, store: SmartStore) {
        self.schema = schema
        self.store = store
    }

    /// One reason a value cannot be saved, naming the field (nil: the whole record) and what to do.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let field: String?
        public let message: String
        public var description: String { message }
    }

    /// Every problem of one record, in field order.
    public struct Problems: Error, Equatable, Sendable, CustomStringConvertible {
        public let problems: [Problem]
        public var description: String { problems.map(\.message).joined(separator: "; ") }
    }

    /// The values to save for a new record of `kind` (`record` nil) or an edit of `record`; throws
    /// `Problems` with every problem found. A field left out keeps its value; an empty text clears it.
    public func values(kind: RecordKind, record: LocalRecord?, texts: [(field: String, text: String)]) throws -> JSONObject {
        let purpose: RecordForm.Purpose = record.map { .edit(entryId: $0.entryId) } ?? .create(preset: [:])
        var form = schema.form(kind: kind, purpose: purpose, title: "", record: record)
        var problems: [Problem] = []
        for (given, text) in texts {
            guard let field = Self.field(named: given, in: form) else {
                let names = form.fields.map(\.name).joined(separator: ", ")
                problems.append(Problem(field: given, message: "\(kind.plural) have no field \(given) that the sync sends; they have \(names)"))
                continue
            }
            var value = text
            if let target = field.lookup {
                switch resolve(text, in: target) {
                case let .success(id): value = id
                case let .failure(problem):
                    problems.append(Problem(field: field.name, message: "\(field.rule.label): \(problem.message)"))
                    continue
                }
            } else if let address = form.description?.addressChoices(for: field.name), field.name.hasSuffix("Country"),
                !text.trimmingWhitespace.isEmpty
            {
                // The org takes only its own countries: a code or a name in any language is
                // mapped to its label here, before anything is queued, when it names one country.
                switch address.country(text) {
                case let .country(entry): value = entry.label
                case let .ambiguous(entries):
                    problems.append(
                        Problem(
                            field: field.name,
                            message: "\(field.rule.label): \(text) may be "
                                + entries.map(\.label).joined(separator: " or ") + "; give the one you mean"))
                    continue
                case let .unknown(suggestions):
                    let hint =
                        suggestions.isEmpty
                        ? "give its name as the org has it (e.g. Germany) or its ISO code (DE)"
                        : "did you mean " + suggestions.map(\.label).joined(separator: ", ") + "?"
                    problems.append(Problem(field: field.name, message: "\(field.rule.label): \(text) is not one of the org's countries; \(hint)"))
                    continue
                }
            } else if field.rule.format == .recordType, let description = form.description {
                let wanted = text.trimmingWhitespace
                guard let type = description.recordTypes.first(where: { $0.id == wanted || $0.label.caseInsensitiveCompare(wanted) == .orderedSame }) else {
                    let labels = description.recordTypes.map(\.label).joined(separator: ", ")
                    problems.append(Problem(field: field.name, message: "Record Type: \(wanted) is not one you may pick; pick one of \(labels)"))
                    continue
                }
                value = type.id
            }
            if !form.set(field.name, text: value) {
                problems.append(Problem(field: field.name, message: "\(field.rule.label) is read-only for you in this org; leave it out"))
            }
        }
        // A state by its code or any case becomes the org's label, once its country is known.
        for field in form.fields where field.isChanged {
            guard let states = form.stateChoices(for: field) else { continue }
            if let state = states.first(where: {
                CountryNames.fold($0.label) == CountryNames.fold(field.value)
                    || $0.code.caseInsensitiveCompare(field.value.trimmingWhitespace) == .orderedSame
            }) {
                _ = form.set(field.name, text: state.label)
            }
        }
        if !form.validate() {
            for field in form.fields {
                guard let problem = form.problems[field.name] else { continue }
                let choices = form.choices(for: field).map(\.label)
                var message = problem.replacingOccurrences(of: " (Enter lists them)", with: "")
                if field.lookup != nil || field.rule.format == .recordType { message = "\(field.rule.label) is required" }
                if !choices.isEmpty && field.rule.isChoice { message += "; its values: " + choices.joined(separator: ", ") }
                problems.append(Problem(field: field.name, message: message))
            }
        }
        guard problems.isEmpty else { throw Problems(problems: problems) }
        return form.values
    }

    /// The form's field that `name` means: its API name or its label, any case.
    static func field(named name: String, in form: RecordForm) -> FormField? {
        let wanted = name.trimmingWhitespace
        return form.fields.first { $0.name.caseInsensitiveCompare(wanted) == .orderedSame }
            ?? form.fields.first { $0.rule.label.caseInsensitiveCompare(wanted) == .orderedSame }
    }

    /// The id a lookup's text means: the id of a record of `target` in the store, the name of
    /// exactly one (or of one made by the same import), or a Salesforce id of a record this store
    /// does not hold.
    func resolve(_ text: String, in target: RecordKind) -> Result<String, Problem> {
        let wanted = text.trimmingWhitespace
        guard !wanted.isEmpty else { return .success("") }
        let repository = RecordRepository(store: store, kind: target)
        if repository.holds(id: wanted) { return .success(wanted) }
        var named = (try? repository.records(where: target.sortPath, equals: wanted, limit: 2)) ?? []
        if named.isEmpty { named = (try? repository.records(where: target.sortPath, equalsIgnoringCase: wanted, limit: 2)) ?? [] }
        if named.count == 1, let id = named[0].serverId { return .success(id) }
        if named.count > 1 { return .failure(Problem(field: nil, message: "several \(target.plural) are named \(wanted); give the id (forceterm list \(target.soupName) shows them)")) }
        if let pending = pendingNames[target]?[wanted.lowercased()] { return .success(pending) }
        if SalesforceId.isShapedLikeId(wanted) { return .success(wanted) }
        return .failure(Problem(field: nil, message: "no \(target.singular) named or with the id \(wanted) in this store (forceterm list \(target.soupName) shows them)"))
    }
}
