import ContactsApp
import ForceJSON
import Foundation
import LocalOrgProcess
import MobileSync
import SmartStore
import Testing

/// Forms that follow the org's describe as the metadata sync down stored it: labels, types,
/// required and read-only fields, picklists by record type, and the checks before a save.
@Suite("Forms from the org's stored describe")
struct DescribedFormTests {
    static let metadataSoup = "sobject_metadata"

    /// An Account describe in the shape localorg and Salesforce answer, with two record types and
    /// the per-record-type values the metadata sync down adds.
    static let accountDescribe: JSONObject = [
        "Id": "Account", "name": "Account",
        "recordTypeInfos": [
            [
                "available": false, "defaultRecordTypeMapping": false, "developerName": "Master", "master": true,
                "name": "Master", "recordTypeId": "012000000000000AAA",
            ],
            [
                "available": true, "defaultRecordTypeMapping": true, "developerName": "Customer", "master": false,
                "name": "Customer Account", "recordTypeId": "0120000000001AAAAA",
            ],
            [
                "available": true, "defaultRecordTypeMapping": false, "developerName": "Partner", "master": false,
                "name": "Partner Account", "recordTypeId": "0120000000002AAAAA",
            ],
        ],
        "fields": [
            [
                "name": "Name", "label": "Account Name", "type": "string", "length": 255, "nillable": false, "createable": true,
                "updateable": true, "defaultedOnCreate": false,
            ],
            [
                "name": "Type", "label": "Account Type", "type": "picklist", "length": 255, "restrictedPicklist": true,
                "picklistValues": [
                    ["value": "Prospect", "active": true], ["value": "Customer - Direct", "active": true],
                    ["value": "Technology Partner", "active": true], ["value": "Retired", "active": false],
                ],
            ],
            [
                "name": "Rating", "label": "Account Rating", "type": "picklist", "length": 255, "createable": false, "updateable": false,
                "picklistValues": [["value": "Hot", "active": true]],
            ],
            ["name": "NumberOfEmployees", "label": "Employees", "type": "int", "digits": 8],
            ["name": "AnnualRevenue", "label": "Annual Revenue", "type": "currency", "precision": 18, "scale": 2],
            ["name": "RecordTypeId", "label": "Record Type ID", "type": "reference", "length": 18, "updateable": true],
        ],
        "__picklistsByRecordType__": [
            "0120000000001AAAAA": ["Type": ["Prospect", "Customer - Direct"]],
            "0120000000002AAAAA": ["Type": ["Technology Partner"]],
        ],
    ]

