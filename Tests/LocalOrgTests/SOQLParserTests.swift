import ForceJSON
import SOQLSyntax
import Testing

@testable import LocalOrg

@Suite struct SOQLParserTests {
    static let schema: OrgSchema = {
        do { return try OrgSchema.bundled() } catch { fatalError("schema: \(error)") }
    }()

    func compile(_ text: String, includeDeleted: Bool = false) throws -> CompiledSOQL {
        try SOQLCompiler.compile(try SOQLParser.parse(text), schema: Self.schema, includeDeleted: includeDeleted, now: 1_704_164_645)
    }

    func compileError(_ text: String) -> SOQLError? {
        do {
            _ = try compile(text)
            return nil
        } catch let error as SOQLError { return error } catch { return nil }
    }

    @Test func valuesBecomeArgumentsAndNeverSQLText() throws {
        let hostile = "x' OR 1=1; DROP TABLE sobject_Contact; --"
        let compiled = try compile("SELECT Id FROM Contact WHERE LastName = '\(hostile.replacingOccurrences(of: "'", with: "\\'"))' AND Email LIKE 'a\\%b%'")
        #expect(!compiled.idsSQL.contains("DROP"))
        #expect(!compiled.idsSQL.contains("OR 1=1"))
        #expect(compiled.idsArguments.contains(hostile.databaseValue))
        #expect(compiled.idsArguments.contains("a\\%b%".databaseValue))
    }

    @Test(arguments: ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05+00:00", "2024-01-02T03:04:05.000+0000"])
    func datetimeLiteralsInEveryFormCompileToTheSameInstant(literal: String) throws {
        let compiled = try compile("SELECT Id FROM Contact WHERE LastModifiedDate > \(literal)")
        #expect(compiled.idsArguments == [Int64(1_704_164_645).databaseValue])
    }

    @Test func stringEscapesAreDecoded() throws {
        let compiled = try compile(#"SELECT Id FROM Contact WHERE LastName = 'O\'Brien \\ \n'"#)
        #expect(compiled.idsArguments == ["O'Brien \\ \n".databaseValue])
    }

    @Test func malformedQueriesPointAtTheCulprit() throws {
        let error = try #require(compileError("SELECT Id FRM Contact"))
        #expect(error.errorCode == "MALFORMED_QUERY")
        #expect(error.message(for: "SELECT Id FRM Contact") == "\nSELECT Id FRM Contact\n          ^\nERROR at Row:1:Column:11\nunexpected token: 'FRM'")
    }

    @Test func unknownFieldsAndObjectsAreNamed() throws {
        let field = try #require(compileError("SELECT Id, Foo FROM Contact"))
        #expect(field.errorCode == "INVALID_FIELD")
        #expect(field.detail.hasPrefix("No such column 'Foo' on entity 'Contact'."))
        #expect(field.offset == 11)
        let object = try #require(compileError("SELECT Id FROM Widget"))
        #expect(object.errorCode == "INVALID_TYPE")
        let relationship = try #require(compileError("SELECT Nope.Name FROM Contact"))
        #expect(relationship.detail.hasPrefix("Didn't understand relationship 'Nope'"))
    }

    @Test(arguments: [
        "SELECT Id FROM Contact WHERE LastName = 'a' AND FirstName = 'b' OR Title = 'c'",
        "SELECT Id FROM Contact WHERE",
        "SELECT Id FROM Contact LIMIT -1",
        "SELECT Id FROM Contact WHERE LastName = 'unterminated",
        "SELECT Id FROM Contact OFFSET 2001",
        "SELECT Id, Id FROM Contact",
        "SELECT FROM Contact",
        "SELECT Id FROM Contact WHERE LastName LIKE 5",
    ])
    func badSyntaxIsRejected(text: String) {
        #expect(compileError(text) != nil)
    }

    @Test func typeMismatchesAreReportedLikeSalesforce() throws {
        let quotedDate = try #require(compileError("SELECT Id FROM Contact WHERE CreatedDate > '2024-01-01T00:00:00Z'"))
        #expect(quotedDate.errorCode == "INVALID_QUERY_FILTER_OPERATOR")
        #expect(quotedDate.detail == "value of filter criterion for field 'CreatedDate' must be of type dateTime and should not be enclosed in quotes")
        let badId = try #require(compileError("SELECT Id FROM Contact WHERE AccountId = 'nope'"))
        #expect(badId.detail == "invalid ID field: nope")
    }

    @Test func parentFieldsJoinTheParentOnce() throws {
        let compiled = try compile("SELECT Account.Name, Account.Industry, Owner.Name FROM Contact WHERE Account.Name LIKE 'A%' ORDER BY Account.Name")
        #expect(compiled.idsSQL.components(separatedBy: "LEFT JOIN").count == 3)
    }
}
