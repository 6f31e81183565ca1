import Foundation
import GRDB

/// A line of the trainer's log as stored, numbered in the order it was written.
public struct LoggedEvent: Sendable, Equatable {
    public var sequence: Int64
    public var entry: RequestLogEntry
}

/// The trainer's log, kept in the org's database so that one log holds what every process did:
/// the requests `localorg serve` answered and the trainer's own `localorg edit`, `delete` and
/// `snapshot restore`. The trainer's page follows it; a running server prints the commands' lines.
/// A snapshot restore keeps it: it is the room's log, not the org's data.
extension OrgStore {
    static let eventTable = "localorg_event"

    static func createEventTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS localorg_event (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT, timeMilliseconds INTEGER NOT NULL, username TEXT,
                    method TEXT NOT NULL, path TEXT NOT NULL, status INTEGER NOT NULL, inner TEXT, milliseconds REAL NOT NULL,
                    origin TEXT, done INTEGER NOT NULL, conflicts INTEGER NOT NULL, errors INTEGER NOT NULL);
                CREATE INDEX IF NOT EXISTS localorg_event_username ON localorg_event(username);
                """)
    }

    static func appendEvents(_ db: Database, _ entries: [RequestLogEntry]) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO localorg_event (timeMilliseconds, username, method, path, status, inner, milliseconds, origin, done, conflicts, errors)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for entry in entries {
            let tally = entry.tally
            try statement.execute(arguments: [
                Int64((entry.time.timeIntervalSince1970 * 1000).rounded()), entry.username, entry.method, entry.path, entry.status,
                entry.inner, entry.milliseconds, entry.origin, tally.done, tally.conflicts, tally.errors,
            ])
        }
    }

    /// Adds lines to the log in one transaction.
    public func appendEvents(_ entries: [RequestLogEntry]) async throws {
        guard !entries.isEmpty else { return }
        try await pool.write { db in try Self.appendEvents(db, entries) }
    }

    /// For the command-line tools: adds one line now.
    public func appendEventNow(_ entry: RequestLogEntry) throws {
        try pool.write { db in try Self.appendEvents(db, [entry]) }
    }

    /// Lines written after `sequence`, oldest first.
    public func events(after sequence: Int64, limit: Int = 500) async throws -> [LoggedEvent] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT sequence, timeMilliseconds, username, method, path, status, inner, milliseconds, origin
                    FROM localorg_event WHERE sequence > ? ORDER BY sequence LIMIT ?
                    """, arguments: [sequence, limit]
            ).map(Self.loggedEvent)
        }
    }

    /// The last `count` lines, oldest first.
    public func latestEvents(_ count: Int) async throws -> [LoggedEvent] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM (SELECT sequence, timeMilliseconds, username, method, path, status, inner, milliseconds, origin
                    FROM localorg_event ORDER BY sequence DESC LIMIT ?) ORDER BY sequence
                    """, arguments: [count]
            ).map(Self.loggedEvent)
        }
    }

    /// The number of the last line written (0 for an empty log).
    public func lastEventSequence() async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM localorg_event") ?? 0 }
    }

    private static func loggedEvent(_ row: Row) -> LoggedEvent {
        let milliseconds: Int64 = row[1]
        return LoggedEvent(
            sequence: row[0],
            entry: RequestLogEntry(
                time: Date(timeIntervalSince1970: Double(milliseconds) / 1000), username: row[2], method: row[3], path: row[4],
                status: row[5], inner: row[6], milliseconds: row[7], origin: row[8]))
    }
}

/// Gathers the server's log lines and writes them in batches, one transaction per tenth of a
/// twentieth of a second at most rather than one per request (every commit is an fsync).
actor EventRecorder {
    private let store: OrgStore
    private var pending: [RequestLogEntry] = []
    private var flushScheduled = false
    static let batchInterval: Duration = .milliseconds(50)

    init(store: OrgStore) { self.store = store }

    func record(_ entry: RequestLogEntry) {
        pending.append(entry)
        guard !flushScheduled else { return }
        flushScheduled = true
        Task {
            try? await Task.sleep(for: Self.batchInterval)
            await self.flush()
        }
    }

    /// Writes what is pending now; the server calls it as it stops.
    func flush() async {
        let batch = pending
        pending = []
        flushScheduled = false
        do {
            try await store.appendEvents(batch)
        } catch {
            // The log is for the trainer; a failure to keep it must never fail a request.
            FileHandle.standardError.write(Data("localorg: \(batch.count) log lines not kept: \(error)\n".utf8))
        }
    }
}
