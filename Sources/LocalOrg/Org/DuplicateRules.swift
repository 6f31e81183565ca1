import ForceJSON
import Foundation
import GRDB

/// The standard duplicate rules every new org has active ("Standard Duplicate Rules" help):
/// Contact against the Standard Contact Matching Rule, Account against the Standard Account
/// Matching Rule. On create their action is Allow with an alert, which the API cannot show, so a
/// matching create is refused with `DUPLICATES_DETECTED` unless the request carries
/// `Sforce-Duplicate-Rule-Header: allowSave=true` (v52.0+). On edit they only report. An org may
/// set a rule to Block instead (`localorg rules duplicate-action`), which no header overrides.
struct DuplicateRule: Sendable {
    var name: String
    var object: String
    var matchingRule: String
    /// The rule's alert text; the standard rules' default.
    var alertText = "Use one of these records?"

    static let standard: [String: DuplicateRule] = [
        "Contact": DuplicateRule(name: "Standard_Contact_Duplicate_Rule", object: "Contact", matchingRule: "Standard_Contact_Match_Rule_v1_1"),
        "Account": DuplicateRule(name: "Standard_Account_Duplicate_Rule", object: "Account", matchingRule: "Standard_Account_Match_Rule_v1_0"),
    ]

    /// The columns a duplicate check finds its candidates by, indexed so a save into an org of a
    /// million contacts reads a few rows (Account's Name is indexed as its name field).
    static let candidateFields: Set<String> = ["Contact.Email", "Contact.LastName"]

    /// At most this many matching records are named, as the duplicate record sets Salesforce keeps.
    static let matchLimit = 100
}

/// What a duplicate rule does when a save matches.
public enum DuplicateAction: String, Sendable, CaseIterable {
    /// Allow with an alert: refused on the API unless `allowSave=true`.
    case alert
    /// Block: always refused.
    case block
}

/// The standard matching rules, approximated: each field normalised as the "Matching Methods"
/// help describes (case, spaces and punctuation ignored; initials and common name variants for
/// first names; digits only for phones; company suffixes dropped), blank fields never matching,
/// and the matching equation of the rule's help page. Salesforce's fuzzy scores are not modelled.
enum MatchingRules {
    /// Whether `candidate` is a duplicate of `record` (both as stored: field → value).
    /// The fields `matches` reads of an object's records.
    static func comparedFields(of object: String) -> [String] {
        switch object {
        case "Contact": ["Email", "FirstName", "LastName", "Title", "AccountId", "Phone", "MobilePhone", "MailingStreet", "MailingCity", "MailingPostalCode"]
        case "Account": ["Name", "BillingStreet", "BillingCity", "BillingPostalCode", "Phone", "Website"]
        default: []
        }
    }

    static func matches(_ record: [String: DatabaseValue], _ candidate: [String: DatabaseValue], object: String) -> Bool {
        switch object {
        case "Contact": contactsMatch(record, candidate)
        case "Account": accountsMatch(record, candidate)
        default: false
        }
    }

