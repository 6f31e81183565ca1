import ForceJSON
import GRDB
import Testing

@testable import SmartStore

@Suite("Smart SQL translation and queries")
struct SmartSqlTests {
    let temporary: TemporaryStore
    var store: SmartStore { temporary.store }

    init() throws {
        temporary = try Employees.make()
        try Employees.load(into: temporary.store)
    }

    func convert(_ sql: String) throws -> String { try store.convertSmartSql(sql) }

    @Test func simpleConversion() throws {
        #expect(
            try convert("select {employees:firstName}, {employees:lastName} from {employees} order by {employees:lastName}")
                == "select TABLE_1_0, TABLE_1_1 from TABLE_1 order by TABLE_1_1")
        #expect(try convert("select {departments:name} from {departments}") == "select TABLE_2_1 from TABLE_2")
    }

    @Test func joinsKeepAliasesAndUnqualifiedColumns() throws {
        #expect(
            try convert("select mgr.{employees:lastName}, e.{employees:lastName} from {employees} as mgr, {employees} as e where mgr.{employees:employeeId} = e.{employees:managerId}")
                == "select mgr.TABLE_1_1, e.TABLE_1_1 from TABLE_1 as mgr, TABLE_1 as e where mgr.TABLE_1_3 = e.TABLE_1_4")
        #expect(
            try convert("select {employees:lastName}, {departments:name} from {employees}, {departments} where {departments:deptCode} = {employees:deptCode}")
                == "select TABLE_1_1, TABLE_2_1 from TABLE_1, TABLE_2 where TABLE_2_0 = TABLE_1_2")
    }

    @Test func specialColumns() throws {
        #expect(
            try convert("select {employees:_soupEntryId}, {employees:_soupCreatedDate}, {employees:_soupLastModifiedDate}, {employees:_soup} from {employees}")
                == "select TABLE_1.id, TABLE_1.created, TABLE_1.lastModified, TABLE_1.soup from TABLE_1")
        #expect(
            try convert("select e.{employees:_soup}, e.{employees:_soupEntryId} from {employees} as e")
                == "select e.soup, e.id from TABLE_1 as e")
    }

    @Test func json1AndUnindexedPaths() throws {
        #expect(
            try convert("select {employees:education}, {employees:address.zipcode} from {employees} where {employees:address.city} = 'San Francisco'")
                == "select json_extract(soup, '$.education'), json_extract(soup, '$.address.zipcode') from TABLE_1 where json_extract(soup, '$.address.city') = 'San Francisco'")
        #expect(
            try convert("select {employees}.{employees:education} from {employees}")
                == "select json_extract(TABLE_1.soup, '$.education') from TABLE_1")
        #expect(
            try convert("select mgr.{employees:education}, e.{employees:isManager} from {employees} as mgr, {employees} as e")
                == "select json_extract(mgr.soup, '$.education'), json_extract(e.soup, '$.isManager') from TABLE_1 as mgr, TABLE_1 as e")
    }

    @Test func quotedBracesAreLeftAlone() throws {
        #expect(
            try convert("select {employees:lastName} from {employees} where {employees:lastName} like 'Account(where: {Name: {eq: \"Jason\"}})'")
                == "select TABLE_1_1 from TABLE_1 where TABLE_1_1 like 'Account(where: {Name: {eq: \"Jason\"}})'")
        #expect(try convert("select '{a:b}', {employees:lastName} from {employees}") == "select '{a:b}', TABLE_1_1 from TABLE_1")
        #expect(try convert("select ' { { { } } ', 'it''s {x}' from {employees}") == "select ' { { { } } ', 'it''s {x}' from TABLE_1")
        #expect(try convert("select 1 where x match '{employees:lastName}:Haas'") == "select 1 where x match 'TABLE_1_1:Haas'")
    }

    @Test func otherSqlPassesThrough() throws {
        let sql = "select count(*) from sqlite_master where type = 'table' and name like 'TABLE%'"
        #expect(try convert(sql) == sql)
    }

    @Test func writesAreRefused() throws {
        for statement in [
            "insert into {employees} values (1)", "  UPDATE {employees} set soup = ''", "delete from {employees}",
            "DROP TABLE {employees}", "select 1; delete from {employees}", "PRAGMA user_version = 3",
            "WITH x AS (SELECT 1) DELETE FROM {employees} WHERE id IN x",
        ] {
            #expect(throws: SmartStoreError.self, "\(statement)") { try store.query(.smart(statement)) }
        }
        #expect(try store.count(.all("employees")) == 7)
        #expect(throws: SmartStoreError.smartSql(SmartSqlError(.notSelect, position: 1))) {
            try store.query(.smart("delete from {employees}"))
        }
    }

    @Test func errorsNameTheSoupOrPosition() throws {
        #expect(throws: SmartStoreError.smartSql(SmartSqlError(.unknownSoup("nope"), position: 15))) {
            try store.query(.smart("select * from {nope}"))
        }
        #expect(throws: SmartStoreError.smartSql(SmartSqlError(.invalidReference("a:b:c"), position: 8))) {
            try store.query(.smart("select {a:b:c} from {employees}"))
        }
        // A reference left open: named at its brace, not as whatever SQLite makes of the rest.
        #expect(throws: SmartStoreError.smartSql(SmartSqlError(.unclosedBrace, position: 8))) {
            try store.query(.smart("select {employees:_soup from {employees}"))
        }
        #expect(throws: SmartStoreError.smartSql(SmartSqlError(.unclosedBrace, position: 15))) {
            try store.query(.smart("select * from {employees"))
        }
        #expect(
            SmartSqlError(.unclosedBrace, position: 8).description
                == "The { at character 8 is not closed: write {soup}, {soup:path} or {soup:_soup}")
        do {
            _ = try store.query(.smart("select {employees:lastName} from {employees} order {employees:lastName}"))
            Issue.record("a syntax error must throw")
        } catch let SmartStoreError.smartSql(error) {
            #expect(error.description.contains("syntax error"))
            #expect(error.position == 52, "the position counts in the Smart SQL as written: \(error)")
        }
        do {
            _ = try store.query(.smart("select {employees:lastName} from {employees} where nosuch = 1"))
            Issue.record("an unknown column must throw")
        } catch let SmartStoreError.smartSql(error) {
            #expect(error.description.contains("no such column: nosuch"))
            #expect(error.position == 52)
        }
        #expect(throws: SmartStoreError.whereArgsNotAllowed) {
            try store.query(.all("employees"), arguments: ["x"])
        }
    }

    @Test func countsSumsAndRowShapes() throws {
        #expect(try store.query(.smart("select count(*) from {employees}")) == [[7]])
        #expect(try store.query(.smart("select sum({departments:budget}) from {departments}")) == [[3_500_000]])
        #expect(try store.query(.smart("select count(*), max({employees:salary}) from {employees}")) == [[7, 200_000]])
        #expect(
            try store.query(.smart("select {employees:salary} from {employees} where {employees:salary} > 110000 order by {employees:salary}"))
                == [[120_000], [200_000]])
        let mixed = try store.query(.smart("select {employees:_soup}, {employees:firstName}, {employees:salary} from {employees} where {employees:lastName} = 'Haas'"))
        let row = try #require(mixed.first?.arrayValue)
        #expect(row.count == 3)
        #expect(row[0]["lastName"] == "Haas", "a soup column comes back as a parsed document")
        #expect(Array(row[1...]) == ["Christine", 200_000])
    }

    @Test func joinedSoupColumnsAreBothParsed() throws {
        let rows = try store.query(
            .smart(
                """
                select {employees:_soup}, {departments:_soup} from {employees}, {departments} \
                where {employees:deptCode} = {departments:deptCode} and {employees:lastName} = 'Kwan'
                """))
        let row = try #require(rows.first?.arrayValue)
        #expect(row[0]["lastName"] == "Kwan")
        #expect(row[1]["name"] == "Sales")
    }

    @Test func pagingWalksEveryRowOnce() throws {
        let spec = QuerySpec.smart("select {employees:lastName} from {employees} order by {employees:lastName}", pageSize: 1)
        var names: [JSONValue] = []
        for page in 0..<8 { names += try store.query(spec, pageIndex: page) }
        #expect(names == [["Geyer"], ["Haas"], ["Henderson"], ["Kwan"], ["Pulaski"], ["Stern"], ["Thompson"]])
        #expect(try store.count(spec) == 7)
        #expect(try store.count(.smart("select {employees:deptCode} from {employees} group by {employees:deptCode}")) == 3)
    }

    @Test func specialFieldsMatchTheDocument() throws {
        let rows = try store.query(.smart("select {employees:_soupEntryId}, {employees:_soupLastModifiedDate}, {employees:_soup} from {employees} where {employees:lastName} = 'Stern'"))
        let row = try #require(rows.first?.arrayValue)
        #expect(row[0] == row[2]["_soupEntryId"])
        #expect(row[1] == row[2]["_soupLastModifiedDate"])
    }

    @Test func nullAndEmptyString() throws {
        _ = try store.create([["lastName": "Missing"], ["lastName": "Null", "firstName": .null, "education": .null], ["lastName": "Empty", "firstName": "", "education": ""]], in: "employees")
        let isNull = try store.query(.smart("select {employees:lastName} from {employees} where {employees:firstName} is null order by {employees:lastName}"))
        #expect(isNull == [["Missing"], ["Null"]])
        let empty = try store.query(.smart("select {employees:lastName} from {employees} where {employees:firstName} = ''"))
        #expect(empty == [["Empty"]])
        let json1Null = try store.query(.smart("select {employees:lastName} from {employees} where {employees:education} is null order by {employees:lastName}"))
        #expect(json1Null == [["Missing"], ["Null"]])
    }

    @Test func booleansInJson1CompareAsOneAndZero() throws {
        let managers = try store.query(.smart("select {employees:lastName} from {employees} where {employees:isManager} = 1 order by {employees:lastName}"))
        #expect(managers == [["Geyer"], ["Haas"]])
        #expect(try store.count(.exact("employees", path: "isManager", matchKey: false)) == 5)
    }

    @Test func nonAsciiLike() throws {
        _ = try store.create(["lastName": "Doğan", "education": "Boğaziçi", "address": ["city": "İstanbul ğ"]], in: "employees")
        #expect(try store.query(.smart("select {employees:lastName} from {employees} where {employees:lastName} like '%ğ%'")) == [["Doğan"]])
        #expect(try store.query(.smart("select {employees:lastName} from {employees} where {employees:education} like '%ğ%'")) == [["Doğan"]])
        #expect(try store.query(.smart("select {employees:lastName} from {employees} where {employees:address.city} like '%ğ%'")) == [["Doğan"]])
    }

    @Test func unindexedPathsInWhereAndSelect() throws {
        _ = try store.create(["lastName": "Elsewhere", "address": ["city": "Paris", "zipcode": "75001"]], in: "employees")
        let rows = try store.query(.smart("select {employees:lastName}, {employees:address.zipcode} from {employees} where {employees:address.city} = 'Paris'"))
        #expect(rows == [["Elsewhere", "75001"]])
    }

    @Test func whereArgsBindToPlaceholders() throws {
        let rows = try store.query(
            .smart("select {employees:lastName} from {employees} where {employees:deptCode} = ? and {employees:salary} >= ? order by {employees:lastName}"),
            arguments: ["B00", 100_000])
        #expect(rows == [["Geyer"], ["Stern"]])
    }

    @Test func builtSpecsReturnDocumentsInOrder() throws {
        let byRange = try store.query(.range("employees", path: "salary", beginKey: 90_000, endKey: 110_000, orderPath: "lastName", pageSize: 10))
        #expect(byRange.map { $0["lastName"] } == ["Geyer", "Kwan", "Stern"])
        let byLike = try store.query(.like("employees", path: "lastName", likeKey: "H%", orderPath: "lastName", order: .descending))
        #expect(byLike.map { $0["lastName"] } == ["Henderson", "Haas"])
        let selected = try store.query(.exact("employees", path: "deptCode", matchKey: "C00", selectPaths: ["firstName", "lastName"]))
        #expect(selected == [["Eileen", "Henderson"]])
    }

    @Test func indexedQueriesUseTheirIndex() throws {
        let detail = try temporary.raw { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT soup FROM TABLE_1 WHERE TABLE_1_1 = 'Haas'").map { $0["detail"] as String }
        }
        #expect(detail.joined().contains("TABLE_1_1_idx"))
        let json1 = try temporary.raw { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT soup FROM TABLE_1 WHERE json_extract(soup, '$.education') = 'MIT'").map { $0["detail"] as String }
        }
        #expect(json1.joined().contains("TABLE_1_6_idx"))
    }

    @Test func longQueriesConvertInLinearTime() throws {
        let padding = String(repeating: "x", count: 60)
        let clause = (0..<300).map { "{employees:lastName} = '\(padding)\($0)'" }.joined(separator: " or ")
        let sql = "select {employees:_soup} from {employees} where \(clause)"
        #expect(sql.count > 25_000)
        let converted = try convert(sql)
        #expect(converted.hasPrefix("select TABLE_1.soup from TABLE_1 where TABLE_1_1 = '\(padding)0' or"))
        #expect(try store.query(.smart(sql)).isEmpty)
    }
}
