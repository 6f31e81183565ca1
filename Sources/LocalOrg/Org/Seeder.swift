import ForceJSON
import Foundation
import GRDB

/// A small deterministic generator (SplitMix64): the same seed gives the same demo data everywhere.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Demo data for trainings: accounts and contacts with names from many languages (accents, CJK,
/// Cyrillic, Arabic), some very long, and optional fields often left empty.
public enum Seeder {
    static let firstNames = [
        "Ana", "José", "François", "Zoë", "Søren", "Ingrid", "Łukasz", "Dvořák", "Björn", "Ayşe", "Chloé", "Mateus",
        "Yuki", "Hiroshi", "さくら", "太郎", "伟", "秀英", "민준", "서연", "Иван", "Ольга", "محمد", "فاطمة", "Priya",
        "Ngozi", "Kwame", "Siobhán", "Nguyễn Văn", "Åsa", "Émile", "Renée", "Zoltán", "Oğuz", "Mary", "John", "Wei",
    ]
    static let lastNames = [
        "García", "Müller", "Dubois", "Østergaard", "Kowalski", "Novák", "Ångström", "Yılmaz", "Silva", "Rossi",
        "Smith", "O'Brien", "van der Berg", "Nakamura", "佐藤", "田中", "王", "李", "김", "박", "Иванова", "Смирнов",
        "الحسيني", "Okafor", "Mensah", "Ní Bhriain", "Trần", "Lindqvist", "Lefèvre", "Kiss", "Doe",
        "Wolfeschlegelsteinhausenbergerdorff-Montgomery-Ballesteros de la Santísima Trinidad",
    ]
    static let companyStems = [
        "Acme", "Globex", "Initech", "Umbrella", "Soylent", "Müller & Söhne", "Café Lumière", "Nordlys", "東京テクノ",
        "北京数据", "서울 솔루션", "Москва Логистик", "Al-Noor", "Sakura Foods", "Fjällräven Outfitters", "Zürich Rück",
        "Łódź Machines", "Crème Brûlée Bakeries", "Andes Minería", "Kilimanjaro Coffee",
    ]
    static let companySuffixes = ["GmbH", "S.A.", "Ltd", "Inc.", "株式会社", "有限公司", "AB", "SARL", "LLC", "Group", "Holdings", "Partners"]
    static let industries = [
        "Agriculture", "Banking", "Biotechnology", "Consulting", "Education", "Energy", "Finance", "Healthcare",
        "Hospitality", "Manufacturing", "Media", "Retail", "Technology", "Telecommunications", "Transportation",
    ]
    static let places: [(city: String, postalCode: String, country: String, street: String)] = [
        // Countries as an org with State and Country/Territory Picklists holds them: its labels.
        ("Paris", "75002", "France", "12 rue de la Paix"), ("München", "80331", "Germany", "Marienplatz 8"),
        ("東京", "100-0005", "Japan", "丸の内1-9-1"), ("São Paulo", "01310-100", "Brazil", "Av. Paulista, 1578"),
        ("Kraków", "31-042", "Poland", "Rynek Główny 1"), ("Москва", "109012", "Russian Federation", "Красная площадь, 1"),
        ("Reykjavík", "101", "Iceland", "Laugavegur 24"), ("서울", "04524", "Korea, Republic of", "세종대로 110"),
        ("Montréal", "H2Y 1C6", "Canada", "275 rue Notre-Dame Est"), ("Zürich", "8001", "Switzerland", "Bahnhofstrasse 45"),
        ("San Francisco", "94105", "United States", "415 Mission Street"), ("Lagos", "101241", "Nigeria", "1 Adeola Odeku Street"),
    ]
    static let titles = [
        "CEO", "CTO", "Directrice financière", "Head of Sales", "Développeur", "Ingeniera de datos", "営業部長",
        "Product Manager", "Einkaufsleiterin", "Account Executive", "Office Manager", "VP Marketing",
    ]
    static let departments = ["Sales", "Finance", "Engineering", "Marketing", "Achats", "Recherche et Développement", "人事部", "Support"]

