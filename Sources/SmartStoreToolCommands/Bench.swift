import ArgumentParser
import ForceJSON
import Foundation
import GRDBSQLite
import SmartStore

/// Runs every benchmark case in a child process of its own (so peak memory is per case) and prints
/// a table with ratios against baselines measured in the same run.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the SmartStore benchmarks and print a table.")

    @Option(parsing: .upToNextOption, help: "Batch sizes for the upsert benchmark.")
    var sizes: [Int] = [1_000, 10_000, 100_000]

    @Option(help: "The directory holding userstore.json.")
    var config: String = "config"

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smartstore-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path

        func runCase(_ arguments: [String]) throws -> JSONObject {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["bench-case", "--config", config] + arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0, let line = String(data: data, encoding: .utf8) else {
                throw ValidationError("benchmark case \(arguments) failed with status \(process.terminationStatus)")
            }
            return try JSONParser.parseObject(line.trimmingCharacters(in: .whitespacesAndNewlines))
        }

        var table = BenchTable()
        print("SmartStore benchmarks — contact-sized documents (29 fields, ~1.4 KB), soups from \(config)/userstore.json")
        print("Baseline: the same documents serialised and inserted with plain SQLite statements into the same table,")
        print("index and FTS layout. Both read the same generated stream; 'generate only' is that stream's own cost.\n")
        for size in sizes {
            let store = directory.appendingPathComponent("smartstore-\(size).sqlite").path
            let generate = try runCase(["generate", "--n", "\(size)"])
            let baseline = try runCase(["baseline-upsert", "--n", "\(size)", "--store", directory.appendingPathComponent("baseline-\(size).sqlite").path])
            let ours = try runCase(["upsert", "--n", "\(size)", "--store", store])
            let goal = size == 100_000 ? "≤1.5x, <3 s, <200 MB" : "≤1.5x"
            table.add("generate only", size, generate, baseline: nil, goal: "")
            table.add("baseline upsert (plain SQLite)", size, baseline, baseline: nil, goal: "")
            table.add("SmartStore batch upsert", size, ours, baseline: baseline, goal: goal)
            if size >= 10_000 {
                let queries = try runCase(["queries", "--n", "\(size)", "--store", store])
                for (name, key, goal) in [
                    ("exact lookup on Id (per lookup)", "exact", "<1 ms"),
                    ("like '%Thompson%' on LastName (page of 100)", "like", ""),
                    ("match 'Thompson' on FTS (page of 100)", "match", size == 100_000 ? "<10 ms" : ""),
                    ("like on Email, one match (full scan)", "likeRare", ""),
                    ("match on Email, one match", "matchRare", size == 100_000 ? "<10 ms" : ""),
                    ("all by LastName, page of 10", "all10", ""),
                    ("all by LastName, page of 100", "all100", ""),
                    ("all by LastName, page of 1000", "all1000", ""),
                ] {
                    guard let seconds = queries[key]?.doubleValue else { continue }
                    let baselineSeconds =
                        key == "match"
                        ? queries["like"]?.doubleValue
                        : key == "matchRare" ? queries["likeRare"]?.doubleValue : nil
                    table.add(name, size, ["seconds": .double(seconds)], baselineSeconds: baselineSeconds, goal: goal)
                }
            }
        }
        table.print()
    }
}

struct BenchTable {
    private var rows: [[String]] = []

    mutating func add(_ name: String, _ size: Int, _ result: JSONObject, baseline: JSONObject?, goal: String) {
        add(name, size, result, baselineSeconds: baseline?["seconds"]?.doubleValue, goal: goal)
    }

    mutating func add(_ name: String, _ size: Int, _ result: JSONObject, baselineSeconds: Double?, goal: String) {
        let seconds = result["seconds"]?.doubleValue ?? .nan
        let ratio = baselineSeconds.map { String(format: seconds / $0 < 0.1 ? "%.3fx" : "%.2fx", seconds / $0) } ?? ""
        let rss = result["peakRSSMB"]?.doubleValue.map { String(format: "%.0f MB", $0) } ?? ""
        rows.append([name, "\(size)", Self.format(seconds), baselineSeconds.map(Self.format) ?? "", ratio, rss, goal])
    }

