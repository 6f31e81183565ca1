import GRDB
import GRDBSQLite

/// A prepared statement bound and stepped through the C API, for the batch-write hot path where
/// building GRDB arguments for every row costs more than the insert itself.
final class RawStatement {
    private let statement: OpaquePointer
    private let connection: OpaquePointer

    init(_ db: Database, sql: String) throws {
        guard let connection = db.sqliteConnection else { throw SmartStoreError.database(message: "the store is closed") }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            throw SmartStoreError.database(message: "\(String(cString: sqlite3_errmsg(connection))) in \(sql)")
        }
        self.connection = connection
        statement = prepared
    }

    deinit { sqlite3_finalize(statement) }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ value: ColumnValue, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(statement, index)
        case let .integer(i): sqlite3_bind_int64(statement, index, i)
        case let .real(d): sqlite3_bind_double(statement, index, d)
        case let .text(s): sqlite3_bind_text(statement, index, s, -1, Self.transient)
        }
    }

    func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(statement, index, value) }

    /// Binds UTF-8 bytes as TEXT without making a String of them first.
    func bindText(_ bytes: [UInt8], at index: Int32) {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                _ = sqlite3_bind_text(statement, index, chars.baseAddress, Int32(chars.count), Self.transient)
            }
        }
    }

    /// Runs the statement to completion and readies it for the next row.
    func execute() throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            throw SmartStoreError.database(message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    /// Every row's first column as an integer, then the statement is ready again: lists of ids
    /// as long as a soup without a Swift value per row (several times faster than GRDB's cursor).
    func integersOfFirstColumn() throws -> [Int64] {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var values: [Int64] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: values.append(sqlite3_column_int64(statement, 0))
            case SQLITE_DONE: return values
            default: throw SmartStoreError.database(message: String(cString: sqlite3_errmsg(connection)))
            }
        }
    }

    /// The first row's columns, or `nil` when there is none; then the statement is ready again.
    func firstRow() throws -> [ColumnValue]? {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            return (0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: .real(sqlite3_column_double(statement, column))
                case SQLITE_NULL: .null
                default: sqlite3_column_text(statement, column).map { .text(String(cString: $0)) } ?? .null
                }
            }
        case SQLITE_DONE:
            return nil
        default:
            throw SmartStoreError.database(message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    /// Changes made by the last execute on this connection.
    var changes: Int { Int(sqlite3_changes(connection)) }
}