    /// Creates `accounts` accounts and `contacts` contacts (spread over the accounts, some with
    /// none) in one transaction. Returns the counts created. Records are owned by the active
    /// users, or only by `owners` (user ids) when given: a trainee's own copy of the data.
    public static func seed(
        store: OrgStore, accounts accountCount: Int, contacts contactCount: Int, randomSeed: UInt64,
        owners: [String]? = nil
    ) throws -> (accounts: Int, contacts: Int) {
        guard let account = store.schema.object(named: "Account"), let contact = store.schema.object(named: "Contact"),
            let user = store.schema.object(named: "User")
        else { throw SchemaError(description: "the schema needs Account, Contact and User") }
        var random = SeededGenerator(seed: randomSeed)
        let now = OrgStore.now()
        return try store.writeNow { db in
            let ownerIds = try owners ?? String.fetchAll(db, sql: "SELECT Id FROM \(quoted(user.tableName)) WHERE IsActive = 1 AND IsDeleted = 0 ORDER BY Id")
            guard let firstOwner = ownerIds.first else { throw SchemaError(description: "the org has no active user") }
            var accountIds: [String] = []
            accountIds.reserveCapacity(accountCount)
            let firstAccountNumber = try store.reserveNumbers(db, keyPrefix: account.keyPrefix, count: Int64(accountCount))
            for index in 0..<accountCount {
                let place = places.randomElement(using: &random) ?? places[0]
                let stem = companyStems.randomElement(using: &random) ?? "Acme"
                var values: [String: DatabaseValue] = [
                    "Name": "\(stem) \(companySuffixes.randomElement(using: &random) ?? "Inc.") \(index + 1)".databaseValue,
                    "OwnerId": (ownerIds.randomElement(using: &random) ?? firstOwner).databaseValue,
                    "AccountNumber": "ACC-\(String(format: "%06d", index + 1))".databaseValue,
                ]
                if Int.random(in: 0..<10, using: &random) < 8 { values["Industry"] = (industries.randomElement(using: &random) ?? "Other").databaseValue }
                if Int.random(in: 0..<10, using: &random) < 7 { values["Phone"] = phone(&random).databaseValue }
                if Int.random(in: 0..<10, using: &random) < 6 {
                    let domain = stem.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
                    values["Website"] = "https://www.\(domain.isEmpty ? "example" : domain)\(index + 1).example".databaseValue
                }
                if Int.random(in: 0..<10, using: &random) < 7 {
                    values["BillingStreet"] = place.street.databaseValue
                    values["BillingCity"] = place.city.databaseValue
                    values["BillingPostalCode"] = place.postalCode.databaseValue
                    values["BillingCountry"] = place.country.databaseValue
                    if account.field(named: "BillingCountryCode") != nil, let country = AddressPicklists.standard.country(named: place.country) {
                        values["BillingCountryCode"] = country.code.databaseValue
                    }
                }
                let when = now - Int64.random(in: 0..<(30 * 86_400), using: &random)
                let id = SalesforceId.make(keyPrefix: account.keyPrefix, number: firstAccountNumber + Int64(index))
                accountIds.append(
                    try store.insertRow(
                        db, object: account, values: &values, actingUserId: firstOwner, now: when,
                        presetId: id, checkReferences: false, recordHistory: false))
            }
            let firstContactNumber = try store.reserveNumbers(db, keyPrefix: contact.keyPrefix, count: Int64(contactCount))
            // Every full name once while the pairs last (first × last names), so a demo's list never
            // shows one person twice; a missing first name only where the last name alone is new.
            var pairs = Array(0..<(firstNames.count * lastNames.count))
            pairs.shuffle(using: &random)
            var lastNamesAlone = Set<String>()
            for index in 0..<contactCount {
                let pair = pairs[index % pairs.count]
                let first = firstNames[pair / lastNames.count]
                let last = lastNames[pair % lastNames.count]
                var values: [String: DatabaseValue] = [
                    "LastName": String(last.prefix(80)).databaseValue,
                    "OwnerId": (ownerIds.randomElement(using: &random) ?? firstOwner).databaseValue,
                ]
                let withoutFirstName = Int.random(in: 0..<10, using: &random) == 9
                if !withoutFirstName || !lastNamesAlone.insert(last).inserted { values["FirstName"] = first.databaseValue }
                if !accountIds.isEmpty, Int.random(in: 0..<10, using: &random) < 9 {
                    values["AccountId"] = (accountIds.randomElement(using: &random) ?? accountIds[0]).databaseValue
                }
                if Int.random(in: 0..<10, using: &random) < 7 { values["Title"] = (titles.randomElement(using: &random) ?? "CEO").databaseValue }
                if Int.random(in: 0..<10, using: &random) < 8 { values["Email"] = "contact\(index + 1)@example.com".databaseValue }
                if Int.random(in: 0..<10, using: &random) < 6 { values["MobilePhone"] = phone(&random).databaseValue }
                if Int.random(in: 0..<10, using: &random) < 3 { values["HomePhone"] = phone(&random).databaseValue }
                if Int.random(in: 0..<10, using: &random) < 6 { values["Department"] = (departments.randomElement(using: &random) ?? "Sales").databaseValue }
                let when = now - Int64.random(in: 0..<(30 * 86_400), using: &random)
                let id = SalesforceId.make(keyPrefix: contact.keyPrefix, number: firstContactNumber + Int64(index))
                _ = try store.insertRow(
                    db, object: contact, values: &values, actingUserId: firstOwner, now: when,
                    presetId: id, checkReferences: false, recordHistory: false)
            }
            return (accountCount, contactCount)
        }
    }

    static func phone(_ random: inout SeededGenerator) -> String {
        "+\(Int.random(in: 1...99, using: &random)) \(Int.random(in: 100...999, using: &random)) \(Int.random(in: 100...999, using: &random)) \(Int.random(in: 1000...9999, using: &random))"
    }
}
