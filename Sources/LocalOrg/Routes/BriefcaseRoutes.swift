import ForceJSON
import Foundation
import GRDB
import SOQLSyntax
import SalesforceTime

/// One briefcase rule: which records of an object a device should hold offline.
public struct BriefcaseRule: Sendable {
    public var id: String
    public var objectName: String
    /// A SOQL condition (from the org's configuration, never from a request), or nil for all records.
    public var condition: String?
}

/// Briefcase definitions kept in the org's configuration (`briefcases.json` in the data
/// directory): `{"briefcases":[{"name":"…","rules":[{"object":"Account","where":"Industry != null"}]}]}`.
public struct BriefcaseConfiguration: Sendable {
    public var rules: [BriefcaseRule]

    public init(rules: [BriefcaseRule]) { self.rules = rules }

    /// Reads and checks the configuration; every rule's object and condition must compile.
    public static func parse(_ document: JSONValue, schema: OrgSchema) throws -> BriefcaseConfiguration {
        var rules: [BriefcaseRule] = []
        for briefcase in document["briefcases"]?.arrayValue ?? [] {
            for rule in briefcase["rules"]?.arrayValue ?? [] {
                guard let objectName = rule["object"]?.stringValue, let object = schema.object(named: objectName) else {
                    throw SchemaError(description: "every briefcase rule needs an \"object\" the schema knows")
                }
                let condition = rule["where"]?.stringValue
                let probe = "SELECT Id FROM \(object.name)" + (condition.map { " WHERE \($0)" } ?? "")
                do {
                    _ = try SOQLCompiler.compile(try SOQLParser.parse(probe), schema: schema, includeDeleted: false, now: 0)
                } catch {
                    throw SchemaError(description: "briefcase rule on \(object.name): \(error.message(for: probe))")
                }
                // Rule ids look like Salesforce's briefcase rule ids (key prefix 0gR).
                let id = rule["id"]?.stringValue ?? SalesforceId.make(keyPrefix: "0gR", number: Int64(rules.count + 1))
                rules.append(BriefcaseRule(id: id, objectName: object.name, condition: condition))
            }
        }
        return BriefcaseConfiguration(rules: rules)
    }
}

extension LocalOrgAPI {
    /// Records served per priming response; more come through the relay token.
    static let primingPageSize = 2000

    /// `/connect/briefcase/priming-records`: the ids and SystemModstamps of the records the org's
    /// briefcase rules select, rule after rule, in pages linked by relay tokens.
    func primingRecords(_ context: DataContext) async throws -> APIResponse {
        try requireMethod(context.method, "GET")
        let items = context.request.queryItems
        let rules = settings.briefcases.rules
        var ruleIndex = 0
        var afterId: String?
        var changedAfter: Int64?
        if let relayToken = items["relayToken"], !relayToken.isEmpty {
            // A relay token says where to go on: the rule's position, the last id served, and the
            // changedAfterTimestamp of the first request in seconds (empty when there was none).
            let parts = relayToken.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let index = Int(parts[0]), rules.indices.contains(index) else {
                throw APIError(status: 400, errorCode: "INVALID_INPUT", message: "Invalid relay token")
            }
            ruleIndex = index
            afterId = parts[1].isEmpty ? nil : SalesforceId.canonical(parts[1])
            changedAfter = parts[2].isEmpty ? nil : Int64(parts[2])
            if items["changedAfterTimestamp"] != nil {
                throw APIError(status: 400, errorCode: "INVALID_INPUT", message: "Use either relayToken or changedAfterTimestamp, not both")
            }
        } else if let text = items["changedAfterTimestamp"], !text.isEmpty {
            guard let seconds = SalesforceDate.parseDateTime(text) else {
                throw APIError(status: 400, errorCode: "INVALID_INPUT", message: "changedAfterTimestamp must be an ISO 8601 datetime")
            }
            changedAfter = seconds
        }
        var byObject: [String: [String: [JSONValue]]] = [:]
        var served = 0
        var rulesServed = 0
        var relayToken: JSONValue = .null
        while ruleIndex < rules.count {
            let rule = rules[ruleIndex]
            let remaining = Self.primingPageSize - served
            let page = try await primingPage(rule, after: afterId, changedAfter: changedAfter, limit: remaining + 1, context: context)
            let taken = page.prefix(remaining)
            for record in taken {
                byObject[rule.objectName, default: [:]][record.recordTypeId, default: []]
                    .append(["id": .string(record.id), "systemModstamp": .string(Self.connectTimestamp(record.modstamp))])
            }
            served += taken.count
            if page.count > remaining, let last = taken.last {
                relayToken = .string("\(ruleIndex).\(last.id).\(changedAfter.map(String.init) ?? "")")
                break
            }
            rulesServed += 1
            ruleIndex += 1
            afterId = nil
            if served >= Self.primingPageSize, ruleIndex < rules.count {
                relayToken = .string("\(ruleIndex)..\(changedAfter.map(String.init) ?? "")")
                break
            }
        }
        var primingRecords = JSONObject()
        for (objectName, byRecordType) in byObject.sorted(by: { $0.key < $1.key }) {
            // Grouped by record type id, as Salesforce does; objects without record types under Master's.
            var grouped = JSONObject()
            for (recordTypeId, records) in byRecordType.sorted(by: { $0.key < $1.key }) { grouped[recordTypeId] = .array(records) }
            primingRecords[objectName] = .object(grouped)
        }
        var total = 0
        for rule in rules { total += try await primingCount(rule, changedAfter: changedAfter, context: context) }
        return .json([
            "primingRecords": .object(primingRecords), "relayToken": relayToken, "ruleErrors": [],
            "stats": [
                "ruleCountTotal": .int(Int64(rules.count)), "recordCountTotal": .int(Int64(total)),
                "ruleCountServed": .int(Int64(rulesServed)), "recordCountServed": .int(Int64(served)),
            ],
        ])
    }

