import ForceJSON
import Foundation
import MobileSync
import SmartStore

/// One field as the org describes it: what the form shows and checks before a save.
public struct FieldDescription: Sendable, Equatable {
    /// The describe `type`s the form treats differently; anything else is edited as text.
    public enum Kind: Sendable, Equatable {
        case text, textArea, email, phone, url, picklist, multiPicklist, checkbox, date, dateTime
        case integer, number, currency, percent, reference
    }

    public let name: String
    public let label: String
    public let kind: Kind
    /// Characters a text field holds (0: no limit the describe states).
    public let length: Int
    /// Numbers: all digits, and digits after the point.
    public let precision: Int
    public let scale: Int
    public let nillable: Bool
    public let createable: Bool
    public let updateable: Bool
    public let defaultedOnCreate: Bool
    /// The active values, in the org's order (every record type's; see `ObjectDescription.choices`).
    public let picklistValues: [String]
    /// The active values with their labels and, for a dependent picklist, `validFor` (base64: bit
    /// n, in byte n >> 3 from the high bit, for the controller's n-th value).
    public let picklistEntries: [PicklistEntry]
    public let restrictedPicklist: Bool

    public struct PicklistEntry: Sendable, Equatable {
        public let value: String
        public let label: String
        public let validFor: String?
    }

    /// Salesforce's rule: a value must be given when the field is createable, not nillable and not
    /// filled by the org on create.
    public var isRequired: Bool { createable && !nillable && !defaultedOnCreate && kind != .checkbox }

    init?(_ json: JSONValue) {
        guard let name = json["name"]?.stringValue else { return nil }
        self.name = name
        let kind: Kind =
            switch json["type"]?.stringValue ?? "string" {
            case "textarea": .textArea
            case "email": .email
            case "phone": .phone
            case "url": .url
            case "picklist", "combobox": .picklist
            case "multipicklist": .multiPicklist
            case "boolean": .checkbox
            case "date": .date
            case "datetime": .dateTime
            case "int": .integer
            case "double", "long": .number
            case "currency": .currency
            case "percent": .percent
            case "reference": .reference
            default: .text
            }
        self.kind = kind
        // A lookup is labelled by what it points at, as Salesforce's pages do ("Account", not "Account ID").
        let label = json["label"]?.stringValue ?? name
        self.label = kind == .reference && label.hasSuffix(" ID") ? String(label.dropLast(3)) : label
        length = Int(json["length"]?.int64Value ?? 0)
        precision = Int(json["precision"]?.int64Value ?? json["digits"]?.int64Value ?? 0)
        scale = Int(json["scale"]?.int64Value ?? 0)
        nillable = json["nillable"]?.boolValue ?? true
        createable = json["createable"]?.boolValue ?? true
        updateable = json["updateable"]?.boolValue ?? true
        defaultedOnCreate = json["defaultedOnCreate"]?.boolValue ?? false
        picklistEntries = (json["picklistValues"]?.arrayValue ?? []).compactMap { entry in
            guard entry["active"]?.boolValue != false, let value = entry["value"]?.stringValue else { return nil }
            return PicklistEntry(value: value, label: entry["label"]?.stringValue ?? value, validFor: entry["validFor"]?.stringValue)
        }
        picklistValues = picklistEntries.map(\.value)
        restrictedPicklist = json["restrictedPicklist"]?.boolValue ?? false
    }
}

/// A record type a user may give a new record.
public struct RecordTypeChoice: Sendable, Equatable {
    public let id: String
    public let label: String
}

/// The org's describe of one sObject, as the `metadata` sync down stored it: the form's labels,
/// types and rules, kept offline. Read again each time a form opens, so a sync's newer describe
/// applies at once.
public struct ObjectDescription: Sendable, Equatable {
    public let sobjectType: String
    public let fields: [String: FieldDescription]
    /// The record types the user may pick (Master only when the object has no others).
    public let recordTypes: [RecordTypeChoice]
    let allRecordTypes: [RecordTypeChoice]
    public let defaultRecordTypeId: String?
    /// Record type id → field → the values that record type offers.
    let picklistsByRecordType: [String: [String: [String]]]

