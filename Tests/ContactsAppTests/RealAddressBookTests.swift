import ContactsApp
import ForceJSON
import Foundation
import SmartStore
import Testing

/// Address books other projects wrote (Tests/Fixtures/address-books, sources in its README):
/// every file imports, one record per card or row, and every value the file holds (read
/// independently into expected.json) is found in the record, its account or its Description,
/// unless the summary says it was dropped.
@Suite struct RealAddressBookTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/address-books")

    /// Files whose encoding nothing in them declares.
    static let encodings: [String: String] = ["thunderbird--shiftjis_addressbook.csv": "shift_jis"]

    static var expected: [(file: String, value: JSONObject)] {
        get throws {
            let data = try Data(contentsOf: directory.appendingPathComponent("expected.json"))
            let root = try JSONParser.parse(String(decoding: data, as: UTF8.self)).objectValue ?? [:]
            return root.keys.sorted().compactMap { key in root[key]?.objectValue.map { (key, $0) } }
        }
    }

    /// Letters and digits only, lowercased: `+1 (555) 0100` and `15550100` compare equal, and a
    /// multi-line value matches its one-line form in Description.
    static func folded(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    @Test(
        "Every real file imports whole: one record per card or row, and every value it holds is kept or said to be dropped",
        arguments: try expected.map(\.file))
    func importsWhole(file: String) throws {
        let expected = try #require(try Self.expected.first { $0.file == file }?.value)
        let fixture = try StoreFixture()
        let schema = RecordSchema(kinds: [.contact, .account], syncedFields: try fixture.fields, descriptions: nil)
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
        let (text, note) = ImportReader.text(of: data, encoding: Self.encodings[file].flatMap(TextEncodingName.encoding(named:)))
        let format = ExchangeFormat.named(byPath: file) ?? .csv
        let (rows, notes) = try ImportReader(schema: schema, kind: .contact).rows(text, format: format)
        let plan = try RecordImporter(store: fixture.store, schema: schema).plan(rows, notes: (note.map { [$0] } ?? []) + notes)
        #expect(plan.problems.isEmpty, "\(file): \(plan.problems)")
        let people = expected["people"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(rows.count == people.count, "\(file): \(rows.count) records read, the file holds \(people.count)")
        try RealAddressBookTests.checkNothingLost(plan, rows: rows, people: people, file: file)
        try RecordImporter(store: fixture.store, schema: schema).apply(plan)
        let stored =
            try fixture.store.query(.all("contacts", orderPath: SmartStore.soupEntryId, pageSize: 10_000)).count
            + fixture.store.query(.all("accounts", orderPath: SmartStore.soupEntryId, pageSize: 10_000)).count
        #expect(stored == plan.actions.count, "\(file): what the plan said is what the store holds")
    }

    /// Each person's values against its record: names in their fields, every email, phone,
    /// title, note and address city somewhere in the record or its account.
    static func checkNothingLost(_ plan: ImportPlan, rows: [ImportRow], people: [JSONObject], file: String) throws {
        let accountNames = Dictionary(
            plan.actions.filter { $0.kind.role == .account }.compactMap { action in
                action.values["Id"]?.stringValue.map { ($0, action.name) } ?? action.localId.map { ($0, action.name) }
            }, uniquingKeysWith: { first, _ in first })
        // Dropped: only what no field can hold (pictures, sounds, keys), and all of it, as the summary says.
        let droppedLine = plan.notes.first { $0.hasPrefix("dropped (") }.map { String($0[$0.index(after: $0.firstIndex(of: ":") ?? $0.startIndex)...]) } ?? ""
        let dropped = Set(droppedLine.split(separator: ",").compactMap { $0.split(separator: "×").first?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let binary = ["PHOTO": "Photo", "X-MS-CARDPICTURE": "Photo", "LOGO": "Logo", "KEY": "Key", "SOUND": "Sound"]
        let held = Set(people.flatMap { $0["other"]?.arrayValue?.compactMap(\.stringValue) ?? [] }.compactMap { binary[String($0.prefix { $0 != "(" })] })
        #expect(dropped.isSubset(of: held), "\(file): dropped \(dropped), but the file has no such binary values (\(held))")
        #expect(held.subtracting(["Sound"]).isSubset(of: dropped), "\(file): the summary does not name \(held.subtracting(dropped)) as dropped")
        // Rows in file order; the plan's actions for them share their line.
        for (row, person) in zip(rows.sorted { $0.line < $1.line }, people) {
            guard let action = plan.actions.first(where: { $0.line == row.line && $0.kind == row.kind }) else {
                Issue.record("\(file): no action for the record at line \(row.line)")
                continue
            }
            var haystack = action.values.values.compactMap(\.stringValue).joined(separator: " ")
            if let accountId = action.values["AccountId"]?.stringValue, let name = accountNames[accountId] { haystack += " " + name }
            let found = folded(haystack)
            func expectFound(_ value: String?, _ what: String) {
                guard let value, !folded(value).isEmpty else { return }
                #expect(found.contains(folded(value)), "\(file) line \(row.line): \(what) \"\(value)\" is not in \(action.values)")
            }
            let string = { (key: String) in person[key]?.stringValue }
            if row.kind.role == .contact, person["isOrganization"]?.boolValue != true {
                if let family = string("familyName"), !family.isEmpty {
                    #expect(action.values["LastName"]?.stringValue == family.trimmingCharacters(in: .whitespaces), "\(file) line \(row.line): last name")
                }
                expectFound(string("givenName"), "given name")
            }
            for key in ["middleName", "prefix", "suffix", "organization", "department", "title", "note"] { expectFound(string(key), key) }
            // A full name's words may sit in several fields.
            for word in (string("fullName") ?? "").split(whereSeparator: { !$0.isLetter && !$0.isNumber }) { expectFound(String(word), "a word of the full name") }
            for email in person["emails"]?.arrayValue ?? [] { expectFound(email.stringValue, "email") }
            for phone in person["phones"]?.arrayValue ?? [] { expectFound(phone.objectValue?["number"]?.stringValue, "phone") }
            for url in person["urls"]?.arrayValue ?? [] { expectFound(url.stringValue, "website") }
            for address in person["addresses"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
                for part in ["street", "city", "postalCode", "country"] { expectFound(address[part]?.stringValue, "address \(part)") }
            }
        }
    }
}