    static let accountSyncs = #"""
        {"syncs": [
          {"syncName": "up", "syncType": "syncUp", "soupName": "accounts",
           "target": {"createFieldlist": ["RecordTypeId", "Name", "Type", "Rating", "NumberOfEmployees", "AnnualRevenue"]},
           "options": {"mergeMode": "LEAVE_IF_CHANGED"}}]}
        """#

    func accountsModel(_ fixture: StoreFixture, describe: JSONObject?) throws -> AppModel {
        if let describe { try fixture.store.create(describe, in: Self.metadataSoup) }
        let descriptions = ObjectDescriptions(store: fixture.store, soupBySObject: ["Account": Self.metadataSoup])
        var model = try AppModel(
            store: fixture.store, syncedFields: try SyncedFields(usersyncsJSON: Self.accountSyncs),
            kinds: [.account], descriptions: descriptions)
        model.setListHeight(10)
        return model
    }

    func focus(_ name: String, in model: inout AppModel) {
        for _ in 0..<20 where model.form?.focused?.name != name { model.perform(.nextField) }
    }

    @Test("a new account: record type first (the default), the org's labels, only the default type's values, read-only Rating")
    func newAccountFollowsTheDescribe() throws {
        let fixture = try StoreFixture()
        var model = try accountsModel(fixture, describe: Self.accountDescribe)
        model.perform(.newRecord)
        let form = try #require(model.form)
        #expect(form.rulesNote == nil)
        #expect(form.fields.map(\.name) == ["RecordTypeId", "Name", "Type", "Rating", "NumberOfEmployees", "AnnualRevenue"])
        #expect(form.fields.map(\.rule.label) == ["Record Type", "Account Name", "Account Type", "Account Rating", "Employees", "Annual Revenue"])
        #expect(form.fields[0].value == "0120000000001AAAAA" && model.choiceDisplay(form.fields[0]) == "Customer Account")
        #expect(form.fields[1].rule.required && !form.fields[2].rule.required)
        #expect(form.fields[3].rule.editable == false)

        // Type offers the Customer record type's values; switching to Partner offers Partner's.
        focus("Type", in: &model)
        model.perform(.openLookup)
        #expect(model.choicePicker?.options.map(\.value) == ["Prospect", "Customer - Direct"])
        model.perform(.moveDown)
        model.perform(.keepSearch)
        #expect(model.form?.fields[2].value == "Customer - Direct")
        focus("RecordTypeId", in: &model)
        model.perform(.openLookup)
        #expect(model.choicePicker?.options.map(\.label) == ["Customer Account", "Partner Account"])
        model.perform(.moveDown)
        model.perform(.keepSearch)
        #expect(model.form?.recordTypeId == "0120000000002AAAAA")

        // Typing into a read-only field does nothing; Enter on it says why.
        focus("Rating", in: &model)
        model.type("H")
        #expect(model.form?.fields[3].value == "")
        model.perform(.openLookup)
        #expect(model.toast?.message == "Account Rating is read-only for you in this org")

        // Before a save: a required name, a type the new record type does not offer, a whole number.
        focus("NumberOfEmployees", in: &model)
        for character in "12.5" { model.type(character) }
        model.perform(.save)
        #expect(model.mode == .editing)
        #expect(
            model.form?.problems == [
                "Name": "Account Name is required",
                "Type": "Account Type must be one of its values (Enter lists them)",
                "NumberOfEmployees": "Employees is a whole number",
            ])
    }

    @Test("a valid save stores typed JSON: numbers as numbers, the record type's id; Rating is not sent")
    func savedValuesAreTyped() throws {
        let fixture = try StoreFixture()
        var model = try accountsModel(fixture, describe: Self.accountDescribe)
        model.perform(.newRecord)
        focus("Name", in: &model)
        for character in "Blue Fin" { model.type(character) }
        focus("NumberOfEmployees", in: &model)
        for character in "120" { model.type(character) }
        focus("AnnualRevenue", in: &model)
        for character in "1200.505" { model.type(character) }
        model.perform(.save)
        #expect(model.form?.problems["AnnualRevenue"] == "Annual Revenue takes at most 2 decimals")
        model.perform(.deleteBackward)
        model.perform(.save)
        #expect(model.mode == .browsing)
        let saved = try #require(model.selected)
        #expect(saved.document["NumberOfEmployees"] == .int(120))
        #expect(saved.document["AnnualRevenue"] == .double(1200.5))
        #expect(saved.document["RecordTypeId"] == "0120000000001AAAAA")
        #expect(saved.document["Rating"] == nil)
    }

    @Test("without a stored describe the form uses the built-in rules and says why")
    func fallbackSaysSo() throws {
        let fixture = try StoreFixture()
        var model = try accountsModel(fixture, describe: nil)
        model.perform(.newRecord)
        let form = try #require(model.form)
        #expect(form.rulesNote == "Built-in rules: the org's rules for accounts arrive with the next sync (s)")
        #expect(form.fields.map(\.name) == ["Name", "Type", "Rating", "NumberOfEmployees", "AnnualRevenue"], "no record type to pick")
        #expect(form.fields.first?.rule.label == "Name")

        let none = ObjectDescriptions(store: fixture.store, soupBySObject: [:])
        var other = try AppModel(
            store: fixture.store, syncedFields: try SyncedFields(usersyncsJSON: Self.accountSyncs), kinds: [.account],
            descriptions: none)
        other.perform(.newRecord)
        #expect(other.form?.rulesNote == "Built-in rules: usersyncs.json has no metadata sync for Account")
    }

    @Test("an unchanged field saves back exactly as stored, though its value is no longer offered")
    func unchangedValuesStay() throws {
        let fixture = try StoreFixture()
        var model = try accountsModel(fixture, describe: Self.accountDescribe)
        try fixture.store.create(
            [
                "attributes": ["type": "Account"], "Id": "001000000000001AAA", "Name": "Old", "Type": "Retired", "AnnualRevenue": .double(10),
                "RecordTypeId": "0120000000001AAAAA",
                "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false,
            ], in: "accounts")
        try model.refreshAll()
        model.perform(.editRecord)
        focus("Name", in: &model)
        model.type("!")
        model.perform(.save)
        #expect(model.mode == .browsing, "\(model.form?.problems ?? [:])")
        #expect(model.selected?.document["Type"] == "Retired" && model.selected?.document["AnnualRevenue"] == .double(10))
    }

    /// A describe recorded from a real org (restforce's fixture): every field type it has gets
    /// its rule.
    @Test(
        "a real org's describe: every field type, createable-only and updateable-only fields",
        .enabled(if: RealSalesforce.isAvailable, "needs ../shared/real-salesforce"))
    func realDescribe() throws {
        let url = RealSalesforce.directory.appendingPathComponent("restforce-fixtures/sobject/sobject_describe_success_response.json")
        let describe = try #require(try JSONParser.parseObject(try #require(RealSalesforce.text(url))))
        let description = try #require(ObjectDescription(describe: describe))
        let names = [
            "Name", "Checkbox_Field", "Currency_Field", "Date_Field", "DateTime_Field", "Email_Field", "Number_Field",
            "Percent_Field", "Phone_Field", "Picklist_Field", "Picklist_Multiselect_Field", "TextArea_Field", "URL_Field",
            "CreateableButNotUpdateableField", "UpdateableButNotCreateableField", "Auto_Number",
        ]
        let kind = RecordKind(soupName: "whizbangs", sObjectType: "Whizbang")
        let create = RecordForm(kind: kind, purpose: .create(preset: [:]), title: "New", fieldNames: names, record: nil, description: description)
        let rules = Dictionary(uniqueKeysWithValues: create.fields.map { ($0.name, $0.rule) })
        #expect(rules["Checkbox_Field"]?.format == .checkbox)
        #expect(rules["Currency_Field"]?.format == .number(precision: 18, scale: 0))
        #expect(rules["Date_Field"]?.format == .date && rules["DateTime_Field"]?.format == .dateTime)
        #expect(rules["Email_Field"]?.format == .email && rules["Phone_Field"]?.format == .phone && rules["URL_Field"]?.format == .url)
        #expect(rules["Picklist_Field"]?.format == .picklist(restricted: false))
        #expect(rules["Picklist_Multiselect_Field"]?.format == .multiPicklist(restricted: false))
        #expect(rules["TextArea_Field"]?.format == .textArea && rules["TextArea_Field"]?.maxLength == 255)
        #expect(rules["Picklist_Field"]?.label == "Picklist Label")
        #expect(rules["CreateableButNotUpdateableField"]?.editable == true && rules["UpdateableButNotCreateableField"]?.editable == false)
        #expect(rules["Auto_Number"]?.editable == false)
        let picklist = try #require(create.fields.first { $0.name == "Picklist_Field" })
        #expect(create.choices(for: picklist).count == 10)
        let edit = RecordForm(kind: kind, purpose: .edit(entryId: 1), title: "Edit", fieldNames: names, record: nil, description: description)
        let editRules = Dictionary(uniqueKeysWithValues: edit.fields.map { ($0.name, $0.rule) })
        #expect(editRules["CreateableButNotUpdateableField"]?.editable == false && editRules["UpdateableButNotCreateableField"]?.editable == true)

        // The checks a save runs, in the org's labels.
        #expect(rules["Date_Field"]?.problem(with: "2026-02-30") == "Date Label is a date: YYYY-MM-DD")
        #expect(rules["Date_Field"]?.problem(with: "2024-02-29") == nil)
        #expect(rules["DateTime_Field"]?.problem(with: "2026-11-24 09:30") == nil)
        #expect(rules["DateTime_Field"]?.problem(with: "2026-11-24 25:00") == "DateTime Label is a date and time in UTC: YYYY-MM-DD HH:MM")
        #expect(rules["Number_Field"]?.problem(with: "1e5") == "Number Label is a whole number")
        #expect(rules["Email_Field"]?.problem(with: "nope") == "Email Label should look like name@example.com")
    }
}
