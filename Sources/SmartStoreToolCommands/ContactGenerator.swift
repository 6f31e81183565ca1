import ForceJSON

/// Deterministic, contact-shaped documents: 29 fields and about 1.4 KB of JSON each, the size of the
/// SDK's own benchmark records, with names from several scripts so full-text search has real work.
struct ContactGenerator: Sequence, IteratorProtocol {
    private static let firstNames = [
        "José", "Ana", "Zoë", "Mårten", "Chloé", "Łukasz", "Ngozi", "太郎", "Дмитрий", "Ελένη",
        "Priya", "Søren", "Ömer", "Ines", "Hiroshi", "Fatima", "Liam", "Noa", "Émile", "Kwame",
    ]
    private static let lastNames = [
        "García", "Núñez", "Müller", "O'Brien", "山田", "Иванов", "Παπαδόπουλος", "Nguyễn",
        "Okafor", "Smith", "Johansson", "Kowalski", "Rossi", "Dubois", "Tanaka", "Silva",
        "Haas", "Thompson", "Kwan", "Henderson", "Pulaski", "Stern", "Geyer", "Lovelace",
    ]
    private static let titles = [
        "Field Engineer", "Account Executive", "VP Sales", "Buyer", "CFO", "Office Manager",
        "Directora Comercial", "Technician", "営業部長", "Procurement Lead",
    ]
    private static let departments = ["Sales", "Engineering", "Finance", "Operations", "Support", "Marketing"]
    private static let cities = ["Sevilla", "München", "Kraków", "São Paulo", "東京", "Lagos", "Montréal", "Reykjavík"]

    private(set) var index = 0
    let count: Int

    init(count: Int) { self.count = count }

    mutating func next() -> JSONObject? {
        guard index < count else { return nil }
        defer { index += 1 }
        return Self.document(index)
    }

    static func salesforceId(prefix: String, _ n: Int) -> String {
        let digits = String(n, radix: 36, uppercase: true)
        return prefix + String(repeating: "0", count: Swift.max(0, 12 - digits.count)) + digits + "AAA"
    }

    static func document(_ n: Int) -> JSONObject {
        let first = firstNames[n % firstNames.count]
        let last = lastNames[(n / firstNames.count + n) % lastNames.count]
        let id = salesforceId(prefix: "003", n)
        let day = 1 + n % 28
        let stamp = "2026-0\(1 + n % 9)-\(day < 10 ? "0" : "")\(day)T10:\(10 + n % 50):00.000+0000"
        let asciiLast = last.unicodeScalars.filter(\.isASCII).map(String.init).joined().lowercased()
        return [
            "attributes": ["type": "Contact", "url": .string("/services/data/v59.0/sobjects/Contact/\(id)")],
            "Id": .string(id),
            "FirstName": .string(first),
            "LastName": .string(last),
            "Salutation": .string(n % 2 == 0 ? "Ms." : "Mr."),
            "Title": .string(titles[n % titles.count]),
            "Email": .string("contact\(n).\(asciiLast.isEmpty ? "x" : asciiLast)@example.com"),
            "Phone": .string("+1 415 555 \(1000 + n % 9000)"),
            "MobilePhone": .string("+34 600 \(100_000 + n % 900_000)"),
            "HomePhone": n % 4 == 0 ? .null : .string("+49 30 \(200_000 + n % 700_000)"),
            "Fax": .null,
            "Department": .string(departments[n % departments.count]),
            "AccountId": .string(salesforceId(prefix: "001", n / 10)),
            "AssistantName": n % 3 == 0 ? .string("Assistant \(n)") : .null,
            "LeadSource": .string(["Web", "Partner", "Trade Show", "Referral"][n % 4]),
            "Birthdate": .string("19\(60 + n % 40)-0\(1 + n % 9)-1\(n % 10)"),
            "MailingStreet": .string("\(n % 500) Calle de la Constitución, piso \(n % 9)"),
            "MailingCity": .string(cities[n % cities.count]),
            "MailingState": .string("State \(n % 50)"),
            "MailingPostalCode": .string(String(10000 + n % 89999)),
            "MailingCountry": .string(["Spain", "Germany", "Poland", "Brazil", "Japan", "Nigeria", "Canada", "Iceland"][n % 8]),
            "Description": .string(
                "Met at the regional fair; prefers morning calls and email follow-ups. Interested in the field-service bundle, renewal due next quarter. Notes #\(n): decision maker for purchases under 50k, involve procurement above that threshold. Speaks Spanish and English."
            ),
            "OwnerId": .string(salesforceId(prefix: "005", n % 7)),
            "CreatedById": .string(salesforceId(prefix: "005", 1)),
            "LastModifiedById": .string(salesforceId(prefix: "005", n % 7)),
            "CreatedDate": .string(stamp),
            "LastModifiedDate": .string(stamp),
            "Cost__c": .int(Int64(n % 10_000)),
            "Percent__c": .double(Double(n % 1000) / 10),
        ]
    }
}
