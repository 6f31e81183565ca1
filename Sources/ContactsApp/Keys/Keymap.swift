/// One row of a keymap: the keys, what they do, in which context, and the help text. The same rows
/// drive key dispatch and the `?` help screen, so the two can never disagree (tig's habit).
public struct KeyBinding<Action: Sendable & Hashable, Context: Sendable & Hashable>: Sendable {
    public let keys: [Key]
    public let action: Action
    public let contexts: Set<Context>
    public let help: String

    public init(_ keys: [Key], _ action: Action, in contexts: Set<Context>, help: String) {
        self.keys = keys
        self.action = action
        self.contexts = contexts
        self.help = help
    }
}

/// A keymap as data: an ordered table of bindings, looked up by context and key.
public struct Keymap<Action: Sendable & Hashable, Context: Sendable & Hashable>: Sendable {
    public let bindings: [KeyBinding<Action, Context>]
    private let lookup: [Context: [Key: Action]]

    /// Builds the lookup table; a key bound twice in one context keeps its first binding, so the
    /// table reads top to bottom like the help screen.
    public init(_ bindings: [KeyBinding<Action, Context>]) {
        self.bindings = bindings
        var lookup: [Context: [Key: Action]] = [:]
        for binding in bindings {
            for context in binding.contexts {
                for key in binding.keys where lookup[context, default: [:]][key] == nil {
                    lookup[context, default: [:]][key] = binding.action
                }
            }
        }
        self.lookup = lookup
    }

    /// The action `key` triggers in `context`, if any.
    public func action(for key: Key, in context: Context) -> Action? {
        lookup[context]?[key]
    }

    /// The keys that trigger `action` in `context`, in table order (for messages that name a key).
    public func keys(for action: Action, in context: Context) -> [Key] {
        bindings.filter { $0.action == action && $0.contexts.contains(context) }.flatMap(\.keys)
    }

    /// Keys bound twice in the same context, for a test that keeps the table honest.
    public var conflicts: [(Context, Key)] {
        var seen: [Context: Set<Key>] = [:]
        var duplicates: [(Context, Key)] = []
        for binding in bindings {
            for context in binding.contexts {
                for key in binding.keys {
                    if seen[context, default: []].contains(key) { duplicates.append((context, key)) }
                    seen[context, default: []].insert(key)
                }
            }
        }
        return duplicates
    }

    /// Help lines for the bindings of `context`, in table order: keys joined by " ", then the text.
    public func helpLines(for context: Context, ascii: Bool = false) -> [(keys: String, help: String)] {
        bindings.filter { $0.contexts.contains(context) }.map { binding in
            (binding.keys.map { ascii ? $0.asciiLabel : $0.label }.joined(separator: " "), binding.help)
        }
    }
}
