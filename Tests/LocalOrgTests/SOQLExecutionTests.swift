import ForceJSON
import Testing

@testable import LocalOrg

@Suite struct SOQLExecutionTests {
    /// Four contacts: two at Acme, one at Zeta, one without an account or first name.
    func makeOrg() async throws -> (TestOrg, [String: String]) {
        let org = try await TestOrg()
        let acme = try await org.create("Account", #"{"Name":"Acme","Industry":"Technology"}"#)
        let zeta = try await org.create("Account", #"{"Name":"Zeta GmbH"}"#)
        var ids = ["acme": acme, "zeta": zeta]
        ids["ana"] = try await org.create("Contact", #"{"FirstName":"Ana","LastName":"García","AccountId":"\#(acme)","Email":"ana@example.com"}"#)
        ids["bo"] = try await org.create("Contact", #"{"FirstName":"Bo","LastName":"O'Brien","AccountId":"\#(acme)","Title":"CTO"}"#)
        ids["chen"] = try await org.create("Contact", #"{"FirstName":"伟","LastName":"陈","AccountId":"\#(zeta)","Title":"CEO"}"#)
        ids["dee"] = try await org.create("Contact", #"{"LastName":"Dee 100%"}"#)
        return (org, ids)
    }

    func lastNames(_ body: JSONValue) -> [String] {
        body["records"]?.arrayValue?.compactMap { $0["LastName"]?.stringValue } ?? []
    }

    @Test func filtersOrdersAndPages() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        var result = try await org.query("SELECT LastName FROM Contact WHERE Title IN ('CTO','CEO') ORDER BY LastName DESC")
        #expect(result.status == 200)
        #expect(lastNames(result.body) == ["陈", "O'Brien"])
        result = try await org.query("SELECT LastName FROM Contact WHERE Title NOT IN ('CTO') ORDER BY LastName")
        #expect(lastNames(result.body) == ["Dee 100%", "García", "陈"])  // NOT IN keeps nulls, as in Salesforce
        result = try await org.query("SELECT LastName FROM Contact WHERE Title != 'CEO' ORDER BY Title NULLS LAST, LastName")
        #expect(lastNames(result.body) == ["O'Brien", "Dee 100%", "García"])
        result = try await org.query(#"SELECT LastName FROM Contact WHERE LastName LIKE '%\%'"#)
        #expect(lastNames(result.body) == ["Dee 100%"])
        result = try await org.query("SELECT LastName FROM Contact WHERE (FirstName = null OR Email != null) AND NOT LastName = 'x' ORDER BY LastName LIMIT 1 OFFSET 1")
        #expect(lastNames(result.body) == ["García"])
        #expect(result.body["totalSize"] == 1)
        result = try await org.query("SELECT LastName FROM Contact WHERE lastname = 'GARCíA' OR LastName = 'o\\'brien' ORDER BY LastName")
        #expect(lastNames(result.body) == ["García", "O'Brien"])  // case-insensitive (for ASCII letters, as SQLite's NOCASE)
    }

    @Test func textComparisonsIgnoreTheCaseOfEveryLetterNotOnlyASCII() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        var result = try await org.query("SELECT LastName FROM Contact WHERE LastName = 'GARCÍA'")
        #expect(lastNames(result.body) == ["García"])
        result = try await org.query("SELECT LastName FROM Contact WHERE LastName IN ('GARCÍA', 'o\\'brien') ORDER BY LastName")
        #expect(lastNames(result.body) == ["García", "O'Brien"])
        result = try await org.query("SELECT LastName FROM Contact WHERE LastName LIKE '%CÍ%'")
        #expect(lastNames(result.body) == ["García"])
        result = try await org.query("SELECT LastName FROM Contact WHERE LastName != 'GARCÍA' AND LastName NOT IN ('DEE 100%', 'ÖX') ORDER BY LastName")
        #expect(lastNames(result.body) == ["O'Brien", "陈"])
        result = try await org.query("SELECT LastName FROM Contact WHERE LastName = 'GARCIA'")
        #expect(lastNames(result.body).isEmpty)  // accents still count, as in Salesforce
    }

    @Test func parentFieldsNestAndAreNullWithoutAParent() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        let result = try await org.query("SELECT LastName, Account.Name FROM Contact WHERE Account.Industry = 'Technology' OR AccountId = null ORDER BY LastName")
        let records = try #require(result.body["records"]?.arrayValue)
        #expect(records.count == 3)
        #expect(records[0]["Account"] == .null)
        #expect(records[1]["Account"]?["Name"] == "Acme")
        #expect(records[1]["Account"]?["attributes"]?["type"] == "Account")
        #expect(records[1]["attributes"]?["url"]?.stringValue?.hasPrefix("/services/data/v59.0/sobjects/Contact/003") == true)
    }

    @Test func childSubqueriesNestTheirRecords() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        let result = try await org.query(
            """
            SELECT Name, (SELECT LastName, Account.Name FROM Contacts WHERE Title != null ORDER BY LastName DESC LIMIT 1)
            FROM Account ORDER BY Name
            """)
        #expect(result.status == 200)
        let records = try #require(result.body["records"]?.arrayValue)
        #expect(records.count == 2)
        let acmeContacts = try #require(records[0]["Contacts"])
        #expect(acmeContacts["totalSize"] == 1 && acmeContacts["done"] == true)
        #expect(acmeContacts["records"]?.arrayValue?.first?["LastName"] == "O'Brien")
        #expect(acmeContacts["records"]?.arrayValue?.first?["Account"]?["Name"] == "Acme")
        #expect(records[1]["Contacts"]?["records"]?.arrayValue?.first?["LastName"] == "陈")
        let none = try await org.query("SELECT Name, (SELECT Id FROM Contacts WHERE LastName = 'nobody') FROM Account LIMIT 1")
        #expect(none.body["records"]?.arrayValue?.first?["Contacts"] == .null)
        let unknown = try await org.query("SELECT Name, (SELECT Id FROM Friends) FROM Account")
        #expect(unknown.body.firstErrorCode == "INVALID_TYPE")
        let nested = try await org.query("SELECT Name, (SELECT Id, (SELECT Id FROM Contacts) FROM Contacts) FROM Account")
        #expect(nested.body.firstErrorCode == "MALFORMED_QUERY")
    }

    @Test func countReturnsOnlyTheTotal() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        let result = try await org.query("SELECT COUNT() FROM Contact WHERE AccountId != null")
        #expect(result.body["totalSize"] == 3)
        #expect(result.body["records"] == [])
    }

    @Test func queryAllSeesTheRecycleBin() async throws {
        let (org, ids) = try await makeOrg()
        defer { org.remove() }
        let deleted = await org.call("DELETE", "/services/data/v59.0/sobjects/Account/\(ids["acme"]!)")
        #expect(deleted.status == 204)
        let live = try await org.query("SELECT LastName FROM Contact ORDER BY LastName")
        #expect(lastNames(live.body) == ["Dee 100%", "陈"])  // Acme's contacts went with it (cascade delete)
        let all = try await org.query("SELECT LastName, IsDeleted FROM Contact WHERE IsDeleted = true ORDER BY LastName", all: true)
        #expect(lastNames(all.body) == ["García", "O'Brien"])
    }

    @Test func relativeAndAbsoluteDateLiteralsFilter() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        #expect(try await org.query("SELECT Id FROM Contact WHERE CreatedDate = TODAY").body["totalSize"] == 4)
        #expect(try await org.query("SELECT Id FROM Contact WHERE CreatedDate = LAST_N_DAYS:3").body["totalSize"] == 4)
        #expect(try await org.query("SELECT Id FROM Contact WHERE CreatedDate < YESTERDAY").body["totalSize"] == 0)
        #expect(try await org.query("SELECT Id FROM Contact WHERE CreatedDate > 2020-01-01T00:00:00.000+0000").body["totalSize"] == 4)
        #expect(try await org.query("SELECT Id FROM Contact WHERE CreatedDate > 2999-01-01T00:00:00Z").body["totalSize"] == 0)
    }

    @Test func errorsComeBackAsSalesforceArrays() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        let result = try await org.query("SELECT Bogus FROM Contact")
        #expect(result.status == 400)
        #expect(result.body.firstErrorCode == "INVALID_FIELD")
        #expect(result.body.firstErrorMessage?.contains("ERROR at Row:1:Column:8") == true)
        let missing = await org.call("GET", "/services/data/v59.0/query/")
        #expect(missing.status == 400)
        #expect(try JSONParser.parse(missing.body).firstErrorCode == "MALFORMED_QUERY")
    }

