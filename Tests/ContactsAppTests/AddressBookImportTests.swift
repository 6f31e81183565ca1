import ForceJSON
import Foundation
import SalesforceIds
import SmartStore
import Testing

@testable import ContactsApp

/// What an import makes of address books: columns by source, several values of one kind,
/// companies as accounts, ids that are ids only when they are, and a summary that says what
/// went into Description and what was dropped.
@Suite struct AddressBookImportTests {
    let fixture: StoreFixture
    let schema: RecordSchema

    init() throws {
        fixture = try StoreFixture()
        schema = RecordSchema(kinds: [.contact, .account], syncedFields: try fixture.fields, descriptions: nil)
    }

    func plan(_ text: String, format: ExchangeFormat, into kind: RecordKind = .contact, accounts: AccountLinking = .create) throws -> ImportPlan {
        let (rows, notes) = try ImportReader(schema: schema, kind: kind).rows(text, format: format)
        return try RecordImporter(store: fixture.store, schema: schema).plan(rows, notes: notes, accounts: accounts)
    }

    func values(_ plan: ImportPlan, line: Int, kind: RecordKind = .contact) -> JSONObject {
        plan.actions.first { $0.line == line && $0.kind == kind }?.values ?? [:]
    }

    @Test("An id is an id only with the object's key prefix, and an 18-character one only with its checksum")
    func ids() {
        #expect(SalesforceId.isValid("001Lo000000001AAAQ", keyPrefix: "001") == (SalesforceId.checksumSuffix(of: "001Lo000000001A") == "AAQ"))
        let id15 = "001Lo00000000Zb"
        let id18 = id15 + SalesforceId.checksumSuffix(of: id15)
        #expect(SalesforceId.isValid(id18, keyPrefix: "001"))
        #expect(SalesforceId.isValid(id15, keyPrefix: "001"))
        #expect(!SalesforceId.isValid(id18, keyPrefix: "003"), "a contact's key prefix is not an account's")
        #expect(!SalesforceId.isValid(id15 + "AAA", keyPrefix: "001"), "a checksum that does not match its id")
        #expect(!SalesforceId.isValid("TheOrganization", keyPrefix: "001"))
        #expect(!SalesforceId.isValid("TheOrganizationXY", keyPrefix: nil))
        #expect(!SalesforceId.isValid("AcmeWidgetsCorpInc", keyPrefix: "001"))
        #expect(SalesforceId.standardKeyPrefix(of: "Contact") == "003")
    }

    @Test("Outlook's CSV: Title is the salutation, Job Title the title; typed phones, a second email and addresses find their places")
    func outlook() throws {
        let csv = """
            Title,First Name,Middle Name,Last Name,Suffix,Company,Department,Job Title,Business Street,Business City,Business State,Business Postal Code,Business Country/Region,Home Street,Home City,Business Phone,Mobile Phone,Pager,E-mail Address,E-mail Type,E-mail 2 Address,Notes,Priority,Sensitivity
            Dr.,Ana,María,García,Jr.,Acme,Sales,Buyer,Calle Mayor 1,Madrid,Madrid,28013,Spain,Rúa Nova 2,Lugo,+34 91 000 0000,+34 600 000 000,555 0101,ana@acme.example,SMTP,ana@home.example,Met at the fair,Normal,Normal

            """
        let plan = try plan(csv, format: .csv)
        #expect(plan.problems.isEmpty, "\(plan.problems)")
        let contact = values(plan, line: 2)
        #expect(contact["Salutation"] == "Dr.")
        #expect(contact["Title"] == "Buyer")
        #expect(contact["FirstName"] == "Ana")
        #expect(contact["LastName"] == "García")
        #expect(contact["Phone"] == "+34 91 000 0000")
        #expect(contact["MobilePhone"] == "+34 600 000 000")
        #expect(contact["Email"] == "ana@acme.example")
        #expect(contact["MailingStreet"] == "Calle Mayor 1")
        #expect(contact["MailingState"] == "Madrid")
        #expect(contact["MailingCountry"] == "Spain")
        let description = contact["Description"]?.stringValue ?? ""
        #expect(description.hasPrefix("Met at the fair\n\n"))
        for line in ["Middle name: María", "Name suffix: Jr.", "Phone (pager): 555 0101", "Email (other): ana@home.example", "Address (home): Rúa Nova 2, Lugo"] {
            #expect(description.contains(line), "\(line) in \(description)")
        }
        #expect(plan.notes.contains { $0.hasPrefix("columns read as Outlook") })
        #expect(plan.notes.contains { $0.contains("not imported: E-mail Type, Priority, Sensitivity") })
        #expect(plan.notes.contains("kept in Description (no field of their own): Address ×1, Email ×1, Middle name ×1, Name suffix ×1, Phone ×1"))
        // The company became an account the contact points at.
        let account = try #require(plan.actions.first { $0.kind == .account })
        #expect(account.name == "Acme")
        #expect(contact["AccountId"]?.stringValue == account.localId)
    }