    /// Standard Contact Matching Rule: (First AND Last AND Title AND Account) OR (First AND Last AND
    /// Email) OR (First AND Last AND Phone AND Account) OR (First AND Last AND Mailing Street AND
    /// (City OR ZIP OR Phone)) OR (First AND Last AND Mailing Street AND Title) OR (First AND Last
    /// AND Title AND Email) OR (First AND Last AND Phone); the Email match key alone, and a name
    /// within one account, as its v1.1 keys find them.
    static func contactsMatch(_ a: [String: DatabaseValue], _ b: [String: DatabaseValue]) -> Bool {
        func same(_ field: String, _ compare: (String, String) -> Bool = { $0 == $1 }) -> Bool {
            guard let x = text(a[field]), let y = text(b[field]) else { return false }
            return compare(x, y)
        }
        let email = same("Email") { $0.lowercased() == $1.lowercased() }
        if email { return true }
        let forwards = same("FirstName", firstNamesMatch) && same("LastName") { normalised($0) == normalised($1) }
        let swapped: Bool = {
            guard let firstA = text(a["FirstName"]), let lastA = text(a["LastName"]), let firstB = text(b["FirstName"]),
                let lastB = text(b["LastName"])
            else { return false }
            return normalised(firstA) == normalised(lastB) && normalised(lastA) == normalised(firstB)
        }()
        guard forwards || swapped else { return false }
        let title = same("Title") { normalised($0) == normalised($1) }
        let account = same("AccountId")
        let phone = same("Phone", phonesMatch) || same("MobilePhone", phonesMatch)
        let street = same("MailingStreet") { normalised($0) == normalised($1) }
        let city = same("MailingCity") { normalised($0) == normalised($1) }
        let zip = same("MailingPostalCode") { normalised($0) == normalised($1) }
        return account || phone || (street && (city || zip || title)) || (title && email)
    }

    /// Standard Account Matching Rule: the company name (suffixes dropped) AND (Billing Street OR
    /// City and ZIP OR Phone OR Website).
    static func accountsMatch(_ a: [String: DatabaseValue], _ b: [String: DatabaseValue]) -> Bool {
        func same(_ field: String, _ compare: (String, String) -> Bool = { normalised($0) == normalised($1) }) -> Bool {
            guard let x = text(a[field]), let y = text(b[field]) else { return false }
            return compare(x, y)
        }
        guard same("Name", { companyName($0) == companyName($1) && !companyName($0).isEmpty }) else { return false }
        return same("BillingStreet") || (same("BillingCity") && same("BillingPostalCode")) || same("Phone", phonesMatch)
            || same("Website") { website($0) == website($1) }
    }

