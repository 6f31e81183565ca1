import ForceJSON

/// A query over one soup, as the Mobile SDK's query specs describe it. Each spec knows the Smart SQL
/// it stands for (`smartSql`, `countSmartSql`, `idsSmartSql`), character for character as the SDK
/// generates it, and the arguments it binds.
public struct QuerySpec: Sendable, Equatable {
    public enum Order: String, Sendable {
        case ascending, descending
        var sql: String { self == .ascending ? "ASC" : "DESC" }
    }

    public enum Kind: Sendable, Equatable {
        case all
        case exact(path: String, matchKey: JSONValue)
        case range(path: String, beginKey: JSONValue?, endKey: JSONValue?)
        case like(path: String, likeKey: String)
        /// Full-text search; a `nil` path searches every full_text column.
        case match(path: String?, matchKey: String)
        case smart(sql: String)
    }

    public static let defaultPageSize = 10

    public var soupName: String?
    public var kind: Kind
    public var selectPaths: [String]?
    public var orderPath: String?
    public var order: Order
    public var pageSize: Int

    public init(
        soupName: String?, kind: Kind, selectPaths: [String]? = nil, orderPath: String? = nil,
        order: Order = .ascending, pageSize: Int = QuerySpec.defaultPageSize
    ) {
        self.soupName = soupName
        self.kind = kind
        self.selectPaths = selectPaths?.isEmpty == true ? nil : selectPaths
        self.orderPath = orderPath
        self.order = order
        self.pageSize = pageSize > 0 ? pageSize : QuerySpec.defaultPageSize
    }

    public static func all(
        _ soup: String, selectPaths: [String]? = nil, orderPath: String? = nil, order: Order = .ascending,
        pageSize: Int = defaultPageSize
    ) -> QuerySpec {
        QuerySpec(soupName: soup, kind: .all, selectPaths: selectPaths, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public static func exact(
        _ soup: String, path: String, matchKey: JSONValue, selectPaths: [String]? = nil, orderPath: String? = nil,
        order: Order = .ascending, pageSize: Int = defaultPageSize
    ) -> QuerySpec {
        QuerySpec(
            soupName: soup, kind: .exact(path: path, matchKey: matchKey), selectPaths: selectPaths,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public static func range(
        _ soup: String, path: String, beginKey: JSONValue?, endKey: JSONValue?, selectPaths: [String]? = nil,
        orderPath: String? = nil, order: Order = .ascending, pageSize: Int = defaultPageSize
    ) -> QuerySpec {
        QuerySpec(
            soupName: soup, kind: .range(path: path, beginKey: beginKey, endKey: endKey), selectPaths: selectPaths,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public static func like(
        _ soup: String, path: String, likeKey: String, selectPaths: [String]? = nil, orderPath: String? = nil,
        order: Order = .ascending, pageSize: Int = defaultPageSize
    ) -> QuerySpec {
        QuerySpec(
            soupName: soup, kind: .like(path: path, likeKey: likeKey), selectPaths: selectPaths,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public static func match(
        _ soup: String, path: String?, matchKey: String, selectPaths: [String]? = nil, orderPath: String? = nil,
        order: Order = .ascending, pageSize: Int = defaultPageSize
    ) -> QuerySpec {
        QuerySpec(
            soupName: soup, kind: .match(path: path, matchKey: matchKey), selectPaths: selectPaths,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public static func smart(_ sql: String, pageSize: Int = defaultPageSize) -> QuerySpec {
        QuerySpec(soupName: nil, kind: .smart(sql: sql), pageSize: pageSize)
    }

    public var isSmart: Bool {
        if case .smart = kind { return true }
        return false
    }

    /// Whether results are rows (arrays of values) rather than whole documents.
    public var returnsRows: Bool { isSmart || selectPaths != nil }

    // MARK: Smart SQL, as the SDK writes it (the trailing spaces are part of the contract)

    public var smartSql: String {
        if case let .smart(sql) = kind { return sql }
        return selectClause + fromClause + whereClause + orderByClause
    }

    public var countSmartSql: String {
        if case let .smart(sql) = kind { return "SELECT count(*) FROM (\(sql))" }
        return "SELECT count(*) " + fromClause + whereClause
    }

    public var idsSmartSql: String {
        if case let .smart(sql) = kind { return "SELECT id FROM (\(sql))" }
        return "SELECT id " + fromClause + whereClause + orderByClause
    }

    private var soup: String { soupName ?? "" }

    private var selectClause: String {
        guard let selectPaths else { return "SELECT {\(soup):_soup} " }
        return "SELECT " + selectPaths.map { "{\(soup):\($0)}" }.joined(separator: ", ") + " "
    }

    private var fromClause: String { "FROM {\(soup)} " }

    private var whereClause: String {
        switch kind {
        case .all, .smart:
            return ""
        case let .exact(path, _):
            return "WHERE {\(soup):\(path)} = ? "
        case let .range(path, begin, end):
            switch (begin, end) {
            case (.some, .some): return "WHERE {\(soup):\(path)} >= ? AND {\(soup):\(path)} <= ? "
            case (.some, nil): return "WHERE {\(soup):\(path)} >= ? "
            case (nil, .some): return "WHERE {\(soup):\(path)} <= ? "
            case (nil, nil): return ""
            }
        case let .like(path, _):
            return "WHERE {\(soup):\(path)} LIKE ? "
        case let .match(path, key):
            let qualified = path.map { Self.qualifyMatchKey("{\(soup):\($0)}", key) } ?? key
            // The SDK inlines the key; single quotes are doubled so typed text can never leave the literal.
            let literal = qualified.replacingAll("'", with: "''")
            return "WHERE {\(soup):_soupEntryId} IN (SELECT rowid FROM {\(soup)}_fts WHERE {\(soup)}_fts MATCH '\(literal)') "
        }
    }

    private var orderByClause: String {
        guard let orderPath else { return "" }
        return "ORDER BY {\(soup):\(orderPath)} \(order.sql) "
    }

    /// Prefixes each term of a full-text key with a column filter, leaving operators and
    /// already-qualified terms alone: `(abc AND def) OR ghi` → `({s:p}:abc AND {s:p}:def) OR {s:p}:ghi`.
    public static func qualifyMatchKey(_ field: String, _ key: String) -> String {
        var result = ""
        var token = ""
        func flush() {
            guard !token.isEmpty else { return }
            let upper = token.uppercased()
            if upper == "AND" || upper == "OR" || upper == "NOT" || token.hasPrefix("{") {
                result += token
            } else {
                result += "\(field):\(token)"
            }
            token = ""
        }
        for character in key {
            if character == "(" || character == ")" || character == " " {
                flush()
                result.append(character)
            } else {
                token.append(character)
            }
        }
        flush()
        return result
    }

    /// The values bound to the `?` placeholders of `smartSql`, before projection to column values.
    var boundKeys: [(path: String, key: JSONValue)] {
        switch kind {
        case .all, .smart, .match: return []
        case let .exact(path, key): return [(path, key)]
        case let .range(path, begin, end): return [begin, end].compactMap { $0 }.map { (path, $0) }
        case let .like(path, key): return [(path, .string(key))]
        }
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
