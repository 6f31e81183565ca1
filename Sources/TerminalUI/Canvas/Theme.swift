/// The characters boxes and separators are drawn with: Unicode line drawing, or ASCII for `--ascii`
/// and terminals whose font lacks it.
public struct LineDrawing: Sendable, Equatable {
    public let horizontal: String
    public let vertical: String
    public let topLeft: String
    public let topRight: String
    public let bottomLeft: String
    public let bottomRight: String
    public let ellipsis: Ellipsis
    public let progressFull: String
    public let progressEmpty: String

    public static let unicode = LineDrawing(
        horizontal: "─", vertical: "│", topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘",
        ellipsis: .unicode, progressFull: "█", progressEmpty: "░")
    public static let ascii = LineDrawing(
        horizontal: "-", vertical: "|", topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        ellipsis: .tilde, progressFull: "#", progressEmpty: ".")
}

/// What a piece of the screen is, so colours are chosen in one place and dropped together.
public enum StyleRole: String, Sendable, CaseIterable {
    case normal, title, tabActive, tabInactive, selection, selectionInactive, label, dimmed, hint
    case statusLine, toast, toastError, dialog, fieldFocused, fieldError
    case markerCreated, markerUpdated, markerDeleted, markerError, markerConflict
    /// A value that differs between two versions of a record (a conflict's mine vs the server's).
    case changed
}

/// Colours and line drawing for one run. Monochrome keeps bold, dim and reverse, so selection and
/// markers stay visible without colour.
public struct Theme: Sendable, Equatable {
    public let colors: Bool
    public let lines: LineDrawing
    /// The user's styles for some roles (config.toml's [colors]), over the built-in ones.
    public let overrides: [StyleRole: CellStyle]

    public init(colors: Bool, ascii: Bool, overrides: [StyleRole: CellStyle] = [:]) {
        self.colors = colors
        self.lines = ascii ? .ascii : .unicode
        self.overrides = overrides
    }

    public func style(_ role: StyleRole) -> CellStyle {
        let styled = overrides[role] ?? colorStyle(role)
        return colors ? styled : styled.monochrome
    }

    /// A role by the name config.toml uses: its case name with dashes (`toast-error`).
    public static func role(named name: String) -> StyleRole? {
        StyleRole.allCases.first { configName($0) == name.lowercased() }
    }

    public static func configName(_ role: StyleRole) -> String {
        role.rawValue.reduce(into: "") { name, character in
            if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
        }
    }

    /// A style as config.toml writes it: `"black on yellow bold"`: a colour, `on` and a background
    /// colour, and any of bold, dim, reverse, underline. nil, with the word it did not know.
    public static func style(described text: String) -> Result<CellStyle, StyleDescriptionError> {
        var style = CellStyle()
        var words = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)[...]
        var sawForeground = false
        while let word = words.popFirst() {
            switch word {
            case "bold": style.bold = true
            case "dim": style.dim = true
            case "reverse": style.reverse = true
            case "underline": style.underline = true
            case "on":
                guard let name = words.popFirst(), let color = color(named: name) else {
                    return .failure(StyleDescriptionError(word: words.first ?? "on", text: text))
                }
                style.background = color
            default:
                guard !sawForeground, let color = color(named: word) else { return .failure(StyleDescriptionError(word: word, text: text)) }
                style.foreground = color
                sawForeground = true
            }
        }
        return .success(style)
    }

    static func color(named name: String) -> TerminalColor? {
        name == "default" ? .standard : TerminalColor.allCases.first { "\($0)" == name }
    }

    private func colorStyle(_ role: StyleRole) -> CellStyle {
        switch role {
        case .normal: return .plain
        case .title: return CellStyle(bold: true)
        case .tabActive: return CellStyle(bold: true, reverse: true)
        case .tabInactive: return .plain
        case .selection: return CellStyle(reverse: true)
        case .selectionInactive: return CellStyle(underline: true)
        case .label: return CellStyle(foreground: .cyan, bold: true)
        case .dimmed: return CellStyle(dim: true)
        case .hint: return CellStyle(dim: true)
        case .statusLine: return CellStyle(reverse: true)
        case .toast: return CellStyle(foreground: .black, background: .green, bold: true)
        case .toastError: return CellStyle(foreground: .white, background: .red, bold: true)
        case .dialog: return CellStyle(bold: true)
        case .fieldFocused: return CellStyle(underline: true)
        case .fieldError: return CellStyle(foreground: .red, bold: true)
        case .markerCreated: return CellStyle(foreground: .green, bold: true)
        case .markerUpdated: return CellStyle(foreground: .yellow, bold: true)
        case .markerDeleted: return CellStyle(foreground: .red, dim: true)
        case .markerError: return CellStyle(foreground: .red, bold: true)
        case .markerConflict: return CellStyle(foreground: .magenta, bold: true)
        case .changed: return CellStyle(foreground: .yellow, bold: true)
        }
    }

    /// Whether colours are wanted: not with `--no-color`, and not when NO_COLOR is set to anything
    /// non-empty (no-color.org).
    public static func colorsWanted(noColorFlag: Bool, environment: [String: String]) -> Bool {
        if noColorFlag { return false }
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        return true
    }
}

/// A word config.toml's style did not know, with the style it was in.
public struct StyleDescriptionError: Error, Equatable, CustomStringConvertible {
    public let word: String
    public let text: String
    public var description: String {
        "\"\(text)\": \(word) is not a colour or an attribute; write e.g. \"black on yellow bold\" (colours: default, black, red, green, yellow, blue, magenta, cyan, white; attributes: bold, dim, reverse, underline)"
    }
}