    static func text(_ value: DatabaseValue?) -> String? {
        guard let value, let text = String.fromDatabaseValue(value)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// Lowercased, accents folded, letters and digits only, words separated by one space.
    static func normalised(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var words: [String] = []
        var word = ""
        for scalar in folded.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words.joined(separator: " ")
    }

    /// "Removes words such as Inc and Corp before comparing" (Fuzzy: Company Name).
    static func companyName(_ text: String) -> String {
        let suffixes: Set<String> = [
            "inc", "incorporated", "corp", "corporation", "co", "company", "llc", "ltd", "limited", "plc",
            "gmbh", "ag", "sa", "sarl", "srl", "spa", "bv", "nv", "oy", "ab", "as", "kg", "the",
        ]
        return normalised(text).split(separator: " ").filter { !suffixes.contains(String($0)) }.joined(separator: " ")
    }

    static func website(_ text: String) -> String {
        var host = text.lowercased()
        for prefix in ["https://", "http://", "www."] where host.hasPrefix(prefix) { host.removeFirst(prefix.count) }
        return String(host.split(separator: "/").first ?? "")
    }

    /// Exact, an initial ("J" and "John"), or a common variant ("Bob" and "Robert").
    static func firstNamesMatch(_ a: String, _ b: String) -> Bool {
        let x = normalised(a)
        let y = normalised(b)
        if x == y { return true }
        if x.count == 1 || y.count == 1 { return x.prefix(1) == y.prefix(1) }
        return nameVariants[x].map { $0 == nameVariants[y] } ?? false
    }

    /// Digits only, a leading 00 or 1 country prefix aside: the last digits must agree.
    static func phonesMatch(_ a: String, _ b: String) -> Bool {
        let x = a.filter(\.isNumber)
        let y = b.filter(\.isNumber)
        guard x.count >= 7, y.count >= 7 else { return false }
        let length = min(x.count, y.count, 10)
        return x.suffix(length) == y.suffix(length)
    }

    /// Name variants by group: each name → its group's first name.
    static let nameVariants: [String: String] = {
        let groups = [
            ["robert", "bob", "rob", "bobby", "robbie"], ["william", "bill", "will", "billy", "liam"],
            ["elizabeth", "liz", "beth", "betty", "eliza", "lisa"], ["margaret", "maggie", "meg", "peggy"],
            ["richard", "rick", "dick", "rich"], ["james", "jim", "jimmy", "jamie"], ["john", "jack", "johnny"],
            ["katherine", "catherine", "kate", "katie", "cathy", "kathy"], ["michael", "mike", "mick"],
            ["thomas", "tom", "tommy"], ["joseph", "joe", "joey"], ["charles", "charlie", "chuck"],
            ["alexander", "alex", "sasha"], ["daniel", "dan", "danny"], ["anthony", "tony"], ["edward", "ed", "eddie", "ted"],
            ["jennifer", "jen", "jenny"], ["patricia", "pat", "patty", "trish"], ["susan", "sue", "susie"],
            ["christopher", "chris"], ["nicholas", "nick"], ["matthew", "matt"], ["andrew", "andy", "drew"],
            ["josé", "jose", "pepe"], ["francisco", "paco", "pancho"], ["johannes", "hans", "jan"], ["alessandro", "sandro"],
        ]
        var variants: [String: String] = [:]
        for group in groups { for name in group { variants[normalised(name)] = group[0] } }
        return variants
    }()
}

extension OrgStore {
    /// The live records of `object` that the rule's matching rule finds for `values` (a record as
    /// it will be stored), among the records `visibleTo` may see ("Enforce Sharing Rules", the
    /// standard rules' record-level security); `excluding` leaves out the record itself and the
    /// records saved by the same request ("records within the same save aren't compared to each
    /// other"). Candidates come from indexed columns; the equation decides.
    func duplicates(
        _ db: Database, object: ObjectDefinition, values: [String: DatabaseValue], visibleTo ownerId: String?,
        excluding: Set<String>
    ) throws -> [StoredRecord] {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        func candidate(_ field: String, _ value: String?, prefix: Bool = false) {
            guard let value, object.field(named: field) != nil else { return }
            conditions.append(prefix ? "\(quoted(field)) LIKE ? ESCAPE '\\'" : "\(quoted(field)) = ?")
            arguments.append(
                (prefix
                    ? value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                        .replacingOccurrences(of: "_", with: "\\_") + "%" : value).databaseValue)
        }
        switch object.name {
        case "Contact":
            candidate("Email", MatchingRules.text(values["Email"]))
            candidate("LastName", MatchingRules.text(values["LastName"]))
            candidate("LastName", MatchingRules.text(values["FirstName"]))
        case "Account":
            let words = MatchingRules.text(values["Name"]).map { $0.split(separator: " ") } ?? []
            candidate("Name", words.first.map(String.init), prefix: true)
        default:
            return []
        }
        guard !conditions.isEmpty else { return [] }
        let sharing = Self.ownerCondition(object, alias: "t", ownerId: ownerId, schema: schema)
        // Only the fields the matching rule compares, then whole records for the matches alone;
        // cached, as the SQL takes few shapes: preparing it (GRDB authorizes each column) was a
        // third of localorg's time in a sync up of 5,000 creates (`make bench-sync`).
        // Most creates match no candidate at all: that is asked first, for ids alone and in no
        // order, as SQLite prepares a statement with ORDER BY and bound values again on each run
        // (sqlite3_stmt_status counted one re-preparation per run) and fetching rows costs GRDB
        // work per column.
        let filter = " FROM \(quoted(object.tableName)) t WHERE t.IsDeleted = 0 AND (\(conditions.joined(separator: " OR ")))" + sharing.sql
        let statementArguments = StatementArguments(arguments + sharing.arguments)
        let ids = try String.fetchAll(db.cachedStatement(sql: "SELECT t.Id" + filter + " LIMIT 1000"), arguments: statementArguments)
        guard ids.contains(where: { !excluding.contains($0) }) else { return [] }
        let compared = ["Id"] + MatchingRules.comparedFields(of: object.name).filter { object.field(named: $0) != nil }
        let columns = compared.compactMap { object.field(named: $0).map { "t.\(quoted($0.columnName))" } }.joined(separator: ", ")
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT \(columns)" + filter + " ORDER BY t.CreatedDate, t.Id LIMIT 1000"),
            arguments: statementArguments)
        var found: [StoredRecord] = []
        for row in rows where found.count < DuplicateRule.matchLimit {
            var candidate: [String: DatabaseValue] = [:]
            for (index, name) in compared.enumerated() { candidate[name] = row[index] as DatabaseValue }
            guard let id = String.fromDatabaseValue(candidate["Id"] ?? .null), !excluding.contains(id),
                MatchingRules.matches(values, candidate, object: object.name),
                let record = try fetchRecord(db, object: object, id: id)
            else { continue }
            found.append(record)
        }
        return found
    }