    static func format(_ seconds: Double) -> String {
        if seconds >= 1 { return String(format: "%.2f s", seconds) }
        if seconds >= 0.001 { return String(format: "%.2f ms", seconds * 1000) }
        return String(format: "%.1f µs", seconds * 1_000_000)
    }

    func print() {
        let header = ["benchmark", "n", "time", "baseline", "ratio", "peak RSS", "goal"]
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for (index, row) in all.enumerated() {
            let cells = row.enumerated().map { column, cell in
                column == 0
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }
            Swift.print(cells.joined(separator: "  "))
            if index == 0 { Swift.print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
    }
}

/// One benchmark case; prints one JSON line with its measurements.
struct BenchCase: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench-case", abstract: "Run one benchmark case (used by bench).", shouldDisplay: false)

    @Argument var kind: String
    @Option var n: Int
    @Option var store: String?
    @Option var config: String = "config"

    func run() throws {
        var result: JSONObject
        switch kind {
        case "generate":
            let start = ContinuousClock.now
            var bytes = 0
            for document in ContactGenerator(count: n) { bytes += document.count }
            result = ["seconds": .double(Self.seconds(since: start)), "fields": .int(Int64(bytes))]
        case "upsert":
            let smartStore = try openStore()
            let start = ContinuousClock.now
            try smartStore.upsert(contentsOf: ContactGenerator(count: n), in: "contacts")
            result = ["seconds": .double(Self.seconds(since: start))]
        case "baseline-upsert":
            let info = try openStore().soupInfo("contacts")
            let start = ContinuousClock.now
            try PlainSQLiteInserter(path: try requiredStore(), soup: info).insert(ContactGenerator(count: n))
            result = ["seconds": .double(Self.seconds(since: start))]
        case "queries":
            result = try queries(openStore())
        default:
            throw ValidationError("unknown benchmark case \(kind)")
        }
        result["peakRSSMB"] = .double(Self.peakRSSMegabytes())
        print(JSONWriter.string(.object(result)))
    }

    func requiredStore() throws -> String {
        guard let store else { throw ValidationError("--store is required for \(kind)") }
        return store
    }

    func openStore() throws -> SmartStore {
        let smartStore = try SmartStore(path: requiredStore())
        try smartStore.setup(from: StoreConfig(contentsOf: URL(fileURLWithPath: config).appendingPathComponent("userstore.json")))
        return smartStore
    }

    func queries(_ store: SmartStore) throws -> JSONObject {
        func average(_ repetitions: Int, _ body: (Int) throws -> Void) rethrows -> Double {
            try body(0)  // warm the page cache and statement caches
            let start = ContinuousClock.now
            for index in 0..<repetitions { try body(index) }
            return Self.seconds(since: start) / Double(repetitions)
        }
        var result: JSONObject = [:]
        result["exact"] = .double(
            try average(2000) { index in
                let id = ContactGenerator.salesforceId(prefix: "003", (index * 7919) % n)
                let found = try store.query(.exact("contacts", path: "Id", matchKey: .string(id), pageSize: 1))
                guard found.count == 1 else { throw ValidationError("lookup of \(id) found \(found.count)") }
            })
        result["like"] = .double(
            try average(20) { _ in
                _ = try store.query(.like("contacts", path: "LastName", likeKey: "%Thompson%", pageSize: 100))
            })
        result["match"] = .double(
            try average(20) { _ in
                _ = try store.query(.match("contacts", path: "LastName", matchKey: "Thompson", pageSize: 100))
            })
        let rare = "contact\(n / 2)"
        result["likeRare"] = .double(
            try average(10) { _ in
                let found = try store.query(.like("contacts", path: "Email", likeKey: "%\(rare).%", pageSize: 100))
                guard found.count == 1 else { throw ValidationError("like \(rare) found \(found.count)") }
            })
        result["matchRare"] = .double(
            try average(10) { _ in
                let found = try store.query(.match("contacts", path: "Email", matchKey: rare, pageSize: 100))
                guard found.count == 1 else { throw ValidationError("match \(rare) found \(found.count)") }
            })
        for size in [10, 100, 1000] {
            result["all\(size)"] = .double(
                try average(20) { index in
                    _ = try store.query(.all("contacts", orderPath: "LastName", pageSize: size), pageIndex: index % 5)
                })
        }
        return result
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func peakRSSMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").compactMap({ Double($0) }).first
        else { return .nan }
        return kilobytes / 1024
    }
}

/// The baseline: what a hand-written insert loop on the raw SQLite API costs for the same layout.
struct PlainSQLiteInserter {
    let path: String
    let soup: SoupInfo

