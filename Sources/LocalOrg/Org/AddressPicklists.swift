import ForceJSON
import Foundation
import GRDB

/// State and Country/Territory Picklists, on in new orgs: each address's country and state are
/// picklists of ISO 3166 codes (`MailingCountryCode`, `MailingStateCode`) beside the text fields,
/// and a save keeps the two in step as the "Field-Syncing Logic" help describes: the text alone
/// fills the code, the code alone fills the text (its integration value, the label), both given
/// must agree (on insert the code wins), and a value that is not one of the org's is refused with
/// FIELD_INTEGRITY_EXCEPTION. A state is checked against its country's states; a country without
/// states takes any state text.
public struct AddressPicklists: Sendable {
    public struct State: Sendable, Equatable {
        public var code: String
        public var label: String
    }

    public struct Country: Sendable, Equatable {
        public var code: String
        public var label: String
        public var states: [State]
    }

    /// By label, as describe lists them (the order `validFor` bits count in).
    public let countries: [Country]
    private let byCode: [String: Int]
    private let byLabel: [String: Int]

    init(countries: [(code: String, label: String)], states: [(country: String, code: String, label: String)]) {
        var grouped: [String: [State]] = [:]
        for state in states { grouped[state.country, default: []].append(State(code: state.code, label: state.label)) }
        let sorted = countries.sorted { Self.collationKey($0.label) < Self.collationKey($1.label) }
        self.countries = sorted.map { Country(code: $0.code, label: $0.label, states: grouped[$0.code] ?? []) }
        byCode = Dictionary(uniqueKeysWithValues: self.countries.enumerated().map { ($1.code.uppercased(), $0) })
        byLabel = Dictionary(self.countries.enumerated().map { (Self.folded($1.label), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The list a new org has (`AddressPicklists+Defaults.swift`).
    public static let standard: AddressPicklists = {
        let countries = defaultCountries.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        let states = defaultStates.split(separator: "\n").compactMap { line -> (String, String, String)? in
            let parts = line.split(separator: "\t", maxSplits: 2).map(String.init)
            return parts.count == 3 ? (parts[0], parts[1], parts[2]) : nil
        }
        return AddressPicklists(countries: countries, states: states)
    }()

    public func country(code: String) -> Country? { byCode[code.uppercased()].map { countries[$0] } }
    /// The country whose integration value (its label) is `text`, ignoring case and accents.
    public func country(named text: String) -> Country? { byLabel[Self.folded(text)].map { countries[$0] } }
    func index(of code: String) -> Int? { byCode[code.uppercased()] }

    static func folded(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Sorts as Salesforce's describe does: by label, accents and case aside ("Türkiye" with the Ts).
    static func collationKey(_ label: String) -> String { folded(label).lowercased() }

    /// The address groups of each object: `Mailing` → MailingCountry, MailingCountryCode, MailingState, MailingStateCode.
    static let addresses: [String: [String]] = ["Contact": ["Mailing", "Other"], "Account": ["Billing", "Shipping"]]

    /// Whether `field` is one of the code fields the feature adds (absent from an org without it).
    static func isCodeField(_ field: String, of object: String) -> Bool {
        (addresses[object] ?? []).contains { field == $0 + "CountryCode" || field == $0 + "StateCode" }
    }

    static func label(of field: FieldDefinition) -> String {
        field.label.replacingOccurrences(of: " Code", with: "")
    }

    /// Keeps `record`'s codes and texts in step for the address fields `written` sets, or refuses.
    func settle(_ object: ObjectDefinition, record: inout [String: DatabaseValue], written: [String: DatabaseValue], creating: Bool) throws {
        for prefix in Self.addresses[object.name] ?? [] {
            guard let countryText = object.field(named: prefix + "Country"), let countryCode = object.field(named: prefix + "CountryCode"),
                let stateText = object.field(named: prefix + "State"), let stateCode = object.field(named: prefix + "StateCode")
            else { continue }
            let touched = [countryText, countryCode, stateText, stateCode].contains { written[$0.name] != nil }
            guard touched else { continue }
            func text(_ field: FieldDefinition) -> String? {
                String.fromDatabaseValue(record[field.name] ?? .null).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            }
            // The country: a code written wins on insert; a text written alone sets the code.
            var country: Country?
            let codeWritten = written[countryCode.name].flatMap { String.fromDatabaseValue($0) }
            let textWritten = written[countryText.name].flatMap { String.fromDatabaseValue($0) }
            // An explicit null clears the country, whichever of the two fields carries it.
            let cleared =
                (written[countryText.name]?.isNull == true && codeWritten == nil)
                || (written[countryCode.name]?.isNull == true && textWritten == nil)
            if cleared {
                country = nil
            } else if let code = codeWritten ?? (textWritten == nil ? text(countryCode) : nil) {
                guard let found = self.country(code: code) else { throw Self.problem(with: .country, field: countryCode) }
                if !creating, let given = textWritten, self.country(named: given)?.code != found.code { throw Self.problem(with: .country, field: countryText) }
                country = found
            } else if let given = textWritten ?? text(countryText) {
                guard let found = self.country(named: given) else { throw Self.problem(with: .country, field: countryText) }
                country = found
            }
            record[countryCode.name] = country.map { $0.code.databaseValue } ?? .null
            record[countryText.name] = country.map { $0.label.databaseValue } ?? .null
            // The state, within the country's states when it has any.
            let stateCodeWritten = written[stateCode.name].flatMap { String.fromDatabaseValue($0) }
            let stateTextWritten = written[stateText.name].flatMap { String.fromDatabaseValue($0) }
            let stateCleared =
                (written[stateText.name]?.isNull == true && stateCodeWritten == nil)
                || (written[stateCode.name]?.isNull == true && stateTextWritten == nil)
            let givenCode = stateCleared ? nil : stateCodeWritten ?? (stateTextWritten == nil ? text(stateCode) : nil)
            let givenText = stateCleared ? nil : stateTextWritten ?? (givenCode == nil ? text(stateText) : nil)
            guard givenCode != nil || givenText != nil else {
                record[stateCode.name] = .null
                record[stateText.name] = .null
                continue
            }
            guard let country else {
                throw APIError(
                    status: 400, errorCode: "FIELD_INTEGRITY_EXCEPTION",
                    message: "A country/territory must be specified before specifying a state value for field: \(stateText.label)",
                    fields: [stateText.name])
            }
            if country.states.isEmpty {
                // No states for this country: the text is kept as typed, without a code.
                if givenCode != nil { throw Self.problem(with: .state, field: stateCode) }
                record[stateCode.name] = .null
                continue
            }
            let state =
                givenCode.flatMap { code in country.states.first { $0.code.caseInsensitiveCompare(code) == .orderedSame } }
                ?? givenText.flatMap { name in country.states.first { Self.folded($0.label) == Self.folded(name) } }
            guard let state else { throw Self.problem(with: .state, field: givenCode != nil ? stateCode : stateText) }
            if !creating, let name = stateTextWritten, givenCode != nil, Self.folded(state.label) != Self.folded(name) {
                throw Self.problem(with: .state, field: stateText)
            }
            record[stateCode.name] = state.code.databaseValue
            record[stateText.name] = state.label.databaseValue
        }
    }

    enum Part { case country, state }

    /// Salesforce's refusal, as third-party recordings of it read: the help's sentence, then the field's label.
    static func problem(with part: Part, field: FieldDefinition) -> APIError {
        let sentence =
            part == .country
            ? "There's a problem with this country, even though it may appear correct. Please select a country/territory from the list of valid countries."
            : "There's a problem with this state, even though it may appear correct. Please select a state from the list of valid states."
        return APIError(status: 400, errorCode: "FIELD_INTEGRITY_EXCEPTION", message: "\(sentence): \(label(of: field))", fields: [field.name])
    }

    /// The picklist entries describe lists for a code field: every country, or every state with
    /// `validFor` naming its country's bit (bit n in byte n >> 3, mask 0x80 >> n % 8, base64).
    func describeEntries(for field: String) -> [JSONValue] {
        if field.hasSuffix("CountryCode") {
            return countries.map { ["active": true, "defaultValue": false, "label": .string($0.label), "validFor": .null, "value": .string($0.code)] }
        }
        var entries: [JSONValue] = []
        for (index, country) in countries.enumerated() {
            var bytes = [UInt8](repeating: 0, count: (index >> 3) + 1)
            bytes[index >> 3] |= 0x80 >> UInt8(index % 8)
            while bytes.count % 3 != 0 { bytes.append(0) }
            let validFor = Data(bytes).base64EncodedString()
            for state in country.states {
                entries.append(["active": true, "defaultValue": false, "label": .string(state.label), "validFor": .string(validFor), "value": .string(state.code)])
            }
        }
        return entries
    }
}
