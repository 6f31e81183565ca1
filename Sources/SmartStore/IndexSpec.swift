import ForceJSON

/// How an indexed path is stored and queried, with the Mobile SDK's names.
public enum IndexType: String, Sendable, CaseIterable, Codable {
    case string
    case integer
    case floating
    case fullText = "full_text"
    case json1

    /// The SQL type of the index column; `nil` for json1, which has an expression index instead.
    var columnSQLType: String? {
        switch self {
        case .string, .fullText: "TEXT"
        case .integer: "INTEGER"
        case .floating: "REAL"
        case .json1: nil
        }
    }
}

/// One indexed path of a soup. `columnName` is filled in by the store once the soup exists.
public struct IndexSpec: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var type: IndexType
    public var columnName: String?

    public init(path: String, type: IndexType, columnName: String? = nil) {
        self.path = path
        self.type = type
        self.columnName = columnName
    }

    public var description: String { "\(path) (\(type.rawValue))" }

    /// Equal path and type, whatever the column.
    func sameDefinition(as other: IndexSpec) -> Bool { path == other.path && type == other.type }

    var json: JSONValue {
        var object: JSONObject = ["path": .string(path), "type": .string(type.rawValue)]
        if let columnName { object["columnName"] = .string(columnName) }
        return .object(object)
    }

    init(json: JSONValue) throws(SmartStoreError) {
        guard let path = json["path"]?.stringValue, !path.isEmpty else {
            throw .invalidConfig("an index needs a non-empty \"path\": \(json)")
        }
        guard let typeName = json["type"]?.stringValue else {
            throw .invalidConfig("index \"\(path)\" needs a \"type\" (string, integer, floating, full_text or json1)")
        }
        guard let type = IndexType(rawValue: typeName) else {
            throw .invalidConfig(
                "index \"\(path)\" has unknown type \"\(typeName)\"; use string, integer, floating, full_text or json1")
        }
        self.init(path: path, type: type, columnName: json["columnName"]?.stringValue)
    }
}
