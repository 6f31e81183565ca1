/// Requests sent with up to `width` in flight, each answer handled as it arrives (one at a time,
/// in the caller's task), the next request leaving as one is handled — not when a whole group is
/// back. After a failure (a request's, a handler's, or `checkAccepting` refusing because the sync
/// was stopped) no new request leaves; the answers of those already in flight are still handled,
/// so what the server did is recorded, and the first failure is thrown at the end.
struct RequestWindow: Sendable {
    var width: Int
    let checkAccepting: @Sendable () async throws -> Void

    func run<Answer: Sendable>(
        _ count: Int, request: @escaping @Sendable (Int) async throws -> Answer,
        handle: (Int, Answer) throws -> Void
    ) async throws {
        var failure: (any Error)?
        var next = 0
        await withTaskGroup(of: (Int, Result<Answer, any Error>).self) { group in
            func launch() async {
                guard failure == nil, next < count else { return }
                do { try await checkAccepting() } catch {
                    failure = error
                    return
                }
                let index = next
                next += 1
                group.addTask {
                    do { return (index, .success(try await request(index))) } catch { return (index, .failure(error)) }
                }
            }
            for _ in 0..<max(width, 1) { await launch() }
            while let (index, result) = await group.next() {
                do { try handle(index, try result.get()) } catch { failure = failure ?? error }
                await launch()
            }
        }
        if let failure { throw failure }
    }
}
