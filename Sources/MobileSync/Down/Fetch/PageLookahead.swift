/// The pages of a query asked for before they are needed: the next one while the current one is
/// written, or several at once on connections of their own. Several were meant to fill a lossy
/// link that one TCP connection could not; measured (`make bench-field`) they were slower and
/// larger on every emulated link, so forceterm asks for one.
///
/// A query's `nextRecordsUrl` names the offset of its next record (`…/query/01g…-2000`), so the
/// pages after it can be named ahead by the size of the page just received. A page is only ever
/// used when the page before it named it: when the server chose another size, the guesses are
/// dropped and the page asked for as named. The last page is never asked for ahead, since a
/// server may close the cursor once it has served the end.
struct PageLookahead {
    let fetch: any SyncDownFetch
    let since: Int64?
    /// Requests in flight at most, the one needed now included; 1 asks for each page in turn.
    let pagesInFlight: Int
    private var ahead: [(url: String, task: Task<SyncDownPage, any Error>)] = []
    /// The page last handed out, cancelled with the others when the run ends early.
    private var current: Task<SyncDownPage, any Error>?

    init(fetch: any SyncDownFetch, since: Int64?, pagesInFlight: Int) {
        self.fetch = fetch
        self.since = since
        self.pagesInFlight = max(1, pagesInFlight)
    }

    /// The page after `page`, asked for now unless it already is, with the pages after it asked
    /// for too, up to `pagesInFlight`. Await the returned task for it.
    mutating func next(after page: SyncDownPage) -> Task<SyncDownPage, any Error> {
        guard case let .nextRecordsUrl(url, soup) = page.next else {
            cancelAll()
            let fetch = self.fetch
            let since = self.since
            let continuation = page.next
            let task = Task { try await fetch.nextPage(continuation, since: since) }
            current = task
            return task
        }
        let task: Task<SyncDownPage, any Error>
        if let first = ahead.first, first.url == url {
            task = ahead.removeFirst().task
        } else {
            cancelAll()
            task = request(url, soup: soup)
        }
        current = task
        guard let offset = Self.offset(of: url), !page.records.isEmpty else { return task }
        let size = page.records.count
        var nextOffset = ahead.last.flatMap { Self.offset(of: $0.url) }.map { $0 + size } ?? offset + size
        // Only pages before the last: the last one (offset + size reaching the total) waits its turn.
        while ahead.count + 1 < pagesInFlight, nextOffset + size < page.totalSize,
            let guess = Self.url(url, withOffset: nextOffset)
        {
            ahead.append((guess, request(guess, soup: soup)))
            nextOffset += size
        }
        return task
    }

    /// Cancels the pages in flight: the run ended, failed or starts its query again.
    mutating func cancelAll() {
        current?.cancel()
        current = nil
        for page in ahead { page.task.cancel() }
        ahead.removeAll()
    }

    /// Cancels the pages in flight and waits for their requests to end.
    mutating func cancelAndDrain() async {
        let tasks = [current].compactMap { $0 } + ahead.map(\.task)
        cancelAll()
        for task in tasks { _ = try? await task.value }
    }

    /// A page's answer, the request cancelled if the sync's own task is.
    static func value(of task: Task<SyncDownPage, any Error>) async throws -> SyncDownPage {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func request(_ url: String, soup: String) -> Task<SyncDownPage, any Error> {
        let fetch = self.fetch
        let since = self.since
        return Task { try await fetch.nextPage(.nextRecordsUrl(url, soup: soup), since: since) }
    }

    /// The record offset a locator URL ends with (`…-2000` → 2000).
    static func offset(of url: String) -> Int? {
        guard let dash = url.lastIndex(of: "-") else { return nil }
        let digits = url[url.index(after: dash)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }

    /// The same locator at another offset.
    static func url(_ url: String, withOffset offset: Int) -> String? {
        guard Self.offset(of: url) != nil, let dash = url.lastIndex(of: "-") else { return nil }
        return String(url[...dash]) + String(offset)
    }
}
