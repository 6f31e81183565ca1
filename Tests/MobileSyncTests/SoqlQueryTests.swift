import Testing
@testable import MobileSync

@Suite("SOQL rewriting for sync down")
struct SoqlQueryTests {
    func rewritten(_ query: String) -> String {
        SoqlQuery(query).addingSyncFields(idField: "Id", modificationField: "LastModifiedDate").text
    }

    @Test func missingFieldsAndOrderByAreAddedAsTheSDKDoes() {
        #expect(rewritten("select FirstName, LastName from Contact")
            == "select Id,LastModifiedDate,FirstName, LastName from Contact order by LastModifiedDate")
        #expect(rewritten("SELECT Id, LastModifiedDate, Name FROM Account ORDER BY LastModifiedDate")
            == "SELECT Id, LastModifiedDate, Name FROM Account ORDER BY LastModifiedDate", "nothing missing: unchanged")
        #expect(rewritten("SELECT Name FROM Account WHERE Name != null LIMIT 100")
            == "select Id,LastModifiedDate,Name from Account where Name != null order by LastModifiedDate limit 100")
        #expect(rewritten("SELECT id, lastmodifieddate FROM Account")
            == "select id, lastmodifieddate from Account order by LastModifiedDate", "fields match case-insensitively")
    }

    @Test func aFieldNamedLikeAKeywordIsNotAClause() {
        let query = SoqlQuery("SELECT From_customer__c, Where__c FROM Contact WHERE Order_by__c = 'x'")
        #expect(query[.select] == "From_customer__c, Where__c")
        #expect(query[.from] == "Contact")
        #expect(query[.where] == "Order_by__c = 'x'")
        #expect(query[.orderBy] == nil)
    }

    @Test func subqueriesAndQuotedTextAreNotClauses() {
        let query = SoqlQuery("SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName) FROM Account WHERE Name = 'a from b order by c' AND Id IN (SELECT AccountId FROM Contact WHERE Title = 'it\\'s where')")
        #expect(query.selectFields == ["Name", "(SELECT LastName FROM Contacts ORDER BY LastName)"])
        #expect(query[.orderBy] == nil)
        #expect(query[.from] == "Account")
        #expect(!query.selects("LastName"), "a subquery's fields are not top-level fields")
        #expect(query.selects("name"))
    }

    @Test func fieldPresenceIsByWholeItem() {
        let query = SoqlQuery("SELECT Account.Name, NameX FROM Contact WHERE Name = 'x'")
        #expect(!query.selects("Name"))
        #expect(query.selects("Account.Name"))
    }

    @Test func sortedByModificationIgnoresSpacesOnly() {
        #expect(SoqlQuery("select Id from A order by LastModifiedDate").isSortedBy("LastModifiedDate"))
        #expect(SoqlQuery("select Id from A order by  LastModifiedDate ").isSortedBy("LastModifiedDate"))
        #expect(!SoqlQuery("select Id from A order by Name").isSortedBy("LastModifiedDate"))
        #expect(!SoqlQuery("select Id from A order by LastModifiedDate DESC").isSortedBy("LastModifiedDate"))
        #expect(!SoqlQuery("select Id, (select Id from B order by LastModifiedDate) from A").isSortedBy("LastModifiedDate"))
    }

    @Test func theIncrementalFilterWrapsTheOriginalWhere() {
        let ts = "2024-05-01T10:00:00.000Z"
        func incremental(_ query: String) -> String { SoqlQuery(query).modified(since: ts, field: "LastModifiedDate").text }
        #expect(incremental("select Id from Account where Name = 'John' limit 100")
            == "select Id from Account where LastModifiedDate >= \(ts) and (Name = 'John') limit 100")
        #expect(incremental("select Id from Account where Id != null or Name != null")
            == "select Id from Account where LastModifiedDate >= \(ts) and (Id != null or Name != null)",
            "an OR cannot escape the filter")
        #expect(incremental("select Id from Account")
            == "select Id from Account where LastModifiedDate >= \(ts)")
        #expect(incremental("select Id from Account order by LastModifiedDate limit 10 offset 5")
            == "select Id from Account where LastModifiedDate >= \(ts) order by LastModifiedDate limit 10 offset 5")
        #expect(incremental("select Id, Name from Account group by Name having count(Id) > 1")
            == "select Id, Name from Account where LastModifiedDate >= \(ts) group by Name having count(Id) > 1")
    }

    @Test func remoteIdsDropTheSelectAndOrderButKeepWhereAndLimit() {
        func ids(_ query: String) -> String { SoqlQuery(query).idsOnly(idField: "Id").text }
        #expect(ids("SELECT Name FROM Account WHERE Name = 'James Bond' ORDER BY Name LIMIT 10")
            == "select Id from Account where Name = 'James Bond' limit 10")
        #expect(ids("SELECT Name, (SELECT Id FROM Contacts) FROM Account WHERE Id IN (SELECT AccountId FROM Contact)")
            == "select Id from Account where Id IN (SELECT AccountId FROM Contact)",
            "subqueries in SELECT go, subqueries in WHERE stay")
    }

    @Test func timestampsRoundTripInUTC() {
        #expect(SalesforceTimestamp.parse("2016-03-29T18:34:24.000+0000") == 1_459_276_464_000)
        #expect(SalesforceTimestamp.parse("2016-03-29T11:34:24.000-0700") == 1_459_276_464_000)
        #expect(SalesforceTimestamp.parse("2016-03-29T18:34:24.123Z") == 1_459_276_464_123)
        #expect(SalesforceTimestamp.parse("2016-03-29T18:34:24+00:00") == 1_459_276_464_000)
        #expect(SalesforceTimestamp.parse("yesterday") == nil)
        #expect(SalesforceTimestamp.format(1_459_276_464_123) == "2016-03-29T18:34:24.123Z")
        #expect(SalesforceTimestamp.format(0) == "1970-01-01T00:00:00.000Z")
    }

    @Test func theSoqlTargetRewritesTheConfiguredQuery() throws {
        let target = try SyncDownTarget(json: ["type": "soql", "query": "SELECT Name FROM Account"])
        #expect(target.rewrittenSoql == "select Id,LastModifiedDate,Name from Account order by LastModifiedDate")
    }
}
