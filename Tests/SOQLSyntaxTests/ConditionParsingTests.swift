import Testing

@testable import SOQLSyntax

/// `SOQLParser.parseCondition`: one WHERE condition and nothing else, as a subscription's `--where`
/// has to be before forceterm puts it into a query of its own.
@Suite struct ConditionParsingTests {
    @Test func aComparisonKeepsItsFieldAndValue() throws {
        let condition = try SOQLParser.parseCondition("MailingCity = 'Zürich'")
        guard case let .comparison(field, comparison, .string(value, _), _) = condition else {
            Issue.record("expected a comparison, got \(condition)")
            return
        }
        #expect(field.text == "MailingCity")
        #expect(comparison == .equal)
        #expect(value == "Zürich")
    }

    @Test func nestedConditionsParseAsOneTree() throws {
        let condition = try SOQLParser.parseCondition("MailingCity = 'Bern' AND (Title LIKE 'Head%' OR NOT Title = null) AND AccountId IN ('001000000000001AAA')")
        guard case let .and(operands) = condition else {
            Issue.record("expected AND at the top, got \(condition)")
            return
        }
        #expect(operands.count == 3)
        guard case .or = operands[1] else {
            Issue.record("expected the parenthesised OR second, got \(operands[1])")
            return
        }
    }

    /// Text that closes the condition it is put in and opens another, or adds a clause, is refused
    /// at the token where the one condition ends.
    @Test(arguments: [
        ("1=1) OR (Name != null", 0, "unexpected token: '1'"),
        ("Name = 'a') OR (Name != null", 10, "unexpected token: ')'"),
        ("Name = 'a' ORDER BY Name", 11, "unexpected token: 'ORDER'"),
        ("Name = 'a' LIMIT 1", 11, "unexpected token: 'LIMIT'"),
        ("Name = 'a' AND Title = 'b' OR Title = 'c'", 27, "unexpected token: 'OR'"),
        ("", 0, "unexpected token: <EOF>"),
    ])
    func textThatIsNotOneConditionIsRefused(text: String, offset: Int, detail: String) throws {
        let error = try #require(throws: SOQLError.self) { try SOQLParser.parseCondition(text) }
        #expect(error.errorCode == "MALFORMED_QUERY")
        #expect(error.detail == detail)
        #expect(error.offset == offset)
    }

    @Test func aSubqueryStillParsesForTheCallerToJudge() throws {
        let condition = try SOQLParser.parseCondition("AccountId IN (SELECT Id FROM Account WHERE Name = 'x')")
        guard case .inSubquery = condition else {
            Issue.record("expected a semi-join, got \(condition)")
            return
        }
    }

    /// A condition nested a hundred deep parses; deeper is refused with the reason instead of
    /// overflowing the stack (`make fuzz` found 729 `(` crashing the parser).
    @Test func nestingHasALimit() throws {
        let deep = String(repeating: "(", count: SOQLParser.maximumNesting) + "Name = 'a'" + String(repeating: ")", count: SOQLParser.maximumNesting)
        _ = try SOQLParser.parseCondition(deep)
        let nots = String(repeating: "NOT ", count: SOQLParser.maximumNesting) + "Name = 'a'"
        _ = try SOQLParser.parseCondition(nots)
        for text in ["(" + deep + ")", "NOT " + nots, String(repeating: "(", count: 5000), "SELECT Id FROM Contact WHERE " + String(repeating: "(", count: 5000)] {
            #expect {
                _ = text.hasPrefix("SELECT") ? try SOQLParser.parse(text).condition : try SOQLParser.parseCondition(text)
            } throws: { error in
                (error as? SOQLError)?.detail == "conditions nested more than 100 deep; write fewer parentheses"
            }
        }
    }
}