    func insert(_ documents: some Sequence<JSONObject>) throws {
        var connection: OpaquePointer?
        guard sqlite3_open(path, &connection) == SQLITE_OK, let db = connection else { throw ValidationError("cannot open \(path)") }
        defer { sqlite3_close(db) }
        let columns = soup.indexSpecs.filter { $0.type != .json1 }
        let fullText = columns.filter { $0.type == .fullText }
        let names = ["id", "soup", "created", "lastModified"] + columns.compactMap(\.columnName)
        let insertSQL = "INSERT INTO \(soup.tableName) (\(names.joined(separator: ","))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ",")))"
        let ftsNames = fullText.compactMap(\.columnName)
        let ftsSQL = "INSERT INTO \(soup.ftsTableName) (rowid,\(ftsNames.joined(separator: ","))) VALUES (?\(String(repeating: ",?", count: ftsNames.count)))"
        var insert: OpaquePointer?
        var fts: OpaquePointer?
        try check(db, sqlite3_exec(db, "PRAGMA journal_mode=WAL; BEGIN IMMEDIATE", nil, nil, nil))
        try check(db, sqlite3_prepare_v2(db, insertSQL, -1, &insert, nil))
        try check(db, sqlite3_prepare_v2(db, ftsSQL, -1, &fts, nil))
        defer {
            sqlite3_finalize(insert)
            sqlite3_finalize(fts)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var id: Int64 = 1
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for var document in documents {
            document["_soupEntryId"] = .int(id)
            document["_soupLastModifiedDate"] = .int(now)
            let json = JSONWriter.string(.object(document))
            sqlite3_bind_int64(insert, 1, id)
            sqlite3_bind_text(insert, 2, json, -1, transient)
            sqlite3_bind_int64(insert, 3, now)
            sqlite3_bind_int64(insert, 4, now)
            sqlite3_bind_int64(fts, 1, id)
            var ftsIndex: Int32 = 2
            for (offset, spec) in columns.enumerated() {
                let position = Int32(offset + 5)
                let value = document[spec.path]
                switch value {
                case let .string(text)?:
                    sqlite3_bind_text(insert, position, text, -1, transient)
                    if spec.type == .fullText { sqlite3_bind_text(fts, ftsIndex, text, -1, transient) }
                case let .int(number)?:
                    sqlite3_bind_int64(insert, position, number)
                case let .bool(flag)?:
                    sqlite3_bind_text(insert, position, flag ? "true" : "false", -1, transient)
                default:
                    sqlite3_bind_null(insert, position)
                    if spec.type == .fullText { sqlite3_bind_null(fts, ftsIndex) }
                }
                if spec.type == .fullText { ftsIndex += 1 }
            }
            guard sqlite3_step(insert) == SQLITE_DONE, sqlite3_step(fts) == SQLITE_DONE else {
                throw ValidationError(String(cString: sqlite3_errmsg(db)))
            }
            sqlite3_reset(insert)
            sqlite3_reset(fts)
            id += 1
        }
        try check(db, sqlite3_exec(db, "COMMIT", nil, nil, nil))
    }

    private func check(_ db: OpaquePointer, _ code: Int32) throws {
        guard code == SQLITE_OK else { throw ValidationError(String(cString: sqlite3_errmsg(db))) }
    }
}
