import ForceJSON

/// Reads an index path out of a document, the way SmartStore projects indexed values.
///
/// Paths are dot-separated. Reaching an array applies the rest of the path to each element and
/// collects the non-null results; an empty collection is `nil`. An empty path is the whole document.
public enum PathProjection {
    public static func project(_ path: String, in document: JSONObject) -> JSONValue? {
        if path.isEmpty { return .object(document) }
        return project(segments(of: path), in: document)
    }

    /// A path split once, for projecting it out of many documents.
    public static func segments(of path: String) -> [String] {
        path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    public static func project(_ segments: [String], in document: JSONObject) -> JSONValue? {
        guard let head = segments.first else { return .object(document) }
        guard let child = document[head] else { return nil }
        return project(segments[1...], in: child)
    }

    private static func project(_ segments: ArraySlice<String>, in value: JSONValue) -> JSONValue? {
        guard let head = segments.first else { return value.isNull ? nil : value }
        switch value {
        case let .object(object):
            guard let child = object[head] else { return nil }
            return project(segments.dropFirst(), in: child)
        case let .array(items):
            let results = items.compactMap { project(segments, in: $0) }
            return results.isEmpty ? nil : .array(results)
        default:
            return nil
        }
    }
}

/// A value as SQLite stores it in an index column.
enum ColumnValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

extension ColumnValue {
    /// The value an index column of `type` holds for a projected JSON value.
    ///
    /// Booleans are stored as `'true'` / `'false'` in text columns (and as 1 / 0 in integer columns),
    /// so dirty-flag queries are written `{soup:__local__} = 'true'`.
    init(projecting value: JSONValue?, as type: IndexType) {
        guard let value, !value.isNull else {
            self = .null
            return
        }
        switch type {
        case .string, .fullText:
            switch value {
            case let .string(s): self = .text(s)
            case let .bool(b): self = .text(b ? "true" : "false")
            case let .int(i): self = .text(String(i))
            case let .double(d): self = .text(d.description)
            case .array, .object: self = .text(JSONWriter.string(value))
            case .null: self = .null
            }
        case .integer:
            switch value {
            case let .int(i): self = .integer(i)
            case let .double(d) where d.isFinite && abs(d) < 9.2e18: self = .integer(Int64(d))
            case let .bool(b): self = .integer(b ? 1 : 0)
            default: self = .null
            }
        case .floating:
            switch value {
            case let .int(i): self = .real(Double(i))
            case let .double(d): self = .real(d)
            default: self = .null
            }
        case .json1:
            self = .init(binding: value)
        }
    }

    /// A JSON value bound as a query argument, matching what `json_extract` returns for it.
    init(binding value: JSONValue) {
        switch value {
        case .null: self = .null
        case let .bool(b): self = .integer(b ? 1 : 0)
        case let .int(i): self = .integer(i)
        case let .double(d): self = .real(d)
        case let .string(s): self = .text(s)
        case .array, .object: self = .text(JSONWriter.string(value))
        }
    }
}