    @Test func largeResultsPageThroughLocatorsWithoutGapsOrRepeats() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        _ = try Seeder.seed(store: org.store, accounts: 5, contacts: 450, randomSeed: 7)
        var seen: [String] = []
        var page = try await org.query("SELECT Id, Name FROM Contact ORDER BY Name", headers: ["Sforce-Query-Options": "batchSize=200"])
        #expect(page.body["totalSize"] == 450)
        while true {
            seen += page.body["records"]?.arrayValue?.compactMap { $0["attributes"]?["url"]?.stringValue } ?? []
            guard page.body["done"] == false, let next = page.body["nextRecordsUrl"]?.stringValue else { break }
            #expect(next.hasPrefix("/services/data/v59.0/query/01g"))
            let response = await org.call("GET", next)
            page = (response.status, try JSONParser.parse(response.body))
        }
        #expect(seen.count == 450)
        #expect(Set(seen).count == 450)
        let expired = await org.call("GET", "/services/data/v59.0/query/01gLo000000000zAAA-200")
        #expect(try JSONParser.parse(expired.body).firstErrorCode == "INVALID_QUERY_LOCATOR")
    }

    @Test func aggregatesAndGroupBy() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        var result = try await org.query("SELECT COUNT(Id), COUNT_DISTINCT(AccountId) accounts FROM Contact")
        #expect(result.body["records"] == [["attributes": ["type": "AggregateResult"], "expr0": 4, "accounts": 2]])
        result = try await org.query(
            """
            SELECT Account.Name, COUNT(Id) total, MAX(LastName), MIN(CreatedDate) FROM Contact
            WHERE AccountId != null GROUP BY Account.Name ORDER BY COUNT(Id) DESC, Account.Name
            """)
        #expect(result.status == 200)
        let rows = try #require(result.body["records"]?.arrayValue)
        #expect(rows.map { $0["Name"] } == ["Acme", "Zeta GmbH"])
        #expect(rows.map { $0["total"] } == [2, 1])
        #expect(rows[0]["expr0"] == "O'Brien")
        #expect(rows[0]["expr1"]?.stringValue?.hasSuffix(".000+0000") == true)
        #expect(result.body["totalSize"] == 2 && result.body["done"] == true)
        let ungrouped = try await org.query("SELECT LastName, COUNT(Id) FROM Contact GROUP BY Title")
        #expect(ungrouped.body.firstErrorCode == "MALFORMED_QUERY")
        #expect(ungrouped.body.firstErrorMessage?.contains("Field must be grouped or aggregated: LastName") == true)
        let sumOfText = try await org.query("SELECT SUM(LastName) FROM Contact")
        #expect(sumOfText.body.firstErrorCode == "INVALID_FIELD")
        let having = try await org.query("SELECT AccountId, COUNT(Id) FROM Contact GROUP BY AccountId HAVING COUNT(Id) > 1")
        #expect(having.body["records"]?.arrayValue?.map { $0["expr0"] } == [2])
        let havingMax = try await org.query("SELECT AccountId FROM Contact GROUP BY AccountId HAVING MAX(LastName) = 'O\\'Brien'")
        #expect(havingMax.body["totalSize"] == 1)
        let aggregateInWhere = try await org.query("SELECT COUNT(Id) FROM Contact WHERE COUNT(Id) > 1")
        #expect(aggregateInWhere.body.firstErrorCode == "MALFORMED_QUERY")
        let employees = try await org.query("SELECT SUM(NumberOfEmployees), AVG(NumberOfEmployees) FROM Account")
        #expect(employees.body["records"]?.arrayValue?.first?["expr0"] == .null)
    }

    @Test func dateFunctionsFilterGroupAndOrder() async throws {
        let (org, _) = try await makeOrg()
        defer { org.remove() }
        // 1990-03-15 is a Thursday; 1985-03-31 is day 90 of its year; 1990-11-02 is in Q4;
        // 1992-01-07 is the last day of week 1.
        for (last, birthdate) in [("March", "1990-03-15"), ("Late March", "1985-03-31"), ("November", "1990-11-02"), ("January", "1992-01-07")] {
            _ = try await org.create("Contact", #"{"LastName":"\#(last)","Birthdate":"\#(birthdate)"}"#)
        }
        let byYear = try await org.query(
            """
            SELECT CALENDAR_YEAR(Birthdate) born, COUNT(Id) FROM Contact WHERE Birthdate != null
            GROUP BY CALENDAR_YEAR(Birthdate) ORDER BY CALENDAR_YEAR(Birthdate) DESC
            """)
        #expect(
            byYear.body["records"] == [
                ["attributes": ["type": "AggregateResult"], "born": 1992, "expr0": 1],
                ["attributes": ["type": "AggregateResult"], "born": 1990, "expr0": 2],
                ["attributes": ["type": "AggregateResult"], "born": 1985, "expr0": 1],
            ])
        let unaliased = try await org.query(
            "SELECT CALENDAR_QUARTER(Birthdate), COUNT(Id) cnt FROM Contact WHERE Birthdate != null GROUP BY CALENDAR_QUARTER(Birthdate) ORDER BY CALENDAR_QUARTER(Birthdate)")
        #expect(unaliased.body["records"]?.arrayValue?.map { [$0["expr0"], $0["cnt"]] } == [[1, 3], [4, 1]])
        func names(_ condition: String) async throws -> [String] {
            lastNames(try await org.query("SELECT LastName FROM Contact WHERE \(condition) ORDER BY LastName").body)
        }
        #expect(try await names("CALENDAR_MONTH(Birthdate) = 3") == ["Late March", "March"])
        #expect(try await names("DAY_IN_WEEK(Birthdate) = 5") == ["March"], "Sunday is 1, so Thursday is 5")
        #expect(try await names("WEEK_IN_YEAR(Birthdate) = 13 AND DAY_IN_YEAR(Birthdate) = 90") == ["Late March"])
        #expect(try await names("WEEK_IN_YEAR(Birthdate) = 1 AND WEEK_IN_MONTH(Birthdate) = 1") == ["January"], "days 1-7 are week 1")
        #expect(try await names("WEEK_IN_MONTH(Birthdate) = 3 OR DAY_IN_MONTH(Birthdate) = 2") == ["March", "November"])
        #expect(try await names("FISCAL_QUARTER(Birthdate) IN (4) AND FISCAL_YEAR(Birthdate) > 1989") == ["November"])
        // dateTimes, in UTC: every contact was created today.
        let created = try await org.query("SELECT COUNT(Id) FROM Contact WHERE DAY_ONLY(CreatedDate) = TODAY AND HOUR_IN_DAY(CreatedDate) < 24")
        #expect(created.body["records"]?.arrayValue?.first?["expr0"] == 8)
        let textField = try await org.query("SELECT Id FROM Contact WHERE CALENDAR_YEAR(LastName) = 2024")
        #expect(textField.body.firstErrorCode == "INVALID_FIELD")
        #expect(textField.body.firstErrorMessage?.contains("CALENDAR_YEAR() needs a date or dateTime field") == true)
        let hourOfADate = try await org.query("SELECT Id FROM Contact WHERE HOUR_IN_DAY(Birthdate) = 1")
        #expect(hourOfADate.body.firstErrorCode == "INVALID_FIELD")
        let ungrouped = try await org.query("SELECT CALENDAR_YEAR(CreatedDate) FROM Contact")
        #expect(ungrouped.body.firstErrorCode == "MALFORMED_QUERY")
        #expect(ungrouped.body.firstErrorMessage?.contains("needs GROUP BY CALENDAR_YEAR") == true)
        let wrongLiteral = try await org.query("SELECT Id FROM Contact WHERE CALENDAR_YEAR(Birthdate) = '1990'")
        #expect(wrongLiteral.body.firstErrorCode == "INVALID_QUERY_FILTER_OPERATOR")
    }

    @Test func fieldSetsExpandToTheObjectsFields() async throws {
        let (org, ids) = try await makeOrg()
        defer { org.remove() }
        let all = try await org.query("SELECT FIELDS(ALL) FROM Contact WHERE Id = '\(ids["ana"]!)' LIMIT 1")
        let record = try #require(all.body["records"]?.arrayValue?.first?.objectValue)
        #expect(record.keys.contains("ExternalKey__c") && record.keys.contains("LastName") && record.keys.contains("SystemModstamp"))
        let custom = try await org.query("SELECT Id, FIELDS(CUSTOM) FROM Contact LIMIT 200")
        #expect(custom.body["records"]?.arrayValue?.first?.objectValue?.keys.elements == ["attributes", "Id", "ExternalKey__c"])
        let unlimited = try await org.query("SELECT FIELDS(ALL) FROM Contact")
        #expect(unlimited.body.firstErrorCode == "MALFORMED_QUERY")
        let standard = try await org.query("SELECT Id, FIELDS(STANDARD) FROM Contact")
        #expect(standard.body["records"]?.arrayValue?.first?.objectValue?.keys.contains("ExternalKey__c") == false)
    }

    @Test func semiJoinsAndAntiJoins() async throws {
        let (org, ids) = try await makeOrg()
        defer { org.remove() }
        _ = try await org.create("Account", #"{"Name":"Lonely"}"#)
        var result = try await org.query("SELECT Name FROM Account WHERE Id IN (SELECT AccountId FROM Contact WHERE Title = 'CTO')")
        #expect(result.body["records"]?.arrayValue?.map { $0["Name"] } == ["Acme"])
        result = try await org.query("SELECT Name FROM Account WHERE Id NOT IN (SELECT AccountId FROM Contact) ORDER BY Name")
        #expect(result.body["records"]?.arrayValue?.map { $0["Name"] } == ["Lonely"])  // a contact without account must not hide all
        result = try await org.query("SELECT LastName FROM Contact WHERE AccountId IN (SELECT Id FROM Account WHERE Name LIKE 'Ze%')")
        #expect(result.body["records"]?.arrayValue?.map { $0["LastName"] } == ["陈"])
        #expect(ids["zeta"] != nil)
        let bad = try await org.query("SELECT Name FROM Account WHERE Id IN (SELECT LastName FROM Contact)")
        #expect(bad.body.firstErrorCode == "INVALID_FIELD")
        let twoFields = try await org.query("SELECT Name FROM Account WHERE Id IN (SELECT Id, AccountId FROM Contact)")
        #expect(twoFields.body.firstErrorCode == "MALFORMED_QUERY")
    }

    /// What a capped sync down relies on: `ORDER BY LastModifiedDate, Id` with LIMIT and OFFSET
    /// selects the same slice of one total order every time, across pages, whether the query
    /// selects whole records or ids only.
    @Test func orderByModificationThenIdIsTotalAndStableUnderLimitAndOffset() async throws {
        let org = try await TestOrg()
        defer { org.remove() }
        for batch in 0..<2 {  // 400 contacts created within a second or two: many share a modification time
            let records = (0..<200).map { #"{"attributes":{"type":"Contact"},"LastName":"Tie \#(batch)-\#($0)"}"# }
            let created = await org.call("POST", "/services/data/v59.0/composite/sobjects", body: #"{"records":[\#(records.joined(separator: ","))]}"#)
            #expect(created.status == 200, "\(created.bodyText)")
        }
        func ids(_ soql: String) async throws -> [(id: String, modified: String)] {
            var rows: [(String, String)] = []
            var page = try await org.query(soql, headers: ["Sforce-Query-Options": "batchSize=200"])
            while true {
                #expect(page.status == 200, "\(page.body)")
                for record in page.body["records"]?.arrayValue ?? [] {
                    rows.append((record["Id"]?.stringValue ?? "", record["LastModifiedDate"]?.stringValue ?? ""))
                }
                guard let next = page.body["nextRecordsUrl"]?.stringValue else { return rows }
                let response = await org.call("GET", next)
                page = (response.status, try JSONParser.parse(response.body))
            }
        }
        let all = try await ids("SELECT Id, LastModifiedDate, LastName FROM Contact ORDER BY LastModifiedDate, Id")
        #expect(all.count == 400)
        #expect(Set(all.map(\.modified)).count < 400, "the test needs ties in the modification time")
        #expect(zip(all, all.dropFirst()).allSatisfy { ($0.modified, $0.id) < ($1.modified, $1.id) }, "ordered by time, then id")

        let capped = "SELECT Id, LastModifiedDate FROM Contact ORDER BY LastModifiedDate, Id LIMIT 250 OFFSET 70"
        let slice = try await ids(capped)
        #expect(slice.map(\.id) == all[70..<320].map(\.id), "two pages of 200 and 50, the same slice")
        #expect(try await ids(capped).map(\.id) == slice.map(\.id), "the same again")
        let idsOnly = try await ids("SELECT Id FROM Contact ORDER BY LastModifiedDate, Id LIMIT 250 OFFSET 70")
        #expect(idsOnly.map(\.id) == slice.map(\.id), "ordering by fields it does not select")
        let descending = try await ids("SELECT Id, LastModifiedDate FROM Contact ORDER BY LastModifiedDate DESC, Id LIMIT 30")
        #expect(descending.count == 30)
        #expect(zip(descending, descending.dropFirst()).allSatisfy { $0.modified > $1.modified || ($0.modified == $1.modified && $0.id < $1.id) })
    }
}
