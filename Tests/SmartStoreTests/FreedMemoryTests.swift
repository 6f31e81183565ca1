import Foundation
import SmartStore
import Testing

@Suite("Freed memory given back to the system")
struct FreedMemoryTests {
    /// This process's resident anonymous memory, in MB (Linux).
    static func residentAnonymousMB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return kilobytes / 1024
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
    func freedPagesInsideTheHeapLeaveTheProcess() throws {
        // 256 MB in page-cache-sized blocks, all freed but the last: the heap cannot shrink from
        // its end, so the freed memory stays resident until it is given back.
        let blocks = (0..<16_384).map { _ -> UnsafeMutableRawPointer in
            let block = UnsafeMutableRawPointer.allocate(byteCount: 16_384, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 16_384)
            return block
        }
        defer { blocks.last?.deallocate() }
        for block in blocks.dropLast() { block.deallocate() }
        let before = try Self.residentAnonymousMB()
        SmartStore.returnFreedMemory()
        let after = try Self.residentAnonymousMB()
        #expect(before - after >= 128, "resident anonymous memory \(before) MB before, \(after) MB after")
    }
}