    @Test("Thunderbird's CSV: Primary Email, Mobile Number, a birthday in three columns")
    func thunderbird() throws {
        let csv = """
            First Name,Last Name,Display Name,Nickname,Primary Email,Secondary Email,Work Phone,Mobile Number,Job Title,Organization,Birth Year,Birth Month,Birth Day,Notes
            Jürgen,Groß,Jürgen Groß,Jü,jg@example.de,jg@private.example,030 1234,0170 5678,Engineer,,1980,4,9,

            """
        let plan = try plan(csv, format: .csv)
        let contact = values(plan, line: 2)
        #expect(contact["Email"] == "jg@example.de")
        #expect(contact["MobilePhone"] == "0170 5678")
        #expect(contact["Phone"] == "030 1234")
        #expect(contact["Title"] == "Engineer")
        #expect(contact["Description"] == "Email (other): jg@private.example\nBirthday: 1980-04-09\nNickname: Jü")
        #expect(plan.notes.contains { $0.hasPrefix("columns read as Thunderbird") })
    }

    @Test("Google's CSV: numbered columns with their types, several values in one cell, the primary one marked *")
    func google() throws {
        let csv = """
            Name,Given Name,Additional Name,Family Name,Name Prefix,Name Suffix,Nickname,Birthday,Notes,Group Membership,E-mail 1 - Type,E-mail 1 - Value,Phone 1 - Type,Phone 1 - Value,Phone 2 - Type,Phone 2 - Value,Address 1 - Type,Address 1 - Formatted,Address 1 - Street,Address 1 - City,Address 1 - Postal Code,Address 1 - Country,Organization 1 - Type,Organization 1 - Name,Organization 1 - Title
            Li Wei,Wei,,Li,,,,1990-02-03,,* myContacts,* Work ::: Home,li@work.example ::: li@home.example,Mobile,+86 138 0000 0000,Work Fax,+86 10 0000 0000,Work,"Road 1\\nBeijing",Road 1,Beijing,100000,China,,Great Wall Trading,Manager

            """
        let plan = try plan(csv, format: .csv)
        #expect(plan.problems.isEmpty, "\(plan.problems)")
        let contact = values(plan, line: 2)
        #expect(contact["Email"] == "li@work.example")
        #expect(contact["MobilePhone"] == "+86 138 0000 0000")
        #expect(contact["MailingCity"] == "Beijing")
        #expect(contact["Title"] == "Manager")
        let description = contact["Description"]?.stringValue ?? ""
        #expect(description.contains("Email (home): li@home.example"))
        #expect(description.contains("Phone (fax, work): +86 10 0000 0000"))
        #expect(description.contains("Groups: * myContacts"))
        #expect(description.contains("Birthday: 1990-02-03"), "the config syncs no Birthdate")
        #expect(plan.actions.contains { $0.kind == .account && $0.name == "Great Wall Trading" })
    }

    @Test("A company is matched by name ignoring case, accents and spaces; match and ignore create no account")
    func companies() throws {
        let accountId = "001Lo0000000001" + SalesforceId.checksumSuffix(of: "001Lo0000000001")
        try fixture.addSyncedAccount(name: "Café  Olé", id: accountId)
        let csv = """
            Last Name,Company
            Uno,cafe ole
            Dos,New Corp
            Tres,NEW CORP
            Cuatro,TheOrganization

            """
        let created = try plan(csv, format: .csv)
        #expect(values(created, line: 2)["AccountId"]?.stringValue == accountId)
        let newAccounts = created.actions.filter { $0.kind == .account }
        #expect(newAccounts.map(\.name) == ["New Corp", "TheOrganization"], "one account per company; a 15-letter name is no id")
        #expect(values(created, line: 3)["AccountId"] == values(created, line: 4)["AccountId"])
        #expect(created.notes.contains { $0.hasPrefix("2 new accounts for companies no account is named after: New Corp, TheOrganization") })

        let matched = try plan(csv, format: .csv, accounts: .match)
        #expect(matched.actions.allSatisfy { $0.kind == .contact })
        #expect(values(matched, line: 2)["AccountId"]?.stringValue == accountId)
        #expect(values(matched, line: 3)["AccountId"]?.stringValue == nil)
        #expect(matched.notes.contains { $0.hasPrefix("3 contacts name a company no account is named after (New Corp, NEW CORP, TheOrganization)") || $0.hasPrefix("3 contacts name a company") })

        let ignored = try plan(csv, format: .csv, accounts: .ignore)
        #expect(ignored.actions.allSatisfy { $0.kind == .contact && $0.values["AccountId"]?.stringValue == nil })
        #expect(ignored.notes.contains("companies left out (--accounts ignore): 4 contacts named one"))
    }

