import ForceJSON
import Foundation

/// The printed result: one row per case, with its baseline, the ratio to it and the goal.
struct SyncBenchTable {
    /// What a row must show to meet the goal.
    enum Goal {
        case under(seconds: Double)
        case withinFloor(Double)
        /// At most this many times the baseline measured in the same run.
        case withinBaseline(Double)

        var text: String {
            switch self {
            case let .under(seconds): String(format: "< %.0f s", seconds)
            case let .withinFloor(ratio): String(format: "≤ %gx floor", ratio)
            case let .withinBaseline(ratio): String(format: "≤ %gx baseline", ratio)
            }
        }

        func isMet(seconds: Double, ratio: Double?) -> Bool {
            switch self {
            case let .under(limit): seconds < limit
            case let .withinFloor(limit), let .withinBaseline(limit): (ratio ?? .infinity) <= limit
            }
        }
    }

    private struct Row {
        var name: String
        var n: Int
        var seconds: Double
        var records: Int?
        var requests: Int?
        var peakRSS: Double?
        var baselineSeconds: Double?
        var baselineIsFloor = false
        var goal: Goal?
    }

    private var rows: [Row] = []

    /// A row whose baseline is another case's time.
    mutating func add(name: String, n: Int, result: JSONObject, baseline: JSONObject? = nil, goal: Goal? = nil) {
        rows.append(Self.row(name, n, result, baselineSeconds: baseline?["seconds"]?.doubleValue, goal: goal))
    }

    /// A sync-up row whose baseline is the round-trip floor.
    mutating func add(name: String, n: Int, result: JSONObject, floorSeconds: Double, goal: Goal? = nil) {
        var row = Self.row(name, n, result, baselineSeconds: floorSeconds, goal: goal)
        row.baselineIsFloor = true
        row.peakRSS = nil
        rows.append(row)
    }

    private static func row(_ name: String, _ n: Int, _ result: JSONObject, baselineSeconds: Double?, goal: Goal?) -> Row {
        Row(
            name: name, n: n, seconds: result["seconds"]?.doubleValue ?? .nan, records: result["records"]?.int64Value.map { Int($0) },
            requests: result["requests"]?.int64Value.map { Int($0) }, peakRSS: result["peakRSSMB"]?.doubleValue,
            baselineSeconds: baselineSeconds, goal: goal)
    }

    /// Peak RSS in MB of the rows named `name`, smallest n first.
    func peakRSS(of name: String) -> [(n: Int, megabytes: Double)] {
        rows.filter { $0.name == name }.compactMap { row in row.peakRSS.map { (row.n, $0) } }.sorted { $0.n < $1.n }
    }

    func print() {
        let header = ["benchmark", "n", "requests", "time", "records/s", "peak RSS", "baseline", "ratio", "goal"]
        let cells = rows.map { row -> [String] in
            let ratio = row.baselineSeconds.map { row.seconds / $0 }
            let goal = row.goal.map { "\($0.text) \($0.isMet(seconds: row.seconds, ratio: ratio) ? "met" : "MISSED")" } ?? ""
            return [
                row.name, "\(row.n)", row.requests.map(String.init) ?? "", Self.format(row.seconds),
                row.records.map { String(format: "%.0f", Double($0) / row.seconds) } ?? "",
                row.peakRSS.map { String(format: "%.0f MB", $0) } ?? "",
                row.baselineSeconds.map { (row.baselineIsFloor ? "floor " : "") + Self.format($0) } ?? "",
                ratio.map { String(format: "%.2fx", $0) } ?? "", goal,
            ]
        }
        let all = [header] + cells
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for (index, row) in all.enumerated() {
            let line = row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 || column == row.count - 1 ? cell + pad : pad + cell
            }
            Swift.print(line.joined(separator: "  "))
            if index == 0 { Swift.print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds >= 1 ? String(format: "%.2f s", seconds) : String(format: "%.0f ms", seconds * 1000)
    }
}
