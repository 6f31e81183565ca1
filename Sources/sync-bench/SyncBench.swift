import ArgumentParser
import ForceAPI
import ForceJSON
import ForcetermServices
import Foundation
import LocalOrgProcess
import MobileSync

/// `sync-bench`: the MobileSync benchmarks (`make bench-sync`). Starts real `localorg` servers on
/// 127.0.0.1, runs the real engine (SyncManager over ForceClientRemote) against them, one case
/// per child process, and prints a table with each case beside a baseline measured in the same run.
@main
struct SyncBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-bench",
        abstract: "Benchmark MobileSync against a local localorg and print a table.",
        subcommands: [BenchRun.self, BenchCase.self],
        defaultSubcommand: BenchRun.self)
}

struct BenchRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run every benchmark case and print the table.")

    @Option(help: "The directory holding userstore.json and usersyncs.json.") var config = "config"
    @Option(parsing: .upToNextOption, help: "Contacts in the org for the sync-down cases.") var downSizes = [10_000, 100_000]
    @Option(parsing: .upToNextOption, help: "Local changes (half creates, half updates) for the sync-up cases.") var upSizes = [1_000, 10_000]
    @Option(help: "Local changes for the single-record sync-up case (one request per record: slow at 50 ms).") var singleUpSize = 1_000
    @Option(help: "Milliseconds localorg adds to each request in the sync-up cases (--latency).") var latency = 50
    @Option(help: "Share of the largest org's contacts changed on the server before the incremental resync.") var changedShare = 0.01
    @Option(help: "Contacts of the slice a subscription takes offline (the baseline org has only these).") var slice = 5_000
    @Option(help: "Contacts of the large org the slice is taken from (0 skips the subscription cases).") var sliceOrg = 1_000_000

    func validate() throws {
        if downSizes.isEmpty || downSizes.contains(where: { $0 < 100 }) { throw ValidationError("--down-sizes must be at least 100 each.") }
        if upSizes.isEmpty || upSizes.contains(where: { $0 < 2 }) || singleUpSize < 2 { throw ValidationError("sync-up sizes must be at least 2.") }
        if !(0.0001...0.5).contains(changedShare) { throw ValidationError("--changed-share must be between 0.0001 and 0.5.") }
        if latency < 0 { throw ValidationError("--latency cannot be negative.") }
        if slice < 100 || (sliceOrg != 0 && sliceOrg <= slice) { throw ValidationError("--slice must be at least 100 and --slice-org larger than it (or 0).") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try BenchDefinitions(configDirectory: config)  // a wrong --config fails here, not in a child
        var table = SyncBenchTable()
        print("MobileSync benchmarks — the engine (SyncManager + ForceClientRemote) against a release localorg over HTTPS on 127.0.0.1,")
        print("with the contacts syncs of \(config)/usersyncs.json (LEAVE_IF_CHANGED) and soups of \(config)/userstore.json. Each case runs")
        print("in a fresh process (peak RSS is its own). Baselines run in the same run: the raw paged SOQL query and the")
        print("store load (the same records stored by the engine's writer, no network), the round-trip floor ceil(N/200) x RTT")
        print("for sync up, a full sync of the same data for the incremental resync.\n")

        try await downCases(directory: directory, table: &table)
        let rtt = try await upCases(directory: directory, table: &table)
        let sliceLines = sliceOrg > 0 ? try await sliceCases(directory: directory, table: &table) : []
        table.print()
        let rss = table.peakRSS(of: "sync down (engine + store) vs raw query")
        if let small = rss.first, let large = rss.last, rss.count > 1 {
            print(
                String(
                    format: "\nPeak RSS of the sync down: %.0f MB at %d records, %.0f MB at %d (x%.2f for x%.0f the records).",
                    small.megabytes, small.n, large.megabytes, large.n, large.megabytes / small.megabytes, Double(large.n) / Double(small.n)))
        }
        print(String(format: "Sync-up RTT: median of 9 one-record queries against localorg --latency %d: %.1f ms.", latency, rtt * 1000))
        for line in sliceLines { print(line) }
    }

    // MARK: Cases

    private func downCases(directory: String, table: inout SyncBenchTable) async throws {
        for size in downSizes.sorted() {
            let org = try seedOrg(directory: directory, name: "down-\(size)", contacts: size)
            let server = try await LocalOrgProcess(dataDirectory: org)
            defer { server.stop() }
            func arguments(_ kind: String, n: Int, store: String = "down-\(size)") -> [String] {
                [kind, "--url", server.url, "--ca", server.caFile, "--config", config, "--n", "\(n)", "--store", "\(directory)/\(store).sqlite"]
            }
            let raw = try runCase(arguments("down-raw", n: size))
            let load = try runCase(arguments("down-store-load", n: size, store: "down-\(size)-load"))
            let sync = try runCase(arguments("down-sync", n: size))
            table.add(name: "raw paged SOQL query (baseline)", n: size, result: raw)
            table.add(name: "store load, no network (baseline)", n: size, result: load)
            // Fetching and storing overlap, so the slower of the two is the floor that matters;
            // the raw query alone swings with what else shares the two cores.
            let floor = (load["seconds"]?.doubleValue ?? 0) > (raw["seconds"]?.doubleValue ?? 0) ? load : raw
            table.add(
                name: "sync down vs the slower of the two", n: size, result: sync, baseline: floor,
                goal: size >= 100_000 ? .withinBaseline(1.2) : nil)
            table.add(
                name: "sync down (engine + store) vs raw query", n: size, result: sync, baseline: raw,
                goal: size >= 100_000 ? .withinBaseline(1.5) : nil)
            guard size == downSizes.max() else { continue }
            // A first sync run from the TUI: its list index (under the smartstore_text collation) exists.
            let listed = try runCase(arguments("down-sync", n: size, store: "down-\(size)-listed") + ["--list-index"])
            table.add(name: "sync down, TUI list index present", n: size, result: listed, baseline: raw)
            // config.toml's pages-in-flight = 3: three pages of 600 at once (tried for lossy links).
            let ahead = try runCase(arguments("down-sync", n: size, store: "down-\(size)-ahead") + ["--pages-in-flight", "3"])
            table.add(name: "sync down, 3 pages of 600 in flight", n: size, result: ahead, baseline: floor)
            // The same first sync into an encrypted store (SQLCipher 4's format) and an unencrypted one.
            let down = try Self.takingTurns { encrypted in
                try runCase(
                    arguments("down-sync", n: size, store: "down-\(size)-\(encrypted ? "encrypted" : "plain")-\(UUID().uuidString.prefix(8))")
                        + (encrypted ? ["--encrypted"] : []))
            }
            table.add(
                name: "sync down, encrypted vs plain (medians of \(Self.encryptionRounds))", n: size, result: down.encrypted,
                baseline: down.plain, goal: .withinBaseline(1.15))
            let changed = max(1, Int(Double(size) * changedShare))
            try await changeOnServer(server, count: changed)
            let resync = try runCase(arguments("down-resync", n: changed))
            let full = try runCase(arguments("down-full-again", n: size))
            table.add(name: "full sync of the same data (baseline)", n: size, result: full)
            table.add(name: "incremental resync, \(changed) changed", n: size, result: resync, baseline: full)
        }
    }

    /// Returns the measured round-trip time in seconds.
    private func upCases(directory: String, table: inout SyncBenchTable) async throws -> Double {
        let largest = max(upSizes.max() ?? 0, singleUpSize)
        // Each case updates n/2 records it syncs down first (the least recently modified, so the
        // cases mostly touch different ones); the org needs at least the largest half.
        let org = try seedOrg(directory: directory, name: "up", contacts: max(largest, 1_000))
        let server = try await LocalOrgProcess(arguments: ["--latency", "\(latency)"], dataDirectory: org)
        defer { server.stop() }
        let rtt = try await roundTrip(server)
        var caseNumber = 0
        func up(_ n: Int, _ extra: [String]) throws -> JSONObject {
            caseNumber += 1
            return try runCase(
                [
                    "up", "--url", server.url, "--ca", server.caFile, "--config", config, "--n", "\(n)",
                    "--store", "\(directory)/up-\(caseNumber).sqlite",
                ] + extra)
        }
        for size in upSizes.sorted() {
            let floor = Double((size + 199) / 200) * rtt
            let collection = try up(size, [])
            table.add(
                name: "sync up, collection target (default)", n: size, result: collection,
                floorSeconds: floor, goal: .withinFloor(1.5))
        }
        if let size = upSizes.max() {
            let floor = Double((size + 199) / 200) * rtt
            // Each run adds its records to the org, so a later run meets a larger one: taking turns
            // gives both stores the same share of early and late runs.
            let turns = try Self.takingTurns { encrypted in try up(size, encrypted ? ["--encrypted"] : []) }
            table.add(
                name: "sync up, encrypted vs plain (medians of \(Self.encryptionRounds))", n: size, result: turns.encrypted,
                baseline: turns.plain, goal: .withinBaseline(1.15))
            // A realistic second day: every record was synced once, and the user changed them.
            table.add(
                name: "sync up, updates of synced records", n: size, result: try up(size, ["--updates-only"]),
                floorSeconds: floor, goal: .withinFloor(1.5))
            // The same after an up-only sync (or a network lost before the sync down): the dates
            // our own writes made unknown are read first.
            table.add(
                name: "sync up, updates, dates unknown", n: size, result: try up(size, ["--updates-only", "--dates-unknown"]),
                floorSeconds: floor)
            // The engine before it kept several requests of one action in flight, for comparison.
            table.add(
                name: "sync up, collection, one request at a time", n: size,
                result: try up(size, ["--request-concurrency", "1"]), floorSeconds: Double((size + 199) / 200) * rtt)
        }
        let single = try up(singleUpSize, ["--mode", "singleRecord"])
        table.add(
            name: "sync up, single-record target (\(singleUpSize) only)", n: singleUpSize, result: single,
            floorSeconds: Double((singleUpSize + 199) / 200) * rtt)
        return rtt
    }

    // MARK: Helpers

    /// Runs of a case on an encrypted store and on an unencrypted one, for the side-by-side rows.
    static let encryptionRounds = 5

    /// The median runs of `run` on an unencrypted store (`false`) and an encrypted one (`true`),
    /// `encryptionRounds` of each taken in turn, which goes first alternating: one pair swung
    /// between 1.1x and 1.35x, and medians of three between 1.12x and 1.25x, with what else the two
    /// cores (localorg's included) did meanwhile.
    static func takingTurns(_ run: (_ encrypted: Bool) throws -> JSONObject) rethrows -> (plain: JSONObject, encrypted: JSONObject) {
        var plainRuns: [JSONObject] = []
        var encryptedRuns: [JSONObject] = []
        for round in 1...encryptionRounds {
            for encrypted in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                let result = try run(encrypted)
                if encrypted { encryptedRuns.append(result) } else { plainRuns.append(result) }
            }
        }
        return (median(plainRuns), median(encryptedRuns))
    }

    /// The run of median time among `runs`.
    static func median(_ runs: [JSONObject]) -> JSONObject {
        let sorted = runs.sorted { ($0["seconds"]?.doubleValue ?? 0) < ($1["seconds"]?.doubleValue ?? 0) }
        return sorted.isEmpty ? [:] : sorted[sorted.count / 2]
    }

    /// Runs one case in a child process and returns its JSON line.
    func runCase(_ arguments: [String]) throws -> JSONObject {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["case"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if process.terminationReason == .uncaughtSignal {
            throw BenchError("benchmark case \(arguments[0]) crashed with signal \(process.terminationStatus); a case must exit cleanly")
        }
        guard process.terminationStatus == 0, let line = text.split(separator: "\n").last else {
            throw BenchError("benchmark case \(arguments[0]) failed with status \(process.terminationStatus) (its error is above)")
        }
        return try JSONParser.parseObject(String(line))
    }

    /// A new org directory with `contacts` contacts (and one account per 100).
    func seedOrg(directory: String, name: String, contacts: Int) throws -> String {
        let org = "\(directory)/\(name)"
        let process = Process()
        process.executableURL = LocalOrgProcess.binary("localorg")
        process.arguments = ["seed", "--demo", "--data", org, "--accounts", "\(max(1, contacts / 100))", "--contacts", "\(contacts)", "--random-seed", "1"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("localorg seed of \(contacts) contacts failed (status \(process.terminationStatus))") }
        return org
    }

    /// Changes `count` contacts' Title as another user (trainer), 200 per collection request.
    private func changeOnServer(_ server: LocalOrgProcess, count: Int) async throws {
        let session = try await BenchSession.signIn(
            url: server.url, caFile: server.caFile, username: "trainer@localorg.test",
            password: "localorg-trainer")
        let ids = try await session.ids("SELECT Id FROM Contact LIMIT \(count)")
        guard ids.count == count else { throw BenchError("found \(ids.count) contacts to change on the server, expected \(count)") }
        for start in stride(from: 0, to: ids.count, by: 200) {
            let records: [JSONObject] = ids[start..<min(start + 200, ids.count)].map {
                ["attributes": ["type": "Contact"], "id": .string($0), "Title": "Changed on the server"]
            }
            let results = try await session.client.updateRecords(records)
            if let failed = results.first(where: { !$0.success }) {
                throw BenchError("a server-side change was refused: \(failed.errors.map(\.message).joined(separator: "; "))")
            }
        }
    }

    /// The median time of a one-record query: the round trip the sync-up floor is made of.
    private func roundTrip(_ server: LocalOrgProcess) async throws -> Double {
        let session = try await BenchSession.signIn(url: server.url, caFile: server.caFile, maxConnections: 1)
        var times: [Double] = []
        for _ in 0..<9 {
            let start = ContinuousClock.now
            _ = try await session.client.query("SELECT Id FROM Contact LIMIT 1")
            times.append(ProcessMeasurements.seconds(since: start))
        }
        return times.sorted()[times.count / 2]
    }
}
