import ForceJSON
import Testing

@testable import SmartStore

@Suite("Query specs generate the SDK's Smart SQL")
struct QuerySpecTests {
    @Test func allQuery() {
        let spec = QuerySpec.all("employees", orderPath: "lastName", order: .descending)
        #expect(spec.smartSql == "SELECT {employees:_soup} FROM {employees} ORDER BY {employees:lastName} DESC ")
        #expect(spec.countSmartSql == "SELECT count(*) FROM {employees} ")
        #expect(spec.idsSmartSql == "SELECT id FROM {employees} ORDER BY {employees:lastName} DESC ")
        #expect(QuerySpec.all("employees").smartSql == "SELECT {employees:_soup} FROM {employees} ")
    }

    @Test func allQueryWithSelectPaths() {
        let spec = QuerySpec.all("employees", selectPaths: ["firstName", "lastName"], orderPath: "lastName", order: .descending)
        #expect(spec.smartSql == "SELECT {employees:firstName}, {employees:lastName} FROM {employees} ORDER BY {employees:lastName} DESC ")
        #expect(spec.returnsRows)
    }

    @Test func rangeQuery() {
        let spec = QuerySpec.range("employees", path: "lastName", beginKey: "Bond", endKey: "Smith", orderPath: "lastName")
        #expect(spec.smartSql == "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC ")
        #expect(spec.countSmartSql == "SELECT count(*) FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ")
        #expect(QuerySpec.range("e", path: "p", beginKey: "a", endKey: nil).smartSql == "SELECT {e:_soup} FROM {e} WHERE {e:p} >= ? ")
        #expect(QuerySpec.range("e", path: "p", beginKey: nil, endKey: "z").smartSql == "SELECT {e:_soup} FROM {e} WHERE {e:p} <= ? ")
    }

    @Test func exactAndLikeQueries() {
        #expect(
            QuerySpec.exact("employees", path: "lastName", matchKey: "Bond", orderPath: "firstName").smartSql
                == "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} = ? ORDER BY {employees:firstName} ASC ")
        #expect(
            QuerySpec.like("employees", path: "lastName", likeKey: "Bon%", orderPath: "firstName").smartSql
                == "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} LIKE ? ORDER BY {employees:firstName} ASC ")
        #expect(
            QuerySpec.exact("employees", path: "lastName", matchKey: "Bond").idsSmartSql
                == "SELECT id FROM {employees} WHERE {employees:lastName} = ? ")
    }

    @Test func matchQuery() {
        let spec = QuerySpec.match("employees", path: "lastName", matchKey: "Bond", orderPath: "firstName")
        #expect(
            spec.smartSql
                == "SELECT {employees:_soup} FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ORDER BY {employees:firstName} ASC "
        )
        let allFields = QuerySpec.match("employees", path: nil, matchKey: "Bond", selectPaths: ["_soupEntryId"])
        #expect(allFields.smartSql == "SELECT {employees:_soupEntryId} FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH 'Bond') ")
    }

    @Test func matchKeysCannotLeaveTheirLiteral() {
        let spec = QuerySpec.match("e", path: nil, matchKey: "x') OR 1=1 --")
        #expect(spec.smartSql.contains("MATCH 'x'') OR 1=1 --')"))
    }

    @Test func smartQueryWrapping() {
        let sql = "SELECT {e:name} FROM {e} GROUP BY {e:dept}"
        #expect(QuerySpec.smart(sql).countSmartSql == "SELECT count(*) FROM (\(sql))")
        #expect(QuerySpec.smart(sql).idsSmartSql == "SELECT id FROM (\(sql))")
        #expect(QuerySpec.smart(sql, pageSize: 0).pageSize == QuerySpec.defaultPageSize)
    }

    @Test(arguments: [
        ("abc", "{soup:path}:abc"),
        ("abc def", "{soup:path}:abc {soup:path}:def"),
        ("abc AND def", "{soup:path}:abc AND {soup:path}:def"),
        ("abc OR def", "{soup:path}:abc OR {soup:path}:def"),
        ("abc NOT def", "{soup:path}:abc NOT {soup:path}:def"),
        ("(abc AND def) OR ghi", "({soup:path}:abc AND {soup:path}:def) OR {soup:path}:ghi"),
        ("{soup:other}:abc def", "{soup:other}:abc {soup:path}:def"),
        ("abc* and (def or ghi)", "{soup:path}:abc* and ({soup:path}:def or {soup:path}:ghi)"),
    ])
    func qualifyMatchKey(key: String, expected: String) {
        #expect(QuerySpec.qualifyMatchKey("{soup:path}", key) == expected)
    }
}
