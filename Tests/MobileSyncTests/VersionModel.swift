import ForceJSON
import Synchronization

/// The oracle of the interleaved sync property: for each record (by its LastName) and field, every
/// value either side wrote, on top of which value it was written (its parent), and which writes a
/// conflict resolution discarded. Values are unique per record and field, so the value a writer
/// saw identifies the write it replaced. A record's deletion is a write of a `DEL…` value to each
/// of its fields, so a delete and a concurrent change of any field are two heads of that field.
///
/// After everything has been reconciled, each field has exactly one head — an alive write with no
/// alive write after it — and that is the value both the store and the server must hold (or the
/// record must be gone, when the head is a deletion). Two heads left means concurrent writes the
/// engine never reconciled: an edit lost, or a conflict never raised.
final class VersionModel: Sendable {
    enum Side: String, Sendable { case local, server }

    struct Write: Sendable, CustomStringConvertible {
        var value: JSONValue
        var side: Side
        var parent: JSONValue?
        var dead = false
        var description: String { "\(side == .local ? "L" : "S"):\(FieldText.of(value))\(dead ? "†" : "")" }
    }

    static let fields = ["FirstName", "Title", "Department"]

    private let state = Mutex<[String: [String: [Write]]]>([:])
    private let counter = Mutex(0)

    /// A fresh value no one has written before.
    func newValue(_ prefix: String) -> JSONValue {
        .string(
            prefix
                + String(
                    counter.withLock {
                        $0 += 1
                        return $0
                    }))
    }

    static func isDeletion(_ value: JSONValue?) -> Bool { value?.stringValue?.hasPrefix("DEL") ?? false }

    /// A value a writer put into a field, on top of `parent` (nil: the record is new).
    func wrote(_ name: String, _ field: String, _ value: JSONValue, by side: Side, over parent: JSONValue?) {
        state.withLock { records in
            records[name, default: [:]][field, default: []].append(Write(value: value, side: side, parent: parent))
        }
    }

    /// A new record's values.
    func created(_ name: String, values: JSONObject, by side: Side) {
        for field in Self.fields { wrote(name, field, values[field] ?? .null, by: side, over: nil) }
    }

    /// The record deleted by `side`, which saw `values`; returns the deletion's value.
    @discardableResult
    func deleted(_ name: String, by side: Side, saw values: JSONObject) -> JSONValue {
        let deletion = newValue("DEL")
        for field in Self.fields { wrote(name, field, deletion, by: side, over: values[field] ?? .null) }
        return deletion
    }

    func isKnown(_ name: String) -> Bool { state.withLock { $0[name] != nil } }
    var names: [String] { state.withLock { $0.keys.sorted() } }

    /// Whether `value` was written into this field by anyone.
    func knows(_ name: String, _ field: String, _ value: JSONValue) -> Bool {
        state.withLock { $0[name]?[field]?.contains { FieldText.same($0.value, value) } ?? false }
    }

    /// `ancestor` is `value` or one of the values it was written on top of.
    func isAncestorOrSelf(_ ancestor: JSONValue, of value: JSONValue, _ name: String, _ field: String) -> Bool {
        state.withLock { records in Self.chain(of: value, in: records[name]?[field] ?? []).contains { FieldText.same($0, ancestor) } }
    }

    /// Neither write is an ancestor of the other: they were made without knowing of each other.
    func areConcurrent(_ a: JSONValue, _ b: JSONValue, _ name: String, _ field: String) -> Bool {
        !isAncestorOrSelf(a, of: b, name, field) && !isAncestorOrSelf(b, of: a, name, field)
    }

    /// A resolution in favour of `winner` over `loser`: every alive write behind `loser` (itself
    /// included) that is not behind `winner` is discarded.
    func discard(_ loser: JSONValue, inFavourOf winner: JSONValue?, _ name: String, _ field: String) {
        state.withLock { records in
            guard var writes = records[name]?[field] else { return }
            let keep = winner.map { Self.chain(of: $0, in: writes) } ?? []
            for value in Self.chain(of: loser, in: writes) where !keep.contains(where: { FieldText.same($0, value) }) {
                for index in writes.indices where FieldText.same(writes[index].value, value) { writes[index].dead = true }
            }
            records[name]?[field] = writes
        }
    }

    /// This one write is discarded, and nothing behind it (a local delete undone before it synced).
    func discardOnly(_ value: JSONValue, _ name: String, _ field: String) {
        state.withLock { records in
            guard var writes = records[name]?[field] else { return }
            for index in writes.indices where FieldText.same(writes[index].value, value) { writes[index].dead = true }
            records[name]?[field] = writes
        }
    }

    /// Every write of the record is discarded (a record created here and then reverted).
    func discardAll(_ name: String) {
        state.withLock { records in
            for field in Self.fields {
                guard var writes = records[name]?[field] else { continue }
                for index in writes.indices { writes[index].dead = true }
                records[name]?[field] = writes
            }
        }
    }

    /// The alive writes nothing alive has been written on top of.
    func heads(_ name: String, _ field: String) -> [Write] {
        state.withLock { records in
            let writes = records[name]?[field] ?? []
            return writes.filter { write in
                !write.dead
                    && !writes.contains { other in
                        !other.dead && !FieldText.same(other.value, write.value)
                            && Self.chain(of: other.value, in: writes).contains { FieldText.same($0, write.value) }
                    }
            }
        }
    }

    func history(_ name: String) -> String {
        state.withLock { records in
            Self.fields.map { field in "\(field): " + (records[name]?[field] ?? []).map { "\($0)←\(FieldText.of($0.parent))" }.joined(separator: " ") }
                .joined(separator: "; ")
        }
    }

    /// `value` and the values it was written on top of, newest first.
    private static func chain(of value: JSONValue, in writes: [Write]) -> [JSONValue] {
        var chain: [JSONValue] = []
        var next: JSONValue? = value
        while let current = next, !chain.contains(where: { FieldText.same($0, current) }) {
            chain.append(current)
            next = writes.first { FieldText.same($0.value, current) }?.parent ?? nil
        }
        return chain
    }
}

/// Field values as the oracle compares and prints them (a missing field is null).
enum FieldText {
    static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        switch (a ?? .null, b ?? .null) {
        case (.null, .null): true
        case let (x, y): x == y
        }
    }

    static func of(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "∅"
        case let .string(text)?: text
        case let value?: "\(value)"
        }
    }
}
