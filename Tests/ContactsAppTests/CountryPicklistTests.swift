import ContactsApp
import ForceJSON
import Foundation
import SmartStore
import Testing

/// An org with State and Country/Territory Picklists takes only its own countries and states: a
/// name typed or imported in any language, or a code, becomes the org's value before it is
/// queued, and the rest is refused here, naming what the org takes.
@Suite("Country and state picklists")
struct CountryPicklistTests {
    static let isoCodesInstalled = FileManager.default.fileExists(atPath: "/usr/share/iso-codes/json/iso_3166-1.json")

    /// A Contact describe as an org with the feature answers it: the text fields, and the code
    /// picklists beside them (states `validFor` their country's bit: United States is the third).
    static let describe: JSONObject = [
        "Id": "Contact", "name": "Contact",
        "fields": [
            ["name": "LastName", "label": "Last Name", "type": "string", "length": 80, "nillable": false, "createable": true],
            ["name": "MailingState", "label": "Mailing State/Province", "type": "string", "length": 80],
            ["name": "MailingCountry", "label": "Mailing Country", "type": "string", "length": 80],
            [
                "name": "MailingCountryCode", "label": "Mailing Country Code", "type": "picklist", "length": 10, "restrictedPicklist": true,
                "picklistValues": [
                    ["value": "DE", "label": "Germany", "active": true], ["value": "CH", "label": "Switzerland", "active": true],
                    ["value": "US", "label": "United States", "active": true],
                ],
            ],
            [
                "name": "MailingStateCode", "label": "Mailing State/Province Code", "type": "picklist", "length": 10, "dependentPicklist": true,
                "controllerName": "MailingCountryCode",
                "picklistValues": [
                    ["value": "CA", "label": "California", "active": true, "validFor": "IAAA"],
                    ["value": "NY", "label": "New York", "active": true, "validFor": "IAAA"],
                ],
            ],
        ],
    ]

    static let syncs = #"""
        {"syncs": [{"syncName": "up", "syncType": "syncUp", "soupName": "contacts",
          "target": {"createFieldlist": ["LastName", "MailingState", "MailingCountry"]}, "options": {"mergeMode": "LEAVE_IF_CHANGED"}}]}
        """#

    func draft(_ fixture: StoreFixture) throws -> RecordDraft {
        try fixture.store.create(Self.describe, in: "sobject_metadata")
        let schema = RecordSchema(
            kinds: [.contact], syncedFields: try SyncedFields(usersyncsJSON: Self.syncs),
            descriptions: ObjectDescriptions(store: fixture.store, soupBySObject: ["Contact": "sobject_metadata"]))
        return RecordDraft(schema: schema, store: fixture.store)
    }

    @Test("The org's countries and their states come from the code picklists of its describe")
    func choicesFromTheDescribe() throws {
        let description = try #require(ObjectDescription(describe: Self.describe))
        let choices = try #require(description.addressChoices(for: "MailingCountry"))
        #expect(choices.countries.map(\.label) == ["Germany", "Switzerland", "United States"])
        #expect(choices.states["US"]?.map(\.label) == ["California", "New York"] && choices.states["DE"] == nil)
        #expect(description.addressChoices(for: "LastName") == nil)
    }

    @Test(
        "A name in another language, a code or the org's own spelling becomes the org's country; a state its label",
        .enabled(if: isoCodesInstalled, "needs Debian's iso-codes"))
    func namesAreMapped() throws {
        let fixture = try StoreFixture()
        let draft = try draft(fixture)
        for (typed, stored) in [
            ("Deutschland", "Germany"), ("Allemagne", "Germany"), ("DE", "Germany"), ("deu", "Germany"),
            ("Schweiz", "Switzerland"), ("USA", "United States"), ("united states", "United States"),
        ] {
            let values = try draft.values(kind: .contact, record: nil, texts: [("LastName", "Doe"), ("MailingCountry", typed)])
            #expect(values["MailingCountry"] == .string(stored), "\(typed)")
        }
        let state = try draft.values(kind: .contact, record: nil, texts: [("LastName", "Doe"), ("MailingState", "ny"), ("MailingCountry", "US")])
        #expect(state["MailingState"] == "New York")
        // A country without states in the org takes any state text.
        let free = try draft.values(kind: .contact, record: nil, texts: [("LastName", "Doe"), ("MailingCountry", "Germany"), ("MailingState", "Bayern")])
        #expect(free["MailingState"] == "Bayern")
    }

    @Test("A country the org does not have, or a state its country lacks, is refused before anything is queued, naming what it takes")
    func unknownValuesAreRefused() throws {
        let fixture = try StoreFixture()
        let draft = try draft(fixture)
        #expect(throws: RecordDraft.Problems.self) { _ = try draft.values(kind: .contact, record: nil, texts: [("LastName", "Doe"), ("MailingCountry", "Atlantis")]) }
        do {
            _ = try draft.values(kind: .contact, record: nil, texts: [("LastName", "Doe"), ("MailingCountry", "Germanyy")])
        } catch let problems as RecordDraft.Problems {
            #expect(problems.description.contains("Germanyy is not one of the org's countries; did you mean Germany?"), "\(problems)")
        }
        do {
            _ = try draft.values(kind: .contact, record: nil, texts: [("LastName", "Doe"), ("MailingCountry", "US"), ("MailingState", "Bavaria")])
            Issue.record("a state the United States lack was taken")
        } catch let problems as RecordDraft.Problems {
            #expect(problems.description.contains("must be one of the org's states of that country: California, New York"), "\(problems)")
        }
    }

    @Test("Names come from iso-codes' translations, read from its gettext catalogues", .enabled(if: isoCodesInstalled, "needs Debian's iso-codes"))
    func isoCodesNames() {
        let names = CountryNames.system
        #expect(names.codes(for: "Deutschland") == ["DE"] && names.codes(for: "Alemania") == ["DE"] && names.codes(for: "Allemagne") == ["DE"])
        #expect(names.codes(for: "UK") == ["GB"] && names.codes(for: "Côte d’Ivoire") == ["CI"])
        #expect(names.codes(for: "Nowhereland").isEmpty)
    }
}