    @Test("A vCard's account id wins only when the store or the file has that account; else its ORG does")
    func accountIdOrName() throws {
        let vcf = """
            BEGIN:VCARD\r
            VERSION:4.0\r
            KIND:org\r
            FN:Nordwind\r
            ORG:Nordwind\r
            UID:local_17000000000000000123\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:4.0\r
            FN:Eva Berg\r
            N:Berg;Eva;;;\r
            ORG:Somewhere Else\r
            X-SALESFORCE-ACCOUNTID:local_17000000000000000123\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:4.0\r
            FN:Ola Nord\r
            N:Nord;Ola;;;\r
            ORG:Nordwind\r
            X-SALESFORCE-ACCOUNTID:local_99\r
            END:VCARD\r

            """
        let plan = try plan(vcf, format: .vcard)
        #expect(plan.problems.isEmpty, "\(plan.problems)")
        let account = try #require(plan.actions.first { $0.kind == .account })
        #expect(account.localId == "local_17000000000000000123", "a free local id from another store is kept")
        #expect(values(plan, line: 8)["AccountId"]?.stringValue == account.localId, "the id the file's account has")
        #expect(values(plan, line: 15)["AccountId"]?.stringValue == account.localId, "an unknown id: linked by ORG instead")
        #expect(plan.actions.count(where: { $0.kind == .account }) == 1)
    }

    @Test("Two emails, a nickname, a photo and categories: kept in Description or dropped, and counted either way")
    func vCardExtras() throws {
        let vcf = """
            BEGIN:VCARD\r
            VERSION:3.0\r
            N:Kowalski;Jan;Piotr;;\r
            FN:Jan Kowalski\r
            EMAIL;TYPE=INTERNET,HOME:jan@home.example\r
            EMAIL;TYPE=INTERNET,WORK,pref:jan@work.example\r
            NICKNAME:Janek\r
            CATEGORIES:friends,poland\r
            PHOTO;ENCODING=b;TYPE=JPEG:AAAA\r
            X-JABBER:jan@jabber.example\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:3.0\r
            EMAIL:only@example.com\r
            END:VCARD\r

            """
        let plan = try plan(vcf, format: .vcard)
        #expect(plan.problems.isEmpty, "\(plan.problems)")
        let jan = values(plan, line: 1)
        #expect(jan["FirstName"] == "Jan", "the middle name is not folded into the first name")
        #expect(jan["Email"] == "jan@work.example", "the preferred email")
        #expect(jan["Description"] == "Middle name: Piotr\nEmail (home): jan@home.example\nNickname: Janek\nCategories: friends, poland\nJabber: jan@jabber.example")
        #expect(values(plan, line: 12)["LastName"] == "only", "an email-only card takes its email's local part")
        #expect(plan.notes.contains("dropped (no field holds them): Photo ×1"))
        #expect(plan.notes.contains("1 record has no last name in the file; taken 1 from the email address"))
    }

    @Test("A CSV row with more cells than the header is refused, one with fewer is read and noted")
    func rowWidths() throws {
        let plan = try plan("Last Name,Email\nOk,ok@example.com\nShort\nToo,many@example.com,extra\n", format: .csv)
        #expect(plan.problems.map(\.line) == [4])
        #expect(plan.problems.first?.message.contains("3 cells but the header names 2 columns") == true)
        #expect(plan.notes.contains { $0.hasPrefix("1 row has fewer cells than the header (line 3)") })
    }

    @Test("An update keeps the stored Description and adds the file's lines after it; a stored contact keeps its account")
    func updateKeepsNoteAndAccount() throws {
        let accountId = "001Lo0000000002" + SalesforceId.checksumSuffix(of: "001Lo0000000002")
        try fixture.addSyncedAccount(name: "Acme Corporation", id: accountId)
        try fixture.addSyncedContact(
            first: "Ana", last: "García", accountId: accountId,
            extra: ["Email": "ana@x.example", "Description": "Prefers phone"])
        let vcf = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:García;Ana;;;\r\nEMAIL:ana@x.example\r\nNICKNAME:Ani\r\nORG:ACME Corp.\r\nEND:VCARD\r\n"
        let plan = try plan(vcf, format: .vcard)
        #expect(plan.problems.isEmpty && plan.actions.count == 1, "no account made for a company spelled another way: \(plan.actions.map(\.summary))")
        #expect(values(plan, line: 1)["Description"] == "Prefers phone\n\nNickname: Ani")
        #expect(values(plan, line: 1)["AccountId"] == nil, "an update carries what it changes: the account is not among them")
        #expect(plan.notes.contains { $0.hasPrefix("1 stored contact keeps its account") }, "\(plan.notes)")
        let again = try self.plan(vcf.replacingOccurrences(of: "NICKNAME:Ani", with: "NICKNAME:Ani"), format: .vcard)
        #expect(again.actions.first?.values["Description"] == "Prefers phone\n\nNickname: Ani")
    }

