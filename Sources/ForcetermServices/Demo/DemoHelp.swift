import Foundation
import TerminalUI

/// The `?` screen's block in `forceterm --demo`: how to reach the demo org from another terminal
/// (URL, user, CA file, request log) and a script that changes the first contact of the list on
/// the server (`localorg edit`), so a trainer can show a server-side change or, after a local
/// edit, a conflict. The script finds that contact when it runs (`forceterm list`), so it is right
/// whether the first sync has finished or not, and in the list's own order.
public struct DemoHelp: Sendable {
    public let url: String
    public let username: String
    public let password: String
    public let caFile: String
    public let serverLog: String
    public let localorgPath: String
    public let orgDirectory: String
    /// `forceterm list contacts` with the demo's store (and config), whose first row is the contact changed.
    public let listCommand: [String]
    /// Where the same command is saved as a script (`sh` it from another terminal).
    public let script: String

    /// Every line fits this many columns: an 80-column terminal's help box, less its frame.
    public static let width = 76
    /// Where values start after their label.
    public static let indent = 10
    public static let serverTitle = "Changed on the server"

    public var notes: HelpOverlay.Notes {
        var lines: [String] = []
        lines += Self.labelled("URL", "\(url)  (client id forceterm, no secret)")
        lines += Self.labelled("Sign in", "\(username)  password \(password)")
        lines += Self.labelled("CA file", "\(ShellCommand.typed(caFile))  (curl --cacert)")
        // A continuation after a cut starts at the margin: an indent there would end up in the path.
        lines += ShellCommand.wrapped(
            ["tail", "-f", ShellCommand.typed(serverLog)], width: Self.width,
            lead: "Requests".padding(toLength: Self.indent, withPad: " ", startingAt: 0))
        lines.append("Conflict: edit the first contact here (e), then in another terminal run")
        lines.append("this and press s (without the local edit, s just brings the change):")
        lines += ShellCommand.wrapped(["sh", ShellCommand.typed(script)], width: Self.width)
        return HelpOverlay.Notes(title: "Demo org: reach it from another terminal", lines: lines)
    }

    /// The script behind `sh script`: finds the first contact of the list, then runs the
    /// `localorg edit` command on it (printed as it runs).
    public var scriptText: String {
        let list = listCommand.map(ShellCommand.quoted).joined(separator: " ")
        let edit = editCommand.map { $0 == "$id" ? "\"$id\"" : ShellCommand.quoted($0) }.joined(separator: " ")
        return """
            #!/bin/sh
            # Written by forceterm --demo: changes the Title of the first contact in forceterm's list
            # on the demo org, as another user.
            id=$(\(list) | awk -F '\\t' 'NR > 1 && $1 ~ /^003/ && $2 !~ /deleted/ { print $1; exit }')
            if [ -z "$id" ]; then
                echo "change-on-server.sh: the demo store has no contact yet; wait for forceterm's first sync" >&2
                exit 1
            fi
            set -x
            exec \(edit)

            """
    }

    /// `localorg edit --data DIR Contact "$id" "Title=…"`, as argv (`$id` set by the script).
    public var editCommand: [String] {
        [localorgPath, "edit", "--data", orgDirectory, "Contact", "$id", "Title=\(Self.serverTitle)"]
    }

    /// "Label     value", the value continued on further lines when it is longer than the width,
    /// broken after a space or a `/` where there is one.
    public static func labelled(_ label: String, _ value: String) -> [String] {
        var lines: [String] = []
        var rest = Substring(value)
        repeat {
            let cut = ShellCommand.breakPoint(in: rest, room: width - indent)
            let lead = lines.isEmpty ? label.padding(toLength: indent, withPad: " ", startingAt: 0) : String(repeating: " ", count: indent)
            lines.append(lead + rest.prefix(cut))
            rest = rest.dropFirst(cut)
        } while !rest.isEmpty
        return lines
    }
}

/// A command line for a POSIX shell, quoted and folded so that pasting the lines runs it.
public enum ShellCommand {
    /// `path` as a user types it: from `~` when it lies under the home directory.
    public static func typed(_ path: String, home: String? = ProcessInfo.processInfo.environment["HOME"]) -> String {
        guard let home, !home.isEmpty, home != "/", path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }

    /// One argument as the shell reads it: bare when it has only safe characters, else in double
    /// quotes with `\ " $ `` ` escaped. A leading `~/` stays outside the quotes, where the shell
    /// expands it.
    public static func quoted(_ argument: String) -> String {
        if argument.hasPrefix("~/"), argument.count > 2 { return "~/" + quoted(String(argument.dropFirst(2))) }
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")
        if !argument.isEmpty, argument.allSatisfy(safe.contains) { return argument }
        var text = "\""
        for character in argument {
            if "\\\"$`".contains(character) { text.append("\\") }
            text.append(character)
        }
        return text + "\""
    }

    /// The quoted arguments folded into lines of at most `width` columns, each but the last ending
    /// in ` \`. Breaks go between arguments (continuations indented); an argument longer than a line
    /// starts where it is and is cut with a bare `\`, preferably after a `/`, continuing at the start
    /// of the next line, which the shell joins back without a space (also inside double quotes).
    public static func wrapped(_ arguments: [String], width: Int, lead: String = "") -> [String] {
        let indent = "  "
        var lines: [String] = []
        var line = lead
        var lineHasWords = false
        for word in arguments.map(quoted) {
            let separator = lineHasWords ? " " : ""
            if line.count + separator.count + word.count + 2 <= width {
                line += separator + word
                lineHasWords = true
                continue
            }
            let fitsOnItsOwnLine = indent.count + word.count + 2 <= width
            if fitsOnItsOwnLine || line.count + separator.count + 12 > width {
                if lineHasWords {
                    lines.append(line + " \\")
                    line = indent
                    lineHasWords = false
                }
                if line.count + word.count + 2 <= width {
                    line += word
                    lineHasWords = true
                    continue
                }
            } else {
                // Cut anyway: it starts here rather than leaving this line short.
                line += separator
            }
            var rest = Substring(word)
            while line.count + rest.count + 2 > width {
                var cut = breakPoint(in: rest, room: max(width - line.count - 1, 1))
                // Never between a quoting backslash and the character it escapes.
                if cut > 1, rest.prefix(cut).reversed().prefix(while: { $0 == "\\" }).count % 2 == 1 { cut -= 1 }
                lines.append(line + rest.prefix(cut) + "\\")
                rest = rest.dropFirst(cut)
                line = ""
            }
            line += rest
            lineHasWords = true
        }
        if lineHasWords { lines.append(line) }
        return lines
    }

    /// How many characters of `text` go on a line of `room` columns: all when they fit, else up to
    /// just after the last space or `/` in the second half of the room (a path breaks between its
    /// folders), else exactly `room`.
    public static func breakPoint(in text: Substring, room: Int) -> Int {
        guard text.count > room else { return text.count }
        let candidates = text.prefix(room).enumerated().filter { $0.element == "/" || $0.element == " " }.map { $0.offset + 1 }
        return candidates.last(where: { $0 > room / 2 && $0 < room }) ?? room
    }
}
