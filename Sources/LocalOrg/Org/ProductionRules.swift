import Foundation
import GRDB
import Synchronization

/// The rules a production org enforces that a lenient training room may switch off. Every one is
/// on in a new org, so demos, classes and tests meet what a rep meets in a real org; each names
/// the Salesforce page (or the recorded answer) it follows where it is enforced.
public struct ProductionRules: Sendable, Equatable {
    public enum Rule: String, Sendable, CaseIterable {
        /// Profiles and permission sets decide which fields a user may read and edit.
        case fieldLevelSecurity = "field-level-security"
        /// Long text areas cannot be filtered, sorted or grouped on in SOQL.
        case nonFilterableFields = "non-filterable-fields"
        /// The standard Contact and Account duplicate rules refuse a likely duplicate.
        case duplicateRules = "duplicate-rules"
        /// Countries and states are picklists of ISO 3166 codes, kept in step with their labels.
        case stateAndCountryPicklists = "state-and-country-picklists"
        /// A parent's row is locked while its children are written; a writer that waits too long
        /// gets UNABLE_TO_LOCK_ROW.
        case recordLocking = "record-locking"
        /// The org's record-triggered flows change values as a record is saved.
        case fieldUpdatesOnSave = "field-updates-on-save"
        /// DELETE takes no conditional request headers: If-Unmodified-Since and If-Match are ignored.
        case deleteIgnoresPreconditions = "delete-ignores-preconditions"
        /// A request line and headers over 16,384 bytes are refused (414 / 431).
        case requestSizeLimit = "request-size-limit"

        /// What the rule does, for `localorg rules`.
        public var summary: String {
            switch self {
            case .fieldLevelSecurity: "profiles and permission sets hide fields or make them read-only per user"
            case .nonFilterableFields: "long text areas cannot be used in WHERE, ORDER BY or GROUP BY"
            case .duplicateRules: "the standard Contact and Account duplicate rules refuse likely duplicates on create"
            case .stateAndCountryPicklists: "countries and states must be the org's values (ISO 3166), code and name kept in step"
            case .recordLocking: "children written under one parent lock it; a writer waiting too long gets UNABLE_TO_LOCK_ROW"
            case .fieldUpdatesOnSave: "the org's flows change values on save (schema.json's fieldUpdates)"
            case .deleteIgnoresPreconditions: "DELETE ignores If-Unmodified-Since and If-Match, as Salesforce documents"
            case .requestSizeLimit: "a request line and headers over 16,384 bytes answer 414 or 431"
            }
        }
    }

    /// The rules switched off; everything else is on.
    public private(set) var off: Set<Rule> = []
    /// What each object's standard duplicate rule does on a match (alert unless set).
    public var duplicateActions: [String: DuplicateAction] = [:]
    /// When the rules, a profile, a permission set or a user's assignment last changed (epoch
    /// seconds): what a describe's Last-Modified must not predate.
    public var accessChangedAt: Int64 = 0

    public init(off: Set<Rule> = []) {
        self.off = off
    }

    /// Every rule on: a production org.
    public static let strict = ProductionRules()
    /// Every rule off: the lenient org localorg was before these rules.
    public static let lenient = ProductionRules(off: Set(Rule.allCases))

    public func isOn(_ rule: Rule) -> Bool { !off.contains(rule) }

    public mutating func set(_ rule: Rule, on: Bool) {
        if on { off.remove(rule) } else { off.insert(rule) }
    }
}

extension OrgStore {
    static func createSettingTable(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS localorg_setting (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
    }

    /// The rules this org enforces, as `localorg rules` last set them (all on in a new org).
    public func productionRules() throws -> ProductionRules {
        try pool.read { try Self.productionRules($0) }
    }

    static func productionRules(_ db: Database) throws -> ProductionRules {
        let rows = try Row.fetchAll(db, sql: "SELECT name, value FROM localorg_setting WHERE name LIKE 'rule.%'")
        var rules = ProductionRules()
        for row in rows {
            let name: String = row[0]
            let value: String = row[1]
            if let rule = ProductionRules.Rule(rawValue: String(name.dropFirst("rule.".count))) { rules.set(rule, on: value != "off") }
        }
        rules.duplicateActions = try duplicateActions(db)
        rules.accessChangedAt = try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM localorg_setting WHERE name = 'changed.access'") ?? 0
        return rules
    }

    /// Notes that what users are told of fields changed now: describes answer afresh.
    static func noteAccessChange(_ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO localorg_setting (name, value) VALUES ('changed.access', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            arguments: [String(OrgStore.now())])
    }

    /// Saves which rules are on; a running `localorg serve` applies them within a second.
    public func setProductionRules(_ rules: ProductionRules) throws {
        try pool.write { db in
            try Self.noteAccessChange(db)
            for rule in ProductionRules.Rule.allCases {
                try db.execute(
                    sql: "INSERT INTO localorg_setting (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                    arguments: ["rule.\(rule.rawValue)", rules.isOn(rule) ? "on" : "off"])
            }
        }
    }
}

/// The org's rules as a running server sees them: read again at most once a second, so a trainer's
/// `localorg rules set` in another terminal reaches the room without a restart, and a request
/// costs no read of its own.
final class ProductionRulesCache: Sendable {
    private let store: OrgStore
    private let state = Mutex<(rules: ProductionRules, readAt: Double)?>(nil)
    /// Set when the server was started with fixed rules (tests): never read from the database.
    private let fixed: ProductionRules?

    init(store: OrgStore, fixed: ProductionRules?) {
        self.store = store
        self.fixed = fixed
    }

    func current() async -> ProductionRules {
        if let fixed { return fixed }
        let now = Date().timeIntervalSince1970
        if let cached = state.withLock({ $0 }), now - cached.readAt < 1 { return cached.rules }
        let rules = (try? await store.read { try OrgStore.productionRules($0) }) ?? .strict
        state.withLock { $0 = (rules, now) }
        return rules
    }
}
