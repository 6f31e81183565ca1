import Foundation
import SOQLSyntax

/// A subscription's `--where`, checked offline before anything is stored: one SOQL condition,
/// over fields the soup's sync down already asks for, that the user may read and Salesforce lets
/// a WHERE filter on. The describe is the one a metadata sync stored, or else the org's answer
/// now; either is the signed-in user's (a field their profile hides is not in it).
public struct SubscriptionCondition: Sendable, Equatable {
    public var text: String
    /// Whether the set it selects changes only when one of its records is saved: it names only
    /// the object's own stored fields (no relationship path, no formula) and no relative date
    /// (`TODAY`, `LAST_N_DAYS:7`). Only then do equal counts on both sides say nothing changed.
    public var isSelfContained: Bool

    /// Checks `text` as a condition on `object` for the subscription `name`. `allowed` is what the
    /// soup's sync down asks for (`SubscriptionBase`); `described` the stored describe, or the org's.
    public static func validate(
        _ text: String, name: String, object: String, allowed: [String], described: DescribedFields?
    ) throws(MobileSyncError) -> SubscriptionCondition {
        func refuse(_ reason: String) -> MobileSyncError { .invalidSubscription(name: name, reason: reason) }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw refuse("the condition is empty; give one SOQL condition, such as MailingCity = 'Zürich'") }
        let condition: SOQLCondition
        do {
            condition = try SOQLParser.parseCondition(trimmed)
        } catch {
            throw refuse(
                "\"\(trimmed)\" is not one SOQL condition (\(error.detail) at character \(error.offset + 1)); write one condition, "
                    + "with parentheses around a mix of AND and OR")
        }
        guard let described else {
            throw refuse(
                "forceterm has no description of \(object) to check the fields against: the config keeps none (a metadata sync does) "
                    + "and the org could not be asked; subscribe while online, without --no-wait")
        }
        var selfContained = true
        var paths: [SOQLFieldPath] = []
        var literals: [SOQLLiteral] = []
        try collect(condition, paths: &paths, literals: &literals, refuse: refuse)
        let allowedNames = Set(allowed.map { $0.lowercased() })
        for path in paths {
            let field = path.text
            guard described.isReadable(field) else {
                throw refuse("\(object) has no field \(field), or your profile does not let you read it")
            }
            guard allowedNames.contains(field.lowercased()) else {
                throw refuse(
                    "the sync of \(object) does not fetch \(field), so the records held could not show it; "
                        + "use one of its fields: \(allowed.sorted().joined(separator: ", "))")
            }
            if path.components.count > 1 {
                selfContained = false
                continue
            }
            guard described.canFilter(field) else {
                throw refuse("\(object).\(field) cannot be filtered: Salesforce refuses a long text area or an unfilterable field in a WHERE")
            }
            if described.field(field)?.calculated == true { selfContained = false }
        }
        if literals.contains(where: { if case .relativeDate = $0 { true } else { false } }) { selfContained = false }
        return SubscriptionCondition(text: trimmed, isSelfContained: selfContained)
    }

    /// Every field path and literal of `condition`; refuses what a subscription cannot hold.
    private static func collect(
        _ condition: SOQLCondition, paths: inout [SOQLFieldPath], literals: inout [SOQLLiteral], refuse: (String) -> MobileSyncError
    ) throws(MobileSyncError) {
        switch condition {
        case let .and(operands), let .or(operands):
            for operand in operands { try collect(operand, paths: &paths, literals: &literals, refuse: refuse) }
        case let .not(inner):
            try collect(inner, paths: &paths, literals: &literals, refuse: refuse)
        case let .comparison(path, _, literal, _), let .like(path, literal, _):
            paths.append(path)
            literals.append(literal)
        case let .inList(path, _, values, _):
            paths.append(path)
            literals += values
        case .inSubquery:
            throw refuse("a subquery (IN (SELECT …)) cannot select a subscription's records; list the values instead")
        case .aggregateComparison:
            throw refuse("an aggregate (COUNT(), SUM(), …) belongs in HAVING, not in a subscription's condition")
        }
    }
}
