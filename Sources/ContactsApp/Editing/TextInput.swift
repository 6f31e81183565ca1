/// A line of typed text and its cursor, for the edit form's fields and the Inspector's prompt:
/// insert at the cursor, delete either side, move by a character or to either end, clear.
public struct TextInput: Sendable, Equatable {
    public private(set) var text: String
    /// The cursor, in characters from the start of `text`.
    public private(set) var cursor: Int

    /// `text` with the cursor at its end.
    public init(_ text: String = "") {
        self.text = text
        self.cursor = text.count
    }

    public mutating func insert(_ character: Character) {
        var characters = Array(text)
        characters.insert(character, at: cursor)
        text = String(characters)
        cursor += 1
    }

    public mutating func deleteBackward() {
        guard cursor > 0 else { return }
        var characters = Array(text)
        characters.remove(at: cursor - 1)
        text = String(characters)
        cursor -= 1
    }

    public mutating func deleteForward() {
        var characters = Array(text)
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
        text = String(characters)
    }

    public mutating func moveCursor(by delta: Int) {
        let target = delta < 0 ? cursor - min(-delta, cursor) : cursor + min(delta, text.count - cursor)
        cursor = target
    }

    public mutating func moveToStart() { cursor = 0 }
    public mutating func moveToEnd() { cursor = text.count }

    /// Empties the line (Ctrl-U in a shell).
    public mutating func clear() {
        text = ""
        cursor = 0
    }
}
