import ForceJSON
import Foundation
import LocalOrgProcess

/// Issue 47's scale goal: taking a slice of 5,000 contacts offline in an org of a million costs
/// what it costs in an org of 5,000, in time and bytes, for the first sync and a quiet resync
/// (ghost checks included). Both orgs hold the same slice, `MailingCity = 'Zürich'`, set on the
/// server before the run, its filter queried once so the org's index on it exists, as a real
/// org's would.
extension BenchRun {
    /// Runs the slice cases; returns the lines comparing bytes, printed after the table.
    func sliceCases(directory: String, table: inout SyncBenchTable) async throws -> [String] {
        var runs: [(org: Int, first: JSONObject, resync: JSONObject)] = []
        for orgSize in [slice, sliceOrg] {
            let org = try seedOrg(directory: directory, name: "slice-\(orgSize)", contacts: orgSize)
            let server = try await LocalOrgProcess(dataDirectory: org)
            defer { server.stop() }
            try await placeSlice(server, count: slice)
            let arguments = [
                "--url", server.url, "--ca", server.caFile, "--config", config, "--n", "\(slice)", "--store", "\(directory)/slice-\(orgSize).sqlite",
            ]
            let first = try runCase(["slice-first"] + arguments)
            runs.append((orgSize, first, try runCase(["slice-resync"] + arguments)))
        }
        guard let small = runs.first, let large = runs.last else { return [] }
        table.add(name: "subscription's first sync, \(small.org)-contact org (baseline)", n: slice, result: small.first)
        table.add(
            name: "subscription's first sync, slice of \(large.org)", n: slice, result: large.first, baseline: small.first, goal: .withinBaseline(1.5))
        table.add(name: "subscription's quiet resync, \(small.org)-contact org (baseline)", n: slice, result: small.resync)
        table.add(
            name: "subscription's quiet resync, slice of \(large.org)", n: slice, result: large.resync, baseline: small.resync,
            goal: .withinBaseline(1.5))
        return [("first sync", small.first, large.first), ("quiet resync", small.resync, large.resync)].map { label, baseline, measured in
            let base = Double(baseline["bytesReceived"]?.int64Value ?? 0)
            let bytes = Double(measured["bytesReceived"]?.int64Value ?? 0)
            let ratio = base > 0 ? bytes / base : .infinity
            return String(
                format: "Subscription's %@, bytes received: %.0f KB from the slice of %d, %.0f KB from the %d-contact org (%.2fx; goal ≤ 1.1x %@).",
                label, bytes / 1024, large.org, base / 1024, small.org, ratio, ratio <= 1.1 ? "met" : "MISSED")
        }
    }

    /// Moves `count` contacts to Zürich as another user (trainer), 200 per collection request,
    /// then counts them through the slice's filter.
    private func placeSlice(_ server: LocalOrgProcess, count: Int) async throws {
        let session = try await BenchSession.signIn(
            url: server.url, caFile: server.caFile, username: "trainer@localorg.test", password: "localorg-trainer")
        let ids = try await session.ids("SELECT Id FROM Contact ORDER BY Id LIMIT \(count)")
        // The last one a second later: a quiet resync receives again only the records of its
        // high-water mark's second, and a slice moved within one second would be all of them.
        for (index, start) in (Array(stride(from: 0, to: ids.count - 1, by: 200)) + [ids.count - 1]).enumerated() {
            if start == ids.count - 1, index > 0 { try await Task.sleep(for: .milliseconds(1_100)) }
            let end = start == ids.count - 1 ? ids.count : min(start + 200, ids.count - 1)
            let records: [JSONObject] = ids[start..<end].map {
                ["attributes": ["type": "Contact"], "id": .string($0), "MailingCity": "Zürich"]
            }
            if let failed = try await session.client.updateRecords(records).first(where: { !$0.success }) {
                throw BenchError("moving the slice was refused: \(failed.errors.map(\.message).joined(separator: "; "))")
            }
        }
        let counted = try await session.client.query("SELECT COUNT() FROM Contact WHERE MailingCity = 'Zürich'").totalSize
        guard counted == count else { throw BenchError("the org has \(counted) contacts in Zürich, expected \(count)") }
        session.client.shutdown()
    }
}