    /// Connect API timestamps: ISO 8601 in UTC with milliseconds and `Z`.
    static func connectTimestamp(_ seconds: Int64) -> String {
        SalesforceDate.formatDateTime(seconds).replacingOccurrences(of: "+0000", with: "Z")
    }

    /// The SOQL of a rule with the server's own paging and change filters; the condition comes
    /// from configuration and every value is a literal the server formatted itself.
    func primingSOQL(_ rule: BriefcaseRule, after: String?, changedAfter: Int64?, select: String) -> String {
        var conditions: [String] = []
        if let condition = rule.condition { conditions.append("(\(condition))") }
        if let changedAfter { conditions.append("SystemModstamp > \(SalesforceDate.formatDateTime(changedAfter))") }
        if let after { conditions.append("Id > '\(after)'") }
        return "SELECT \(select) FROM \(rule.objectName)" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
    }

    func primingPage(
        _ rule: BriefcaseRule, after: String?, changedAfter: Int64?, limit: Int,
        context: DataContext
    ) async throws -> [(id: String, modstamp: Int64, recordTypeId: String)] {
        let hasRecordTypes = schema.object(named: rule.objectName).map { !$0.recordTypes.isEmpty && $0.field(named: "RecordTypeId") != nil } ?? false
        let select = hasRecordTypes ? "Id, SystemModstamp, RecordTypeId" : "Id, SystemModstamp"
        let soql = primingSOQL(rule, after: after, changedAfter: changedAfter, select: select) + " ORDER BY Id LIMIT \(limit)"
        let compiled = try SOQLCompiler.compile(try SOQLParser.parse(soql), schema: schema, includeDeleted: false, now: OrgStore.now(), ownerId: context.visibleOwner)
        let ids = try await store.rows(sql: compiled.idsSQL, arguments: compiled.idsArguments).compactMap { $0.first.flatMap(String.fromDatabaseValue) }
        guard !ids.isEmpty else { return [] }
        // Columns: the root Id, then the selected Id, SystemModstamp and (with record types) RecordTypeId.
        let sql = compiled.rowsSQLPrefix + Array(repeating: "?", count: ids.count).joined(separator: ", ") + ")"
        var found: [String: (modstamp: Int64, recordTypeId: String)] = [:]
        for row in try await store.rows(sql: sql, arguments: compiled.fromArguments + ids.map(\.databaseValue)) where row.count >= 3 {
            guard let id = String.fromDatabaseValue(row[0]) else { continue }
            let recordTypeId = row.count > 3 ? String.fromDatabaseValue(row[3]) : nil
            found[id] = (Int64.fromDatabaseValue(row[2]) ?? 0, recordTypeId ?? RecordTypeDefinition.masterId)
        }
        return ids.compactMap { id in found[id].map { (id, $0.modstamp, $0.recordTypeId) } }
    }

    func primingCount(_ rule: BriefcaseRule, changedAfter: Int64?, context: DataContext) async throws -> Int {
        let soql = primingSOQL(rule, after: nil, changedAfter: changedAfter, select: "COUNT()")
        let compiled = try SOQLCompiler.compile(try SOQLParser.parse(soql), schema: schema, includeDeleted: false, now: OrgStore.now(), ownerId: context.visibleOwner)
        return try await store.rows(sql: compiled.idsSQL, arguments: compiled.idsArguments).count
    }
}
