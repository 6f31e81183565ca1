import TerminalUI

/// The `?` screen's block in `forceterm --demo`: how to reach the demo org from another terminal
/// (URL, user, CA file, request log) and a ready-to-paste `localorg edit` that changes a contact
/// on the server, so a trainer can show a server-side change or, after a local edit, a conflict.
struct DemoHelp: Sendable {
    let url: String
    let username: String
    let password: String
    let caFile: String
    let serverLog: String
    let localorgPath: String
    let orgDirectory: String
    /// The contact the `localorg edit` command changes: the first synced one in the list.
    let contact: (id: String, name: String)?

    /// Every line fits this many columns: an 80-column terminal's help box, less its frame.
    static let width = 76
    static let serverTitle = "Changed on the server"

    var notes: HelpOverlay.Notes {
        var lines: [String] = []
        lines += Self.labelled("URL", "\(url)  (client id forceterm, no secret)")
        lines += Self.labelled("Sign in", "\(username)  password \(password)")
        lines += Self.labelled("CA file", "\(caFile)  (curl --cacert)")
        lines += Self.labelled("Requests", "tail -f \(serverLog)")
        if let contact {
            lines.append("Conflict: edit \(contact.name) here (e), then in another terminal run".truncated(toWidth: Self.width))
            lines.append("this and press s (without the local edit, s just brings the change):")
        } else {
            lines.append("Change a contact on the server (its Id is in its detail), then press s:")
        }
        lines += ShellCommand.wrapped(editCommand, width: Self.width)
        return HelpOverlay.Notes(title: "Demo org: reach it from another terminal", lines: lines)
    }

    /// `localorg edit --data DIR Contact ID "Title=…"`, as argv.
    var editCommand: [String] {
        [localorgPath, "edit", "--data", orgDirectory, "Contact", contact?.id ?? "<Id>", "Title=\(Self.serverTitle)"]
    }

    /// "Label     value", the value continued on further lines when it is longer than the width.
    static func labelled(_ label: String, _ value: String) -> [String] {
        let indent = 10
        let room = width - indent
        var lines: [String] = []
        var rest = Substring(value)
        repeat {
            let piece = rest.prefix(room)
            rest = rest.dropFirst(piece.count)
            let lead = lines.isEmpty ? label.padding(toLength: indent, withPad: " ", startingAt: 0) : String(repeating: " ", count: indent)
            lines.append(lead + piece)
        } while !rest.isEmpty
        return lines
    }
}

/// A command line for a POSIX shell, quoted and folded so that pasting the lines runs it.
enum ShellCommand {
    /// One argument as the shell reads it: bare when it has only safe characters, else in double
    /// quotes with `\ " $ `` ` escaped.
    static func quoted(_ argument: String) -> String {
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
    /// is cut with a bare `\` and continues at the start of the next line, which the shell joins
    /// back without a space (also inside double quotes).
    static func wrapped(_ arguments: [String], width: Int) -> [String] {
        let indent = "  "
        var lines: [String] = []
        var line = ""
        for word in arguments.map(quoted) {
            let separator = line.isEmpty || line == indent ? "" : " "
            if line.count + separator.count + word.count + 2 <= width {
                line += separator + word
                continue
            }
            if !line.isEmpty && line != indent {
                lines.append(line + " \\")
                line = indent
            }
            if line.count + word.count + 2 <= width {
                line += word
                continue
            }
            var rest = Substring(word)
            while line.count + rest.count + 2 > width {
                let room = max(width - line.count - 1, 1)
                lines.append(line + rest.prefix(room) + "\\")
                rest = rest.dropFirst(room)
                line = ""
            }
            line += rest
        }
        if !line.isEmpty && line != indent { lines.append(line) }
        return lines
    }
}
