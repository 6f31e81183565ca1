/// The bottom line: state on the left, an optional progress bar, position on the right.
public enum StatusLine {
    public static let separator = " · "

    /// The facts (each its wordings, longest first; an empty one drops the fact) joined, each in
    /// the longest wording that lets them all fit in `width` columns.
    /// Shrinking goes in rounds, each taking every fact one wording shorter from the right, so the
    /// connection, the most important, keeps its full wording longest. Whatever still does not
    /// fit is cut with an ellipsis by the caller.
    public static func fit(_ facts: [[String]], width: Int) -> String {
        var chosen = facts.map { _ in 0 }
        func text() -> String {
            zip(facts, chosen).map { $0[$1] }.filter { !$0.isEmpty }.joined(separator: separator)
        }
        let rounds = facts.map { $0.count - 1 }.max() ?? 0
        for round in 0...rounds {
            for index in facts.indices.reversed() where round > 0 && facts[index].count > round {
                if text().displayWidth <= width { return text() }
                chosen[index] = round
            }
            if text().displayWidth <= width { return text() }
        }
        return text()
    }

    public static func draw(in canvas: inout Canvas, y: Int, width: Int, left facts: [[String]], progress: (label: String, fraction: Double)?, right: String, theme: Theme) {
        let style = theme.style(.statusLine)
        canvas.fill(Rect(x: 0, y: y, width: width, height: 1), style: style)
        let rightText = right.truncated(toWidth: max(width / 3, 0), ellipsis: theme.lines.ellipsis)
        let rightWidth = rightText.displayWidth
        let leftWidth = max(width - rightWidth - 3, 0)
        var progressText = ""
        if let progress {
            let barWidth = 10
            let filled = Int((progress.fraction * Double(barWidth)).rounded())
            let bar = String(repeating: theme.lines.progressFull, count: filled) + String(repeating: theme.lines.progressEmpty, count: barWidth - filled)
            let percent = "\(Int((progress.fraction * 100).rounded()))%  "
            // The longest progress that leaves the facts room for their shortest wordings.
            let shortestFacts = fit(facts, width: 0).displayWidth
            let wordings = ["\(progress.label) [\(bar)] " + percent, "[\(bar)] " + percent, percent]
            progressText = wordings.first { $0.displayWidth + shortestFacts <= leftWidth } ?? percent
        }
        let leftText = progressText + fit(facts, width: max(leftWidth - progressText.displayWidth, 0))
        canvas.draw(" " + leftText.truncated(toWidth: leftWidth, ellipsis: theme.lines.ellipsis), x: 0, y: y, style: style)
        canvas.draw(rightText, x: width - rightWidth - 1, y: y, style: style)
    }
}

/// A message just above the status line, right-aligned: one line, or two when it does not fit
/// (a long name or an error's own words), cut only after the second.
public enum ToastWidget {
    /// A toast's left edge this close to the screen's is moved to it: no fragment of the list
    /// shows beside the toast, to be read as part of it.
    static let smallestMargin = 8

    /// Draws the toast as one block at the right of row `y` (and the row above, when it wraps):
    /// its lines as wide as the longest, on rows cleared first, so no fragment of the list shows
    /// beside it to be read as part of it.
    public static func draw(in canvas: inout Canvas, y: Int, width: Int, message: String, isError: Bool, theme: Theme) {
        let lines = lines(of: message, width: max(width - 4, 1), ellipsis: theme.lines.ellipsis)
        for row in (y - (lines.count - 1))...y { canvas.draw(String(repeating: " ", count: width), x: 0, y: row, style: theme.style(.normal)) }
        var blockWidth = min((lines.map(\.displayWidth).max() ?? 0) + 2, width)
        var x = max(width - blockWidth - 1, 0)
        if x < smallestMargin {
            x = 0
            blockWidth = width
        }
        for (index, line) in lines.enumerated() {
            canvas.draw(
                (" " + line).padded(toWidth: blockWidth), x: x, y: y - (lines.count - 1) + index,
                style: theme.style(isError ? .toastError : .toast))
        }
    }

    /// The message in at most two lines of `width` columns, broken between words where it can.
    public static func lines(of message: String, width: Int, ellipsis: Ellipsis) -> [String] {
        guard message.displayWidth > width else { return [message] }
        var first = ""
        var rest = Substring(message)
        while let space = rest.firstIndex(of: " ") {
            let word = rest[..<space]
            guard (first + word).displayWidth <= width else { break }
            first += word + " "
            rest = rest[rest.index(after: space)...]
        }
        if first.isEmpty {  // one word longer than the line: break inside it
            first = message.clipped(toWidth: width)
            while !message.hasPrefix(first) { first.removeLast() }  // the space a straddling wide character left
            rest = message.dropFirst(first.count)
        }
        return [String(first.dropLast(first.hasSuffix(" ") ? 1 : 0)), String(rest).truncated(toWidth: width, ellipsis: ellipsis)]
    }
}
