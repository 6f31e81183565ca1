/// A token or password. It prints, dumps and reflects as `<redacted>`, so string interpolation,
/// `dump`, logs and error messages can never show it; `revealed` is for the one place that sends it.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let revealed: String

    public init(_ value: String) { revealed = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