    public init?(describe: JSONObject) {
        guard let type = describe["name"]?.stringValue, let fieldList = describe["fields"]?.arrayValue else { return nil }
        sobjectType = type
        var fields: [String: FieldDescription] = [:]
        for json in fieldList { if let field = FieldDescription(json) { fields[field.name] = field } }
        self.fields = fields
        let infos = describe["recordTypeInfos"]?.arrayValue ?? []
        allRecordTypes = infos.compactMap { info in
            info["recordTypeId"]?.stringValue.map { RecordTypeChoice(id: $0, label: info["name"]?.stringValue ?? $0) }
        }
        let available = Set(infos.filter { $0["available"]?.boolValue == true }.compactMap { $0["recordTypeId"]?.stringValue })
        recordTypes = allRecordTypes.filter { available.contains($0.id) }
        defaultRecordTypeId = infos.first { $0["defaultRecordTypeMapping"]?.boolValue == true }?["recordTypeId"]?.stringValue
        var picklists: [String: [String: [String]]] = [:]
        for (id, byField) in describe[SObjectDescribeKeys.picklistsByRecordType]?.objectValue ?? [:] {
            var values: [String: [String]] = [:]
            for (field, list) in byField.objectValue ?? [:] { values[field] = list.arrayValue?.compactMap(\.stringValue) ?? [] }
            picklists[id] = values
        }
        picklistsByRecordType = picklists
    }

    public func field(_ name: String) -> FieldDescription? { fields[name] }

    /// The values `field` offers on a record of `recordTypeId` (the default record type when nil).
    public func choices(for field: FieldDescription, recordTypeId: String?) -> [String] {
        guard let id = recordTypeId ?? defaultRecordTypeId, let values = picklistsByRecordType[id]?[field.name] else {
            return field.picklistValues
        }
        return values
    }

    /// The org's countries and states for an address's text field (`MailingCountry`,
    /// `MailingState`), when the org has State and Country/Territory Picklists: its describe then
    /// has the code picklists beside them.
    public func addressChoices(for fieldName: String) -> AddressChoices? {
        let prefix: String
        if fieldName.hasSuffix("Country") {
            prefix = String(fieldName.dropLast("Country".count))
        } else if fieldName.hasSuffix("State") {
            prefix = String(fieldName.dropLast("State".count))
        } else {
            return nil
        }
        guard let countryCodes = fields[prefix + "CountryCode"], !countryCodes.picklistEntries.isEmpty else { return nil }
        let countries = countryCodes.picklistEntries.map { AddressChoices.Entry(code: $0.value, label: $0.label) }
        var states: [String: [AddressChoices.Entry]] = [:]
        for entry in fields[prefix + "StateCode"]?.picklistEntries ?? [] {
            guard let validFor = entry.validFor, let bits = Data(base64Encoded: validFor) else { continue }
            for (index, byte) in bits.enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                    let position = index * 8 + bit
                    if countries.indices.contains(position) {
                        states[countries[position].code, default: []].append(AddressChoices.Entry(code: entry.value, label: entry.label))
                    }
                }
            }
        }
        return AddressChoices(countries: countries, states: states)
    }

    /// Whether a user creating a record has a record type to choose.
    public var offersRecordTypeChoice: Bool { recordTypes.count > 1 }

    /// The label of a record type the describe lists (also one the user may no longer pick).
    public func recordTypeLabel(_ id: String) -> String? { allRecordTypes.first { $0.id == id }?.label }
}

/// Where the describes are kept: the soup each `metadata` sync down of the config fills, by
/// sObject type.
public struct ObjectDescriptions: Sendable {
    let store: SmartStore
    let soupBySObject: [String: String]

    public init(store: SmartStore, soupBySObject: [String: String]) {
        self.store = store
        self.soupBySObject = soupBySObject
    }

    /// The metadata syncs of `syncs`: sObject type → soup.
    public static func soups(in syncs: SyncsConfig) -> [String: String] {
        var soups: [String: String] = [:]
        for entry in syncs.entries {
            guard case let .down(target) = entry.target, case let .metadata(type) = target.kind else { continue }
            soups[type] = entry.soupName
        }
        return soups
    }

    /// Whether the config has a metadata sync for `sobjectType` at all.
    public func isSynced(_ sobjectType: String) -> Bool { soupBySObject[sobjectType] != nil }

    /// The stored describe of `sobjectType`; nil before its first sync (or when the config has none).
    public func description(of sobjectType: String) -> ObjectDescription? {
        guard let soup = soupBySObject[sobjectType], (try? store.soupNames().contains(soup)) == true else { return nil }
        // Smart SQL reads an unindexed Id from the JSON; the SDK's test app keeps its describes in
        // its accounts soup, beside the records.
        let sql = "SELECT {\(soup):_soup} FROM {\(soup)} WHERE {\(soup):Id} = ?"
        let rows = (try? store.query(.smart(sql, pageSize: 10), arguments: [.string(sobjectType)])) ?? []
        for row in rows {
            guard let document = row.arrayValue?.first?.objectValue, document["Id"]?.stringValue == sobjectType,
                document["fields"] != nil
            else { continue }
            return ObjectDescription(describe: document)
        }
        return nil
    }
}
