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
public enum StyleRole: Sendable, CaseIterable {
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

    public init(colors: Bool, ascii: Bool) {
        self.colors = colors
        self.lines = ascii ? .ascii : .unicode
    }

    public func style(_ role: StyleRole) -> CellStyle {
        let styled = colorStyle(role)
        return colors ? styled : styled.monochrome
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
