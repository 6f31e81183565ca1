import ForceJSON
import Foundation
import GRDB
import Testing

@testable import SmartStore

#if canImport(Glibc)
    import Glibc
#endif

/// The built `smartstore-tool`, run as a separate process that writes to the same store.
enum ToolProcess {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var executable: URL {
        if let directory = ProcessInfo.processInfo.environment["FORCETERM_BIN_DIR"] {
            return URL(fileURLWithPath: directory).appendingPathComponent("smartstore-tool")
        }
        return packageRoot.appendingPathComponent(".build/debug/smartstore-tool")
    }

    /// Starts `smartstore-tool load`; returns the process and its stdout.
    static func startLoad(store: String, count: Int, announceAfter: Int, extra: [String] = []) throws -> (Process, FileHandle) {
        let process = Process()
        process.executableURL = executable
        process.arguments =
            [
                "load", "--store", store, "--config", packageRoot.appendingPathComponent("config").path,
                "--count", "\(count)", "--announce-after", "\(announceAfter)",
            ] + extra
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output.fileHandleForReading)
    }

    /// Reads stdout until `marker` shows up or the stream ends; returns everything read.
    static func read(_ handle: FileHandle, until marker: String) async -> String {
        await offThePool { readBlocking(handle, until: marker) }
    }

    private static func readBlocking(_ handle: FileHandle, until marker: String) -> String {
        var text = ""
        while !text.contains(marker) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// Reads stdout until `marker`, then kills the process with SIGKILL at once, on the reading
    /// thread: a test resumed after the read can come too late on a loaded machine, the load done.
    static func kill(_ process: Process, at marker: String, reading handle: FileHandle) async -> String {
        let pid = process.processIdentifier
        let seen = await offThePool {
            let seen = readBlocking(handle, until: marker)
            if seen.contains(marker) { Glibc.kill(pid, SIGKILL) }
            return seen
        }
        await waitUntilExit(process)
        return seen
    }

    static func waitUntilExit(_ process: Process) async {
        await offThePool { process.waitUntilExit() }
    }

    /// Runs blocking work (a pipe read, a wait for a child, a write waiting out another process's
    /// lock) on a thread of its own. On one of Swift's cooperative threads (one per core) two such
    /// waits left the other suites' in-process servers no thread to answer on, and their requests
    /// timed out on a two-core CI machine.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}

@Suite("Crash safety and concurrent access", .serialized)
struct CrashSafetyTests {
    func integrity(_ temporary: TemporaryStore) throws -> String? {
        try temporary.raw { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
    }

    @Test(arguments: [500, 6_000, 11_500])
    func aKilledBatchIsAllOrNothing(killAfter: Int) async throws {
        let temporary = try TemporaryStore()
        try temporary.store.setup(from: StoreConfig(contentsOf: ToolProcess.packageRoot.appendingPathComponent("config/userstore.json")))
        let before = try temporary.store.create([["Id": "003EXISTING", "LastName": "Kept"]], in: "contacts")

        let (process, output) = try ToolProcess.startLoad(store: temporary.path, count: 12_000, announceAfter: killAfter)
        let seen = await ToolProcess.kill(process, at: "LOADING", reading: output)
        #expect(seen.contains("LOADING"), "the loader must reach the kill point: \(seen)")
        #expect(process.terminationReason == .uncaughtSignal)

        let reopened = try temporary.reopen()
        let count = try reopened.count(.all("contacts"))
        #expect(count == 1, "the killed batch must leave nothing behind (found \(count) entries)")
        #expect(try reopened.retrieve([1], from: "contacts") == before)
        #expect(try integrity(temporary) == "ok")
        #expect(try reopened.query(.match("contacts", path: nil, matchKey: "Kept")).count == 1)

        // Run the same batch to completion: everything arrives exactly once.
        let (again, againOutput) = try ToolProcess.startLoad(store: temporary.path, count: 12_000, announceAfter: 0)
        let finished = await ToolProcess.read(againOutput, until: "DONE")
        await ToolProcess.waitUntilExit(again)
        #expect(finished.contains("DONE 12000"))
        #expect(try reopened.count(.all("contacts")) == 12_001)
        let ftsRows = try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM TABLE_1_fts") }
        #expect(ftsRows == 12_001)
    }

    @Test func aKilledBulkLoadGetsItsIndexesBackOnTheNextOpen() async throws {
        let temporary = try TemporaryStore()
        try temporary.store.setup(from: StoreConfig(contentsOf: ToolProcess.packageRoot.appendingPathComponent("config/userstore.json")))
        func indexes() throws -> [String] {
            try temporary.raw { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'TABLE_1' AND sql IS NOT NULL ORDER BY name") }
        }
        let complete = try indexes()
        let (process, output) = try ToolProcess.startLoad(
            store: temporary.path, count: 20_000, announceAfter: 3_500,
            extra: ["--bulk", "--batch", "1000"])
        let seen = await ToolProcess.read(output, until: "LOADING")
        #expect(seen.contains("LOADING"), "the loader must reach the kill point: \(seen)")
        // The loader is alive and holds the lock: another open leaves its indexes to it.
        _ = try temporary.reopen()
        #expect(try indexes().count < complete.count)
        kill(process.processIdentifier, SIGKILL)
        await ToolProcess.waitUntilExit(process)
        #expect(process.terminationReason == .uncaughtSignal)

        let reopened = try temporary.reopen()
        #expect(try indexes() == complete)
        #expect(try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM long_operations_status") } == 0)
        let count = try reopened.count(.all("contacts"))
        #expect(count >= 3_000 && count < 20_000 && count.isMultiple(of: 1_000), "whole batches only: \(count)")
        #expect(try reopened.read { try String.fetchOne($0.db, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test func anotherProcessWritingAtTheSameTimeMakesUsWaitNotFail() async throws {
        let temporary = try TemporaryStore()
        try temporary.store.setup(from: StoreConfig(contentsOf: ToolProcess.packageRoot.appendingPathComponent("config/userstore.json")))
        // One transaction of 2,000 documents: a second alone, well inside the store's 15 s busy
        // timeout even on a loaded CI machine (8,000 once took longer there, and the wait gave up).
        let (process, output) = try ToolProcess.startLoad(store: temporary.path, count: 2_000, announceAfter: 100)
        _ = await ToolProcess.read(output, until: "LOADING")
        // The loader holds the write lock now; these writes queue behind it.
        let store = temporary.store
        let written = await ToolProcess.offThePool {
            Result { try (0..<20).map { try store.upsert(["Id": .string("003LOCAL\($0)"), "LastName": "Local"], in: "contacts", externalIdPath: "Id") } }
        }
        _ = try written.get()
        let rest = await ToolProcess.read(output, until: "DONE")
        await ToolProcess.waitUntilExit(process)
        #expect(process.terminationStatus == 0)
        #expect(rest.contains("DONE 2000"))
        #expect(try temporary.store.count(.all("contacts")) == 2_020)
        #expect(try integrity(temporary) == "ok")
    }

    @Test func manyReadersAndWritersOnSeparateConnections() async throws {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup("items", indexSpecs: [IndexSpec(path: "writer", type: .integer), IndexSpec(path: "text", type: .fullText)])
        let handles = try (0..<3).map { _ in try temporary.reopen() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (writer, handle) in handles.enumerated() {
                group.addTask {
                    for batch in 0..<20 {
                        let documents: [JSONObject] = (0..<10).map { ["writer": .int(Int64(writer)), "text": .string("batch \(batch) item \($0)")] }
                        _ = try handle.upsert(documents, in: "items")
                    }
                }
                group.addTask {
                    for _ in 0..<50 {
                        let count = try handle.count(.all("items"))
                        #expect(count % 10 == 0, "readers only ever see whole batches")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try temporary.store.count(.all("items")) == 600)
        for writer in 0..<3 {
            #expect(try temporary.store.count(.exact("items", path: "writer", matchKey: .int(Int64(writer)))) == 200)
        }
        #expect(try integrity(temporary) == "ok")
    }
}
