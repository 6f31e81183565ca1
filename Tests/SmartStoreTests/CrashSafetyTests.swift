import Foundation
import ForceJSON
import GRDB
import Testing
@testable import SmartStore

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
        process.arguments = ["load", "--store", store, "--config", packageRoot.appendingPathComponent("config").path,
                             "--count", "\(count)", "--announce-after", "\(announceAfter)"] + extra
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output.fileHandleForReading)
    }

    /// Reads stdout until `marker` shows up or the stream ends; returns everything read.
    static func read(_ handle: FileHandle, until marker: String) -> String {
        var text = ""
        while !text.contains(marker) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }
}

@Suite("Crash safety and concurrent access", .serialized)
struct CrashSafetyTests {
    func integrity(_ temporary: TemporaryStore) throws -> String? {
        try temporary.raw { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
    }

    @Test(arguments: [500, 6_000, 11_500])
    func aKilledBatchIsAllOrNothing(killAfter: Int) throws {
        let temporary = try TemporaryStore()
        try temporary.store.setup(from: StoreConfig(contentsOf: ToolProcess.packageRoot.appendingPathComponent("config/userstore.json")))
        let before = try temporary.store.create([["Id": "003EXISTING", "LastName": "Kept"]], in: "contacts")

        let (process, output) = try ToolProcess.startLoad(store: temporary.path, count: 12_000, announceAfter: killAfter)
        let seen = ToolProcess.read(output, until: "LOADING")
        #expect(seen.contains("LOADING"), "the loader must reach the kill point: \(seen)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let reopened = try temporary.reopen()
        let count = try reopened.count(.all("contacts"))
        #expect(count == 1, "the killed batch must leave nothing behind (found \(count) entries)")
        #expect(try reopened.retrieve([1], from: "contacts") == before)
        #expect(try integrity(temporary) == "ok")
        #expect(try reopened.query(.match("contacts", path: nil, matchKey: "Kept")).count == 1)

        // Run the same batch to completion: everything arrives exactly once.
        let (again, againOutput) = try ToolProcess.startLoad(store: temporary.path, count: 12_000, announceAfter: 0)
        let finished = ToolProcess.read(againOutput, until: "DONE")
        again.waitUntilExit()
        #expect(finished.contains("DONE 12000"))
        #expect(try reopened.count(.all("contacts")) == 12_001)
        let ftsRows = try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM TABLE_1_fts") }
        #expect(ftsRows == 12_001)
    }

    @Test func aKilledBulkLoadGetsItsIndexesBackOnTheNextOpen() throws {
        let temporary = try TemporaryStore()
        try temporary.store.setup(from: StoreConfig(contentsOf: ToolProcess.packageRoot.appendingPathComponent("config/userstore.json")))
        func indexes() throws -> [String] {
            try temporary.raw { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'TABLE_1' AND sql IS NOT NULL ORDER BY name") }
        }
        let complete = try indexes()
        let (process, output) = try ToolProcess.startLoad(store: temporary.path, count: 20_000, announceAfter: 3_500,
                                                          extra: ["--bulk", "--batch", "1000"])
        let seen = ToolProcess.read(output, until: "LOADING")
        #expect(seen.contains("LOADING"), "the loader must reach the kill point: \(seen)")
        // The loader is alive and holds the lock: another open leaves its indexes to it.
        _ = try temporary.reopen()
        #expect(try indexes().count < complete.count)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let reopened = try temporary.reopen()
        #expect(try indexes() == complete)
        #expect(try temporary.raw { try Int.fetchOne($0, sql: "SELECT count(*) FROM long_operations_status") } == 0)
        let count = try reopened.count(.all("contacts"))
        #expect(count >= 3_000 && count < 20_000 && count.isMultiple(of: 1_000), "whole batches only: \(count)")
        #expect(try reopened.read { try String.fetchOne($0.db, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test func anotherProcessWritingAtTheSameTimeMakesUsWaitNotFail() throws {
        let temporary = try TemporaryStore()
        try temporary.store.setup(from: StoreConfig(contentsOf: ToolProcess.packageRoot.appendingPathComponent("config/userstore.json")))
        let (process, output) = try ToolProcess.startLoad(store: temporary.path, count: 8_000, announceAfter: 100)
        _ = ToolProcess.read(output, until: "LOADING")
        // The loader holds the write lock now; these writes queue behind it.
        for index in 0..<20 {
            _ = try temporary.store.upsert(["Id": .string("003LOCAL\(index)"), "LastName": "Local"], in: "contacts", externalIdPath: "Id")
        }
        let rest = ToolProcess.read(output, until: "DONE")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(rest.contains("DONE 8000"))
        #expect(try temporary.store.count(.all("contacts")) == 8_020)
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
