import ForceJSON
import Testing

@testable import LocalOrg

@Suite struct SharingTests {
    @Test func privateSharingShowsUsersOnlyTheirOwnRecords() async throws {
        let admin = try await TestOrg(sharing: .private)
        defer { admin.remove() }
        let trainer = try await admin.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        let adminsAccount = try await admin.create("Account", #"{"Name":"Admin's"}"#)
        let adminsContact = try await admin.create("Contact", #"{"LastName":"Hidden","AccountId":"\#(adminsAccount)"}"#)
        let trainersAccount = try await trainer.create("Account", #"{"Name":"Trainer's"}"#)
        let trainersContact = try await trainer.create("Contact", #"{"LastName":"Visible","AccountId":"\#(trainersAccount)"}"#)

        #expect(try await trainer.query("SELECT COUNT() FROM Contact").body["totalSize"] == 1)
        #expect(try await admin.query("SELECT COUNT() FROM Contact").body["totalSize"] == 2)
        let read = await trainer.call("GET", "/services/data/v59.0/sobjects/Contact/\(adminsContact)")
        #expect(read.status == 404)
        #expect(try JSONParser.parse(read.body).firstErrorCode == "NOT_FOUND")
        let update = await trainer.call("PATCH", "/services/data/v59.0/sobjects/Contact/\(adminsContact)", body: #"{"Title":"x"}"#)
        #expect(try JSONParser.parse(update.body).firstErrorCode == "INSUFFICIENT_ACCESS_OR_READONLY")
        let delete = await trainer.call("DELETE", "/services/data/v59.0/sobjects/Contact/\(adminsContact)")
        #expect(try JSONParser.parse(delete.body).firstErrorCode == "INSUFFICIENT_ACCESS_OR_READONLY")
        let reference = await trainer.call("POST", "/services/data/v59.0/sobjects/Contact", body: #"{"LastName":"X","AccountId":"\#(adminsAccount)"}"#)
        #expect(try JSONParser.parse(reference.body).firstErrorCode == "INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY")

        // The admin moves a contact under the admin's account to the trainer: its parent stays hidden.
        let trainerId = try #require(try admin.store.userId(username: "trainer@localorg.test"))
        #expect(await admin.call("PATCH", "/services/data/v59.0/sobjects/Contact/\(adminsContact)", body: #"{"OwnerId":"\#(trainerId)"}"#).status == 204)
        let rows = try await trainer.query("SELECT LastName, Account.Name, (SELECT Id FROM Contacts) FROM Contact ORDER BY LastName")
        #expect(rows.body.firstErrorCode == "INVALID_TYPE")  // Contact has no child relationship named Contacts
        let contacts = try await trainer.query("SELECT LastName, Account.Name FROM Contact ORDER BY LastName")
        let records = try #require(contacts.body["records"]?.arrayValue)
        #expect(records.map { $0["LastName"] } == ["Hidden", "Visible"])
        #expect(records[0]["Account"] == .null)
        #expect(records[1]["Account"]?["Name"] == "Trainer's")
        let accounts = try await trainer.query("SELECT Name, (SELECT LastName FROM Contacts) FROM Account")
        #expect(accounts.body["totalSize"] == 1)
        #expect(accounts.body["records"]?.arrayValue?.first?["Contacts"]?["totalSize"] == 1)
        #expect(trainersContact.hasPrefix("003"))
    }

    @Test func publicSharingShowsEveryoneEverything() async throws {
        let admin = try await TestOrg()
        defer { admin.remove() }
        let trainer = try await admin.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        let id = try await admin.create("Contact", #"{"LastName":"Shared"}"#)
        #expect(await trainer.call("GET", "/services/data/v59.0/sobjects/Contact/\(id)").status == 200)
        #expect(await trainer.call("PATCH", "/services/data/v59.0/sobjects/Contact/\(id)", body: #"{"Title":"x"}"#).status == 204)
    }

    @Test func onlyAdministratorsChangeUsers() async throws {
        let admin = try await TestOrg()
        defer { admin.remove() }
        let trainer = try await admin.signedIn(as: "trainer@localorg.test", password: "localorg-trainer")
        let trainerId = try #require(try admin.store.userId(username: "trainer@localorg.test"))
        let refused = await trainer.call("PATCH", "/services/data/v59.0/sobjects/User/\(trainerId)", body: #"{"IsActive":false}"#)
        #expect(try JSONParser.parse(refused.body).firstErrorCode == "INSUFFICIENT_ACCESS_OR_READONLY")
        let created = await trainer.call("POST", "/services/data/v59.0/composite/sobjects", body: #"{"records":[{"attributes":{"type":"User"},"Username":"x@y.z","LastName":"X","Email":"x@y.z"}]}"#)
        #expect(try JSONParser.parse(created.body).arrayValue?.first?["errors"]?.arrayValue?.first?["statusCode"] == "INSUFFICIENT_ACCESS_OR_READONLY")
        #expect(await admin.call("PATCH", "/services/data/v59.0/sobjects/User/\(trainerId)", body: #"{"Title__x":1}"#).status == 400)
        #expect(await admin.call("PATCH", "/services/data/v59.0/sobjects/User/\(trainerId)", body: #"{"FirstName":"Tay"}"#).status == 204)
    }
}
