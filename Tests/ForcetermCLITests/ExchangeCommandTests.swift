import ForceJSON
import Foundation
import SmartStore
import Testing

/// `forceterm create`, `update`, `delete`, `import` and `export` through the built binary, on real
/// store files, with files shaped as other programs write them; and what they queue reaching a
/// real localorg through `forceterm sync`.
@Suite("create, update, delete, import and export")
struct ExchangeCommandTests {
    static let syncedContactFields = ["FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone", "AccountId"]

    func fixture() throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.add(accounts: [["Id": "001000000000001AAA", "Name": "Nordlys AS", "__local__": false]])
        var contacts = SampleRecords.mixedScriptContacts
        contacts[0]["AccountId"] = "001000000000001AAA"
        contacts[0]["Title"] = "Buyer; EMEA, \"key\" account"
        contacts[0]["Department"] = "Line one\nline two"
        contacts[2]["Title"] = "部長"
        contacts.append(["Id": "local_42", "LastName": "Created Here", "Email": "new@example.com", "__local__": true, "__locally_created__": true])
        try fixture.add(contacts: contacts)
        return fixture
    }

    static func documents(_ path: String, _ soup: String = "contacts") throws -> [JSONObject] {
        try SmartStore.asForcetermOpensIt(path).query(.all(soup, orderPath: SmartStore.soupEntryId, pageSize: 10_000)).compactMap(\.objectValue)
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    // MARK: create, update, delete

    @Test("create, update and delete record local changes with the SDK's flags, checked by the form's rules; bad input changes nothing")
    func localChanges() throws {
        let store = try fixture()
        let created = try Forceterm.run(["create", "contacts", "LastName=Nowak", "First name=Łukasz", "Email=lukasz@example.pl", "AccountId=nordlys as", "--store", store.path])
        #expect(created.exitCode == 0, "\(created)")
        let localId = created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(localId.hasPrefix("local_"), "the new record's id on stdout: \(created)")
        #expect(created.standardError.contains("Created contact Łukasz Nowak locally"))
        let new = try #require(try Self.documents(store.path).first { $0["Id"]?.stringValue == localId })
        #expect(new["FirstName"] == "Łukasz" && new["AccountId"] == "001000000000001AAA", "the label and the account's name both work: \(new)")
        #expect(new["__local__"] == true && new["__locally_created__"] == true && new["attributes"]?["type"] == "Contact")

        let updated = try Forceterm.run(["update", "003000000000002", "Title=Jefe de compras", "Email=", "--store", store.path])
        #expect(updated.exitCode == 0, "\(updated)")
        let jose = try #require(try Self.documents(store.path).first { $0["Id"] == "003000000000002" })
        #expect(jose["Title"] == "Jefe de compras" && jose["__locally_updated__"] == true && jose["LastName"] == "Müller")
        #expect(jose["__base__"]?["Title"] == .null, "the base of the change is kept, as the TUI keeps it: \(jose)")
        let again = try Forceterm.run(["update", "003000000000002", "Title=Jefe de compras", "--store", store.path])
        #expect(again.exitCode == 0 && again.standardError.contains("Nothing changed"), "\(again)")

        let before = try Self.documents(store.path)
        let badEmail = try Forceterm.run(["create", "contacts", "LastName=X", "Email=not-an-email", "--store", store.path])
        #expect(badEmail.exitCode == 1 && badEmail.standardError.contains("Email should look like name@example.com"), "\(badEmail)")
        let noName = try Forceterm.run(["create", "contacts", "FirstName=Only", "--store", store.path])
        #expect(noName.exitCode == 1 && noName.standardError.contains("Last name is required"), "\(noName)")
        let unknownField = try Forceterm.run(["update", "003000000000001", "Shoe=42", "--store", store.path])
        #expect(unknownField.exitCode == 1 && unknownField.standardError.contains("no field Shoe") && unknownField.standardError.contains("MobilePhone"), "\(unknownField)")
        let unknownAccount = try Forceterm.run(["update", "003000000000001", "AccountId=Nobody Inc", "--store", store.path])
        #expect(unknownAccount.exitCode == 1 && unknownAccount.standardError.contains("no account named or with the id Nobody Inc"), "\(unknownAccount)")
        let notAPair = try Forceterm.run(["create", "contacts", "LastName", "--store", store.path])
        #expect(notAPair.exitCode == 2 && notAPair.standardError.contains("is not Field=Value"), "\(notAPair)")
        #expect(try Self.documents(store.path) == before, "nothing written by a refused change")

        let missing = try Forceterm.run(["delete", "003000000000003", "003NOPE", "--store", store.path])
        #expect(missing.exitCode == 1 && missing.standardError.contains("nothing was deleted"), "\(missing)")
        #expect(try Self.documents(store.path) == before, "all or nothing")
        let deleted = try Forceterm.run(["delete", "003000000000003", localId, "--store", store.path])
        #expect(deleted.exitCode == 0, "\(deleted)")
        let after = try Self.documents(store.path)
        #expect(after.filter { $0["__locally_deleted__"] == true }.count == 2)
        let editDeleted = try Forceterm.run(["update", "003000000000003", "Title=x", "--store", store.path])
        #expect(editDeleted.exitCode == 1 && editDeleted.standardError.contains("marked deleted"), "\(editDeleted)")

        // status counts each record once, as the sync up sends it: created and edited since is one
        // create, created and deleted one delete; so the three add up to what is pending.
        let fresh = try Forceterm.run(["create", "contacts", "LastName=Ng", "--store", store.path]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try Forceterm.run(["update", fresh, "Title=Buyer", "--store", store.path]).exitCode == 0)
        let status = try Forceterm.run(["status", "--store", store.path]).standardOutput
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("contacts:") }.map(String.init), "\(status)")
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(numbers.count >= 4 && numbers[0] == numbers[1] + numbers[2] + numbers[3], "\(line)")
    }

    // MARK: import

    /// Three programs' cards in one file: Apple's (groups, folded NOTE), an old phone's vCard 2.1
    /// (quoted-printable UTF-8 with a soft line break, bare parameters), Google's (CJK), and an
    /// organisation card (vCard 4.0) the first contact's ORG names. CRLF line ends and a BOM.
    static let mixedVCards =
        "\u{FEFF}"
        + [
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//macOS 14.0//EN", "N:Ørsted;Zoë;;;", "FN:Zoë Ørsted",
            "ORG:Nordlys Energi;Procurement", "TITLE:Head of Procurement\\, Nordics",
            "item1.EMAIL;type=INTERNET;type=pref:zoe@nordlys.example", "item1.X-ABLabel:_$!<Work>!$_",
            "TEL;type=CELL;type=VOICE;type=pref:+47 912 34 567", "TEL;type=HOME;type=VOICE:+47 22 11 00 00",
            "NOTE:Met at the Oslo fair. Prefers email over phone calls\\, and morning mee", " tings.", "END:VCARD",
            "BEGIN:VCARD", "VERSION:2.1", "N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Garc=C3=ADa;Jos=C3=A9;;;",
            "FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Jos=C3=A9 Garc=C3=ADa", "TEL;CELL;PREF:+34600111222", "EMAIL;INTERNET:jose.garcia@example.es",
            "TITLE;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Director de Ventas y Desarrollo de Negocio Internacional =", "para el Sur de Europa",
            "END:VCARD",
            "", "BEGIN:VCARD", "VERSION:3.0", "FN:Taro Yamada", "N:山田;太郎;;;", "EMAIL;TYPE=INTERNET;TYPE=WORK:taro@example.jp",
            "TEL;TYPE=CELL:090-1234-5678", "ORG:東京テクノ Partners", "CATEGORIES:myContacts", "END:VCARD",
            "BEGIN:VCARD", "VERSION:4.0", "KIND:org", "FN:Nordlys Energi", "ORG:Nordlys Energi",
            "TEL;VALUE=uri;TYPE=\"work,voice\":tel:+47-22-00-00-00", "URL:https://nordlys.example",
            "ADR;TYPE=work:;;Storgata 1;Oslo;;0155;Norway", "END:VCARD",
        ].joined(separator: "\r\n") + "\r\n"

    @Test("import of other programs' vCards: a dry run writes nothing; then contacts, the organisation's account and one for a company, linked")
    func importVCards() throws {
        let store = try fixture()
        let file = store.absentPath("contacts.vcf")
        try Self.write(Self.mixedVCards, to: file)
        let before = try Self.documents(store.path)
        let dry = try Forceterm.run(["import", file, "--dry-run", "--store", store.path])
        #expect(dry.exitCode == 0, "\(dry)")
        #expect(
            dry.standardOutput == """
                line 1: create contact Zoë Ørsted
                line 15: create contact José García
                line 25: create account 東京テクノ Partners
                line 25: update contact 太郎 山田 (its email matches)
                line 34: create account Nordlys Energi

                """, "\(dry)")
        #expect(dry.standardError.contains("note: kept in Description (no field of their own): Categories ×1"), "\(dry)")
        #expect(dry.standardError.contains("1 new account for a company no account is named after: 東京テクノ Partners"), "\(dry)")
        #expect(dry.standardError.contains("Dry run: 4 to create, 1 to update, 0 unchanged; nothing was written"))
        #expect(try Self.documents(store.path) == before)

        let real = try Forceterm.run(["import", file, "--store", store.path])
        #expect(real.exitCode == 0 && real.standardError.contains("Imported 5 records: 4 created, 1 updated"), "\(real)")
        let contacts = try Self.documents(store.path)
        let account = try #require(try Self.documents(store.path, "accounts").first { $0["Name"] == "Nordlys Energi" })
        #expect(
            account["Phone"] == "+47-22-00-00-00" && account["Website"] == "https://nordlys.example" && account["BillingStreet"] == "Storgata 1"
                && account["BillingCity"] == "Oslo" && account["BillingPostalCode"] == "0155" && account["BillingCountry"] == "Norway", "\(account)")
        let zoe = try #require(contacts.first { $0["Email"] == "zoe@nordlys.example" })
        #expect(zoe["FirstName"] == "Zoë" && zoe["LastName"] == "Ørsted" && zoe["Title"] == "Head of Procurement, Nordics" && zoe["Department"] == "Procurement")
        #expect(zoe["MobilePhone"] == "+47 912 34 567" && zoe["HomePhone"] == "+47 22 11 00 00")
        #expect(zoe["AccountId"] == account["Id"], "ORG links the contact to the account from the same file")
        #expect(zoe["Description"] == "Met at the Oslo fair. Prefers email over phone calls, and morning meetings.", "NOTE: \(zoe)")
        let jose = try #require(contacts.first { $0["Email"] == "jose.garcia@example.es" })
        #expect(jose["FirstName"] == "José" && jose["LastName"] == "García" && jose["MobilePhone"] == "+34600111222")
        #expect(jose["Title"] == "Director de Ventas y Desarrollo de Negocio Internacional para el Sur de Europa", "quoted-printable soft break: \(jose)")
        let taro = try #require(contacts.first { $0["Email"] == "taro@example.jp" })
        #expect(taro["Id"] == "003000000000003" && taro["MobilePhone"] == "090-1234-5678" && taro["Title"] == "部長", "matched by email, updated: \(taro)")
        let partners = try #require(try Self.documents(store.path, "accounts").first { $0["Name"] == "東京テクノ Partners" })
        #expect(taro["AccountId"] == partners["Id"] && partners["__locally_created__"] == true, "a company no account had: \(partners)")
        #expect(taro["Description"] == "Full name: Taro Yamada\nCategories: myContacts", "FN says more than N: \(taro)")
        #expect(contacts.filter { $0["__locally_created__"] == true }.count == 3, "2 imported and the fixture's own")

        let twice = try Forceterm.run(["import", file, "--dry-run", "--store", store.path])
        #expect(twice.standardOutput.contains("line 1: no change to contact Zoë Ørsted (its email matches; same values)"), "\(twice)")
        #expect(twice.standardOutput.contains("line 34: no change to account Nordlys Energi (its name matches; same values)"), "\(twice)")
        #expect(!twice.standardOutput.contains("create"), "a second import makes nothing twice: \(twice)")
    }

    /// An Outlook-style export: BOM, CRLF, its column names, a semicolon and a quoted line break in
    /// cells, a column no field takes, and a bad row.
    static let outlookCSV =
        "\u{FEFF}First Name,Last Name,E-mail Address,Job Title,Mobile Phone,Company,Notes\r\n"
        + "Ana,Smith,ana@example.com,\"Buyer; EMEA\",+44 20 7946 0000,,\"Two lines\r\nof notes\"\r\n"
        + "Łukasz,Nowak,lukasz@example.pl,Kierownik,,Nordlys AS,\r\n"
        + "Bad,,not-an-email,,,,\r\n"

    @Test("import of a CSV: every bad line named and nothing written; fixed, a create and an update by email")
    func importCSV() throws {
        let store = try fixture()
        let file = store.absentPath("outlook.csv")
        try Self.write(Self.outlookCSV, to: file)
        let before = try Self.documents(store.path)
        let refused = try Forceterm.run(["import", file, "--store", store.path])
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.standardError.contains("outlook.csv:5: Last name is required"), "line 5, after a cell that spans two lines: \(refused)")
        #expect(!refused.standardError.contains("Email should look like"), "an email that is none goes to Description, it refuses nothing: \(refused)")
        #expect(refused.standardError.contains("1 of 3 records cannot be imported; nothing was written"), "\(refused)")
        #expect(try Self.documents(store.path) == before)

        try Self.write(String(Self.outlookCSV.dropLast("Bad,,not-an-email,,,,\r\n".count)), to: file)
        let imported = try Forceterm.run(["import", file, "--store", store.path])
        #expect(imported.exitCode == 0, "\(imported)")
        #expect(imported.standardOutput == "line 2: update contact Ana Smith (its email matches)\nline 4: create contact Łukasz Nowak\n", "\(imported)")
        #expect(imported.standardError.contains("note: columns read as Outlook writes them"), "\(imported)")
        let contacts = try Self.documents(store.path)
        let ana = try #require(contacts.first { $0["Id"] == "003000000000001" })
        #expect(ana["Title"] == "Buyer; EMEA" && ana["MobilePhone"] == "+44 20 7946 0000" && ana["__locally_updated__"] == true)
        #expect(ana["Description"] == "Two lines\r\nof notes", "Outlook's Notes: \(ana)")
        #expect(ana["AccountId"] == "001000000000001AAA", "an empty Company cell clears nothing")
        let lukasz = try #require(contacts.first { $0["LastName"] == "Nowak" })
        #expect(lukasz["AccountId"] == "001000000000001AAA" && lukasz["Title"] == "Kierownik", "Company by the account's name")

        let mapped = store.absentPath("mapped.csv")
        try Self.write("Apellido;Correo;Cargo\nKowalska;anna@example.pl;CTO\n", to: mapped)
        let withoutMap = try Forceterm.run(["import", mapped, "--dry-run", "--store", store.path])
        #expect(withoutMap.exitCode == 1 && withoutMap.standardError.contains("no column of the header names a field"), "\(withoutMap)")
        let withMap = try Forceterm.run(["import", mapped, "--dry-run", "--map", "LastName=Apellido", "--map", "Email=Correo", "--map", "title=cargo", "--store", store.path])
        #expect(withMap.exitCode == 0 && withMap.standardOutput == "line 2: create contact Kowalska\n", "semicolons as the delimiter: \(withMap)")
        let badMap = try Forceterm.run(["import", mapped, "--map", "LastName=Surname", "--store", store.path])
        #expect(badMap.exitCode == 1 && badMap.standardError.contains("the header has no column Surname; it has Apellido, Correo, Cargo"), "\(badMap)")
    }

    @Test("export then import into an empty store gives the same records and ids, in vCard, CSV and JSON; the org's records as copies")
    func roundTrip() throws {
        let store = try fixture()
        _ = try Forceterm.run(["delete", "003000000000004", "--store", store.path])
        let original = try Self.documents(store.path).filter { $0["__locally_deleted__"] != true }
        for format in ["vcf", "csv", "json"] {
            let file = store.absentPath("export.\(format)")
            let exported = try Forceterm.run(["export", "contacts", "-o", file, "--store", store.path])
            #expect(exported.exitCode == 0 && exported.standardError.contains("Exported 4 contacts to \(file)"), "the deleted one left out: \(exported)")
            let empty = try StoreFixture()
            let imported = try Forceterm.run(["import", file, "--store", empty.path])
            #expect(imported.exitCode == 0 && imported.standardError.contains("1 created, 0 updated, 3 stored as copies of the org's records"), "\(format): \(imported)")
            let copies = try Self.documents(empty.path)
            #expect(Set(copies.compactMap { $0["Id"]?.stringValue }) == Set(original.compactMap { $0["Id"]?.stringValue }), "\(format): the same ids")
            #expect(copies.filter { $0["__local__"] == true }.count == 1, "\(format): only the record created here is a local change")
            for record in original {
                let copy = copies.first { $0["LastName"] == record["LastName"] }
                for field in Self.syncedContactFields {
                    #expect(LocalText(copy?[field]) == LocalText(record[field]), "\(format): \(field) of \(record["LastName"] ?? .null)")
                }
            }
        }
        let vcard = try Forceterm.run(["export", "contacts", "--query", "smith", "--store", store.path])
        #expect(vcard.standardOutput.hasPrefix("BEGIN:VCARD\r\nVERSION:4.0\r\n") && vcard.standardOutput.contains("UID;VALUE=text:003000000000001"), "\(vcard)")
        #expect(vcard.standardOutput.contains("ORG:Nordlys AS;Line one\\nline two"), "\(vcard)")
        let csv = try Forceterm.run(["export", "accounts", "--format", "csv", "--store", store.path])
        #expect(
            csv.standardOutput == "Id,Name,Industry,Phone,Website,BillingStreet,BillingCity,BillingState,BillingPostalCode,BillingCountry,Description\r\n"
                + "001000000000001AAA,Nordlys AS,,,,,,,,,\r\n", "\(csv)")
        let nowhere = try Forceterm.run(["export", "contacts", "-o", store.absentPath("no/such/dir/x.vcf"), "--store", store.path])
        #expect(nowhere.exitCode == 1 && nowhere.standardError.contains("there is no directory"), "\(nowhere)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty, "no partial files left: \(leftovers)")
    }

    @Test("export all writes accounts and contacts into one file that a fresh store imports whole, links included; a second export is the same bytes")
    func wholeStoreRoundTrip() throws {
        let store = try fixture()
        let created = try Forceterm.run(["create", "accounts", "Name=Fjord Café", "--store", store.path])
        #expect(created.exitCode == 0, "\(created)")
        #expect(try Forceterm.run(["create", "contacts", "LastName=Lie", "AccountId=Fjord Café", "--store", store.path]).exitCode == 0)
        let original = try Self.documents(store.path)
        let accounts = try Self.documents(store.path, "accounts")
        for format in ["vcf", "csv", "json"] {
            let file = store.absentPath("all.\(format)")
            let exported = try Forceterm.run(["export", "all", "-o", file, "--store", store.path])
            #expect(exported.exitCode == 0 && exported.standardError.contains("Exported 8 records"), "\(format): \(exported)")
            let empty = try StoreFixture()
            let imported = try Forceterm.run(["import", file, "--store", empty.path])
            #expect(imported.exitCode == 0, "\(format): \(imported)")
            #expect(imported.standardError.contains("3 created, 0 updated, 5 stored as copies of the org's records"), "\(format): \(imported)")
            #expect(!imported.standardError.contains("new account"), "\(format): every link resolved inside the file: \(imported)")
            let copies = try Self.documents(empty.path)
            for record in original {
                let copy = try #require(copies.first { $0["Id"] == record["Id"] }, "\(format): \(record["LastName"] ?? .null) kept its id")
                #expect(LocalText(copy["AccountId"]) == LocalText(record["AccountId"]), "\(format): the link of \(record["LastName"] ?? .null)")
                #expect((copy["__locally_created__"] == true) == (record["__locally_created__"] == true), "\(format): created here or the org's")
            }
            #expect(Set(try Self.documents(empty.path, "accounts").compactMap { $0["Id"]?.stringValue }) == Set(accounts.compactMap { $0["Id"]?.stringValue }))
            if format != "json" {
                // JSON carries each store's entry ids and whatever else the org sent, so it differs.
                let again = empty.absentPath("again.\(format)")
                #expect(try Forceterm.run(["export", "all", "-o", again, "--store", empty.path]).exitCode == 0)
                #expect(FileManager.default.contents(atPath: again) == FileManager.default.contents(atPath: file), "\(format): a second export is the same bytes")
            }
        }
    }

    /// A stored value as the form shows it: a missing field and a null are both empty.
    struct LocalText: Equatable {
        let text: String
        init(_ value: JSONValue?) {
            text =
                switch value {
                case let .string(string)?: string
                case nil, .null?: ""
                case let other?: JSONWriter.string(other)
                }
        }
    }

    // MARK: reaching the org

    @Test("what create, update, delete and import queue reaches localorg with forceterm sync; the imported contact linked to the imported account")
    func syncedToTheOrg() throws {
        let user = try SyncCommandTests.SignedIn(accounts: 1, contacts: 3)
        defer { user.remove() }
        #expect(try user.forceterm(["sync"]).exitCode == 0)
        let file = user.root + "/cards.vcf"
        try Self.write(Self.mixedVCards, to: file)
        #expect(try user.forceterm(["import", file]).exitCode == 0)
        let first = try #require(try user.documents("contacts").first { $0["Id"]?.stringValue?.hasPrefix("local_") == false })
        let firstId = try #require(first["Id"]?.stringValue)
        #expect(try user.forceterm(["update", firstId, "Title=Updated from a script"]).exitCode == 0)
        let second = try #require(try user.documents("contacts").first { $0["Id"]?.stringValue?.hasPrefix("003") == true && $0["Id"]?.stringValue != firstId })
        let secondId = try #require(second["Id"]?.stringValue)
        #expect(try user.forceterm(["delete", secondId]).exitCode == 0)
        let created = try user.forceterm(["create", "contacts", "LastName=Scripted", "AccountId=Nordlys Energi"])
        #expect(created.exitCode == 0, "an account created by the import, by name: \(created)")

        let (sync, summary) = try user.json(["sync"])
        #expect(sync.exitCode == 0, "\(sync)")
        #expect(summary["created"] == 6 && summary["updated"] == 1 && summary["deleted"] == 1, "the company's account among the creates: \(sync)")
        let token = try OrgREST.accessToken(user.server)
        #expect(try OrgREST.contact(firstId, server: user.server, token: token)["Title"] == "Updated from a script")
        let contacts = try user.documents("contacts")
        #expect(contacts.allSatisfy { $0["__local__"] == false } && !contacts.contains { $0["Id"] == .string(secondId) })
        let account = try #require(try user.documents("accounts").first { $0["Name"] == "Nordlys Energi" })
        let zoe = try #require(contacts.first { $0["Email"] == "zoe@nordlys.example" })
        let scripted = try #require(contacts.first { $0["LastName"] == "Scripted" })
        let zoeOnServer = try OrgREST.contact(try #require(zoe["Id"]?.stringValue), server: user.server, token: token)
        #expect(zoeOnServer["AccountId"] == account["Id"] && zoeOnServer["LastName"] == "Ørsted", "\(zoeOnServer)")
        #expect(try OrgREST.contact(try #require(scripted["Id"]?.stringValue), server: user.server, token: token)["AccountId"] == account["Id"])
    }
}
