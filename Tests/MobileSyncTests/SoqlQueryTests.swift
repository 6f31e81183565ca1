import Testing

@testable import MobileSync

@Suite("SOQL rewriting for sync down")
struct SoqlQueryTests {
    func rewritten(_ query: String) -> String {
        SoqlQuery(query).addingSyncFields(idField: "Id", modificationField: "LastModifiedDate").text
    }

    @Test func missingFieldsAndOrderByAreAddedAsTheSDKDoes() {
        #expect(
            rewritten("select FirstName, LastName from Contact")
                == "select Id,LastModifiedDate,FirstName, LastName from Contact order by LastModifiedDate")
        #expect(
            rewritten("SELECT Id, LastModifiedDate, Name FROM Account ORDER BY LastModifiedDate")
                == "SELECT Id, LastModifiedDate, Name FROM Account ORDER BY LastModifiedDate", "nothing missing: unchanged")
        #expect(
            rewritten("SELECT Name FROM Account WHERE Name != null LIMIT 100")
                == "select Id,LastModifiedDate,Name from Account where Name != null order by LastModifiedDate, Id limit 100",
            "beyond the SDK: a capped query's order ends with the id")
        #expect(
            rewritten("SELECT id, lastmodifieddate FROM Account")
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
        let query = SoqlQuery(
            "SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName) FROM Account WHERE Name = 'a from b order by c' AND Id IN (SELECT AccountId FROM Contact WHERE Title = 'it\\'s where')")
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
        #expect(
            incremental("select Id from Account where Name = 'John' limit 100")
                == "select Id from Account where LastModifiedDate >= \(ts) and (Name = 'John') limit 100")
        #expect(
            incremental("select Id from Account where Id != null or Name != null")
                == "select Id from Account where LastModifiedDate >= \(ts) and (Id != null or Name != null)",
            "an OR cannot escape the filter")
        #expect(
            incremental("select Id from Account")
                == "select Id from Account where LastModifiedDate >= \(ts)")
        #expect(
            incremental("select Id from Account order by LastModifiedDate limit 10 offset 5")
                == "select Id from Account where LastModifiedDate >= \(ts) order by LastModifiedDate limit 10 offset 5")
        #expect(
            incremental("select Id, Name from Account group by Name having count(Id) > 1")
                == "select Id, Name from Account where LastModifiedDate >= \(ts) group by Name having count(Id) > 1")
    }

    @Test func remoteIdsDropTheSelectAndKeepWhereAndTheCap() {
        func ids(_ query: String) -> String { SoqlQuery(query).idsOnly(idField: "Id").text }
        #expect(
            ids("SELECT Name FROM Account WHERE Name = 'James Bond' ORDER BY Name")
                == "select Id from Account where Name = 'James Bond'", "uncapped: the order does not change the set")
        #expect(
            ids("SELECT Name FROM Account WHERE Name = 'James Bond' ORDER BY Name LIMIT 10")
                == "select Id from Account where Name = 'James Bond' order by Name, Id limit 10",
            "capped (unlike the SDK): the order decides the set, so it stays, without ties")
        #expect(
            ids("SELECT Name, (SELECT Id FROM Contacts) FROM Account WHERE Id IN (SELECT AccountId FROM Contact LIMIT 5)")
                == "select Id from Account where Id IN (SELECT AccountId FROM Contact LIMIT 5)",
            "subqueries in SELECT go, subqueries in WHERE stay, and their LIMIT caps nothing")
    }

    @Test func aCappedQueryGetsAnOrderWithoutTiesAndKeepsLimitAndOffset() {
        #expect(
            rewritten("SELECT Name FROM Contact LIMIT 120")
                == "select Id,LastModifiedDate,Name from Contact order by LastModifiedDate, Id limit 120")
        #expect(
            rewritten("SELECT Id, LastModifiedDate, Name FROM Contact ORDER BY Name DESC NULLS LAST LIMIT 10 OFFSET 20")
                == "select Id, LastModifiedDate, Name from Contact order by Name DESC NULLS LAST, Id limit 10 offset 20",
            "the query's own order is kept, the id appended as the last key")
        #expect(
            rewritten("SELECT Id, LastModifiedDate FROM Contact ORDER BY LastModifiedDate, id LIMIT 5")
                == "SELECT Id, LastModifiedDate FROM Contact ORDER BY LastModifiedDate, id LIMIT 5", "already tiebroken: unchanged")
        #expect(
            rewritten("SELECT Id, LastModifiedDate FROM Contact ORDER BY Id__c LIMIT 3")
                == "select Id, LastModifiedDate from Contact order by Id__c, Id limit 3", "Id__c is not the id")
        #expect(
            rewritten("SELECT Id, LastModifiedDate FROM Contact OFFSET 7")
                == "select Id, LastModifiedDate from Contact order by LastModifiedDate, Id offset 7", "OFFSET alone caps too")
        #expect(
            !SoqlQuery(rewritten("SELECT Name FROM Contact LIMIT 120")).isSortedBy("LastModifiedDate"),
            "a capped query is not sorted by modification alone: its mark is saved at the end of a run")
    }

    @Test func subqueriesAndQuotedTextCapNothing() {
        let query = "SELECT Name, (SELECT Id FROM Contacts ORDER BY Name LIMIT 1) FROM Account WHERE Name = 'x limit 5 offset 2'"
        #expect(!SoqlQuery(query).isCapped)
        #expect(
            rewritten(query)
                == "select Id,LastModifiedDate,Name, (SELECT Id FROM Contacts ORDER BY Name LIMIT 1) from Account where Name = 'x limit 5 offset 2' order by LastModifiedDate",
            "uncapped: rewritten as before, the subquery and the quoted text untouched")
        #expect(SoqlQuery(query + " LIMIT 9").isCapped)
    }

    @Test func aTargetsGhostQueryUsesTheOrderItsSyncDownRuns() {
        let capped = SyncDownTarget.soql("SELECT Name FROM Contact WHERE Title != null LIMIT 120 OFFSET 10")
        #expect(capped.isCapped)
        #expect(
            capped.rewrittenSoql
                == "select Id,LastModifiedDate,Name from Contact where Title != null order by LastModifiedDate, Id limit 120 offset 10")
        #expect(capped.remoteIdsSoql == "select Id from Contact where Title != null order by LastModifiedDate, Id limit 120 offset 10")
        let uncapped = SyncDownTarget.soql("SELECT Name FROM Contact WHERE Title != null")
        #expect(!uncapped.isCapped)
        #expect(uncapped.remoteIdsSoql == "select Id from Contact where Title != null")
        #expect(!SyncDownTarget(.sosl(query: "FIND {x} LIMIT 5")).isCapped, "only SOQL targets are capped")
    }

    @Test func theGhostCountIsOnlyForWholeObjects() {
        #expect(SyncDownTarget.soql("SELECT Name FROM Contact ORDER BY Name").remoteCountSoql == "select COUNT() from Contact")
        #expect(
            SyncDownTarget.soql("SELECT Name FROM Contact WHERE Account.Region__c = 'EU'").remoteCountSoql == nil,
            "a WHERE: records can leave and join the set unedited, with equal counts")
        #expect(SyncDownTarget.soql("SELECT Name FROM Contact LIMIT 10").remoteCountSoql == nil, "capped: which records, not how many")
        #expect(SyncDownTarget.soql("SELECT AccountId, COUNT(Id) FROM Contact GROUP BY AccountId").remoteCountSoql == nil)
        #expect(SyncDownTarget(.sosl(query: "FIND {x}")).remoteCountSoql == nil)
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