    @Test("An organisation card keeps the person and department on it; the first email that is one goes to Email; two columns for one thing keep both")
    func nothingDroppedOnTheWay() throws {
        let vcf =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;John;;;\r\nFN:John Doe\r\nORG:Acme;Sales\r\nX-ABShowAs:COMPANY\r\nEND:VCARD\r\n"
            + "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Roe;Ri;;;\r\nEMAIL;TYPE=pref:ri at example\r\nEMAIL:ri@example.com\r\nEND:VCARD\r\n"
        let plan = try plan(vcf, format: .vcard)
        let acme = values(plan, line: 1, kind: .account)
        #expect(acme["Name"] == "Acme" && acme["Description"] == "Contact name: John Doe\nDepartment: Sales", "\(acme)")
        let ri = values(plan, line: 8)
        #expect(ri["Email"] == "ri@example.com" && ri["Description"] == "Email: ri at example", "\(ri)")
        let csv = try self.plan("Last Name,Title,Job Title\nLee,Buyer,Head Buyer\n", format: .csv)
        #expect(values(csv, line: 2)["Title"] == "Buyer" && values(csv, line: 2)["Description"] == "Job Title: Head Buyer")
    }

    @Test("Birthdays: ISO dates and date-times, day-first with dots, and a slash date only when a day above 12 says which is the month")
    func birthdays() {
        #expect(EntryPlacement.date("1985-04-12") == "1985-04-12")
        #expect(EntryPlacement.date("19850412") == "1985-04-12")
        #expect(EntryPlacement.date("1985-04-12T00:00:00.000Z") == "1985-04-12")
        #expect(EntryPlacement.date("12.04.1985") == "1985-04-12")
        #expect(EntryPlacement.date("4/13/1985") == "1985-04-13")
        #expect(EntryPlacement.date("13/4/1985") == "1985-04-13")
        #expect(EntryPlacement.date("4/12/1985") == nil, "April or December: kept as written")
        #expect(EntryPlacement.date("--0412") == nil && EntryPlacement.date("0/0/00") == nil)
    }

    @Test("A quote inside an unquoted cell is data; one that opens a cell and never closes is named; CR CR LF is one line end")
    func csvQuotes() throws {
        let plan = try plan("Last Name,Title\r\r\nKim,15\" laptop buyer\r\r\nLee,Buyer\r\r\n", format: .csv)
        #expect(plan.problems.isEmpty)
        #expect(values(plan, line: 2)["Title"] == "15\" laptop buyer" && values(plan, line: 3)["LastName"] == "Lee", "\(plan.actions.map(\.line))")
        #expect(throws: ImportProblem.self) { try self.plan("Last Name,Title\nKim,\"open\nLee,Buyer\n", format: .csv) }
    }

    @Test("One Latin-1 card does not garble a UTF-8 card beside it; UTF-16 with a BOM reads; a line's own CHARSET wins")
    func encodings() throws {
        var bytes = Data("BEGIN:VCARD\r\nVERSION:3.0\r\nN:Ørsted;Zoë;;;\r\nEND:VCARD\r\n".utf8)
        bytes += Data("BEGIN:VCARD\r\nVERSION:2.1\r\nN:M".utf8) + Data([0xFC]) + Data("ller;J".utf8) + Data([0xFC]) + Data("rgen;;;\r\nEND:VCARD\r\n".utf8)
        bytes += Data("BEGIN:VCARD\r\nVERSION:2.1\r\nN;CHARSET=SHIFT_JIS:".utf8) + Data([0x8E, 0x52, 0x93, 0x63]) + Data(";;;;\r\nEND:VCARD\r\n".utf8)
        let (text, note) = ImportReader.text(of: bytes)
        #expect(note?.hasPrefix("1 line is not UTF-8 and was read as Windows-1252") == true, "\(note ?? "")")
        let plan = try plan(text, format: .vcard)
        #expect(plan.actions.map(\.name) == ["Zoë Ørsted", "Jürgen Müller", "山田"])
        let utf16 = Data([0xFF, 0xFE]) + "Last Name,Email\r\nŁukasz,l@example.pl\r\n".data(using: .utf16LittleEndian)!
        let (csv, csvNote) = ImportReader.text(of: utf16)
        #expect(csvNote == nil)
        #expect(try self.plan(csv, format: .csv).actions.first?.name == "Łukasz")
    }
}