    /// The duplicate rule's answer to a save that matches `found`: `DUPLICATES_DETECTED` with the
    /// `duplicateResut` a real org sends (the key misspelled as in every recorded answer, v48 to
    /// v56; keys in alphabetical order; no `fields`).
    static func duplicatesDetected(
        _ rule: DuplicateRule, action: DuplicateAction, found: [StoredRecord], object: ObjectDefinition,
        apiVersion: String, recordDetails: Bool, access: FieldAccess = .administrator
    ) -> APIError {
        let records: [JSONValue] = found.map { stored in
            var record: JSONObject = [
                "attributes": RecordRenderer.attributes(type: object.name, id: stored.id, apiVersion: apiVersion),
                "Id": .string(stored.id),
            ]
            if recordDetails {
                for field in access.readableFields(of: object) where field.type != .id {
                    guard let value = stored.values[field.name], !value.isNull else { continue }
                    record[field.name] = RecordRenderer.json(value, for: field)
                }
            }
            return ["additionalInformation": [], "fieldDiffs": [], "matchConfidence": .double(100), "record": .object(record)]
        }
        let result: JSONObject = [
            "allowSave": .bool(action == .alert), "duplicateRule": .string(rule.name), "duplicateRuleEntityType": .string(rule.object),
            "errorMessage": .string(rule.alertText),
            "matchResults": [
                [
                    "entityType": .string(rule.object), "errors": [], "matchEngine": "FuzzyMatchEngine", "matchRecords": .array(records),
                    "rule": .string(rule.matchingRule), "size": .int(Int64(records.count)), "success": true,
                ]
            ],
        ]
        var error = APIError(status: 400, errorCode: "DUPLICATES_DETECTED", message: rule.alertText)
        error.duplicateResult = .object(result)
        return error
    }

    /// The action each object's duplicate rule takes (Allow with alert unless set to Block).
    static func duplicateActions(_ db: Database) throws -> [String: DuplicateAction] {
        var actions: [String: DuplicateAction] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, value FROM localorg_setting WHERE name LIKE 'duplicate-action.%'") {
            let name: String = row[0]
            if let action = DuplicateAction(rawValue: row[1]) { actions[String(name.dropFirst("duplicate-action.".count))] = action }
        }
        return actions
    }

    public func duplicateActions() throws -> [String: DuplicateAction] {
        try pool.read { try Self.duplicateActions($0) }
    }

    /// Sets what an object's standard duplicate rule does on a matching create.
    public func setDuplicateAction(_ action: DuplicateAction, for objectName: String) throws {
        guard let object = schema.object(named: objectName), DuplicateRule.standard[object.name] != nil else {
            throw SchemaError(description: "\(objectName) has no standard duplicate rule; the rules are Contact's and Account's")
        }
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO localorg_setting (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                arguments: ["duplicate-action.\(object.name)", action.rawValue])
            try Self.noteAccessChange(db)
        }
    }
}
