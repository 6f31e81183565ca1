import ForceJSON
import ForcetermServices
import Foundation
import Synchronization
import Testing

@testable import MobileSync

/// A remote that forwards every call to the real one and notes, for each `queryMore`, its offset
/// and when it started and ended, so a test sees how many were in flight. With `firstPageCut`, the
/// first page of a query comes back shorter than the server sent it, its `nextRecordsUrl` moved to
/// match: a server that chose a page size of its own.
struct WatchedRemote: ForwardingRemote {
    let remote: any SyncRemote
    var firstPageCut: Int?
    let log = PageLog()

    final class PageLog: Sendable {
        private let state = Mutex<(running: Int, most: Int, order: [String])>((0, 0, []))
        func start(_ offset: Int) {
            state.withLock {
                $0.running += 1
                $0.most = max($0.most, $0.running)
                $0.order.append("start \(offset)")
            }
        }
        func end(_ offset: Int) {
            state.withLock {
                $0.running -= 1
                $0.order.append("end \(offset)")
            }
        }
        var mostInFlight: Int { state.withLock { $0.most } }
        var order: [String] { state.withLock { $0.order } }
    }

    func query(_ soql: String, batchSize: Int?) async throws(SyncRemoteError) -> RemoteQueryPage {
        var page = try await remote.query(soql, batchSize: batchSize)
        if let cut = firstPageCut, let next = page.nextRecordsUrl, let url = PageLookahead.url(next, withOffset: cut) {
            page.records = Array(page.records.prefix(cut))
            page.nextRecordsUrl = url
        }
        return page
    }

    func queryMore(_ nextRecordsUrl: String) async throws(SyncRemoteError) -> RemoteQueryPage {
        let offset = PageLookahead.offset(of: nextRecordsUrl) ?? -1
        log.start(offset)
        defer { log.end(offset) }
        return try await remote.queryMore(nextRecordsUrl)
    }

    func send(_ writes: [RecordWrite], route: WriteRoute) async throws(SyncRemoteError) -> [RecordOutcome] {
        try await remote.send(writes, route: route)
    }
}

@Suite("Query pages asked for several at once", .serialized)
struct LivePageLookaheadTests {
    /// Six pages of 200 from 1,100 contacts (the last one of 100).
    static let target = LiveBulkLoadTests.target

    @Test("Three pages in flight store the same records as one at a time, ask for each page once and the last page after all others")
    func sameRecordsFewerWaits() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        _ = try await live.server.command(["seed", "--contacts", "1100"])
        let watched = WatchedRemote(remote: ForceClientRemote(client: live.client))
        let manager = try SyncManager(store: live.local.store, remote: watched, pagesInFlight: 3)
        let state = try await manager.syncDown(Self.target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts")
        #expect(state.status == .done)

        let plain = try SyncStore()
        let oneAtATime = try SyncManager(store: plain.store, remote: ForceClientRemote(client: live.client))
        #expect(try await oneAtATime.syncDown(Self.target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts").status == .done)
        let expected = try LiveBulkLoadTests.contents(plain)
        #expect(expected.count == 1100)
        #expect(try LiveBulkLoadTests.contents(live.local) == expected)

        let order = watched.log.order
        #expect(watched.log.mostInFlight >= 2, "\(order)")
        #expect(watched.log.mostInFlight <= 3, "\(order)")
        let started = order.filter { $0.hasPrefix("start") }
        #expect(started.sorted() == ["start 1000", "start 200", "start 400", "start 600", "start 800"], "\(order)")
        // The last page is asked for once every page before it has come back.
        let lastStart = try #require(order.firstIndex(of: "start 1000"))
        for offset in [200, 400, 600, 800] {
            #expect(try #require(order.firstIndex(of: "end \(offset)")) < lastStart, "\(order)")
        }
    }

    @Test("A page size the server chose differently drops the guesses and follows the server's own links: nothing missed or doubled")
    func wrongGuessesDropped() async throws {
        let live = try await LiveSync()
        defer { live.remove() }
        _ = try await live.server.command(["seed", "--contacts", "1100"])
        var watched = WatchedRemote(remote: ForceClientRemote(client: live.client))
        watched.firstPageCut = 150
        let manager = try SyncManager(store: live.local.store, remote: watched, pagesInFlight: 3)
        let state = try await manager.syncDown(Self.target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts")
        #expect(state.status == .done)
        let stored = try LiveBulkLoadTests.contents(live.local)
        #expect(stored.count == 1100)
        #expect(Set(stored.compactMap { $0["Id"]?.stringValue }).count == 1100)
        // Guessed from the cut page: 300 and 450; the server's page at 150 ended at 350.
        #expect(watched.log.order.contains("start 350"), "\(watched.log.order)")
    }

    @Test("Locator offsets: read and replaced at the end of the URL only")
    func locatorOffsets() {
        #expect(PageLookahead.offset(of: "/services/data/v62.0/query/01gLo00000AbCdE-2000") == 2000)
        #expect(PageLookahead.offset(of: "/services/data/v62.0/query/01gLo00000AbCdE") == nil)
        #expect(PageLookahead.offset(of: "/services/data/v62.0/query/01g-x") == nil)
        #expect(PageLookahead.url("/services/data/v62.0/query/01gLo-2000", withOffset: 4000) == "/services/data/v62.0/query/01gLo-4000")
        #expect(PageLookahead.url("/services/data/v62.0/query/01gLo", withOffset: 4000) == nil)
    }
}
