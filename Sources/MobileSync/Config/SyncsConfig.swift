import ForceJSON
import Foundation
import SmartStore

/// Named syncs in the Mobile SDK's `usersyncs.json` format:
/// `{"syncs": [{"syncName", "syncType", "soupName", "target", "options"}]}`.
public struct SyncsConfig: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var target: SyncTarget
        public var options: SyncOptions
        public var soupName: String

        public init(name: String, target: SyncTarget, options: SyncOptions, soupName: String) {
            self.name = name
            self.target = target
            self.options = options
            self.soupName = soupName
        }

        public var type: SyncType { target.type }

        /// A sync down of an object's description (metadata, layout): its documents are not records.
        public var describesAnObject: Bool {
            if case let .down(target) = target { return target.kind.describesAnObject }
            return false
        }
    }

    /// A named sync whose target forceterm does not implement yet: left out of `entries`, so
    /// the file's other syncs still run; `forceterm sync` reports each as failed.
    public struct Unsupported: Sendable, Equatable {
        public var name: String
        public var type: SyncType
        public var reason: String
    }

    public var entries: [Entry]
    public var unsupported: [Unsupported] = []
    /// Keys that look like a misspelling of one the SDK reads (`createFieldList` for
    /// `createFieldlist`): ignored, as the SDK ignores them, so the sync runs without what they
    /// meant; said, because nothing else would show it. One line each.
    public var notes: [String] = []

    public init(entries: [Entry]) { self.entries = entries }

    public init(json text: String) throws(MobileSyncError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw .invalidConfig("\(error)")
        }
        guard let syncs = root["syncs"]?.arrayValue else { throw .invalidConfig("expected {\"syncs\": [...]} at the top level") }
        // Every problem of the file at once: fixing one to meet the next costs a run each.
        var entries: [Entry] = []
        var unsupported: [Unsupported] = []
        var problems: [String] = []
        var notes: [String] = []
        for (index, sync) in syncs.enumerated() {
            guard let name = sync["syncName"]?.stringValue, !name.isEmpty else {
                problems.append("sync #\(index + 1) needs a \"syncName\"")
                continue
            }
            guard let typeName = sync["syncType"]?.stringValue, let type = SyncType(rawValue: typeName) else {
                problems.append("sync \"\(name)\" needs \"syncType\": \"syncDown\" or \"syncUp\"")
                continue
            }
            notes += MisspelledKeys.notes(in: sync, sync: name)
            guard !entries.contains(where: { $0.name == name }) else {
                problems.append("the sync name \"\(name)\" appears twice; names must be unique")
                continue
            }
            do {
                entries.append(
                    Entry(
                        name: name, target: try SyncTarget(type: type, json: sync["target"]),
                        options: try SyncOptions(json: sync["options"]),
                        soupName: try JSONFields.requiredString(sync["soupName"], key: "soupName", in: "sync \"\(name)\"")))
            } catch let MobileSyncError.unsupportedTarget(reason) {
                unsupported.append(Unsupported(name: name, type: type, reason: "not supported by forceterm yet: \(reason)"))
            } catch let MobileSyncError.invalidConfig(message) {
                problems.append("sync \"\(name)\": \(message)")  // the file's error says "invalid syncs config" once
            } catch {
                problems.append("sync \"\(name)\": \(error)")
            }
        }
        guard problems.isEmpty else {
            throw .invalidConfig(problems.count == 1 ? problems[0] : "\(problems.count) problems:\n  - " + problems.joined(separator: "\n  - "))
        }
        self.entries = entries
        self.unsupported = unsupported
        self.notes = notes
    }

    /// Reads a config file; errors name the file.
    public init(contentsOf url: URL) throws(MobileSyncError) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .invalidConfig("cannot read \(url.path): \(error.localizedDescription)")
        }
        do {
            try self.init(json: text)
        } catch let MobileSyncError.invalidConfig(message) {
            throw .invalidConfig("\(url.path): \(message)")
        }
    }
}

extension SyncsConfig {
    /// The syncs that would write to (or send from) a soup not in `soups`, one line each, so a
    /// config is refused when it is loaded rather than after a round trip to the org.
    public func soupProblems(soups: Set<String>) -> [String] {
        entries.flatMap { entry -> [String] in
            let used: [String] =
                switch entry.target {
                case let .down(target): target.filledSoups(soupName: entry.soupName).map(\.soupName)
                case let .up(target): [entry.soupName] + (target.parentChildren.map { [$0.children.soupName] } ?? [])
                }
            return used.filter { !soups.contains($0) }.map { soup in
                "sync \"\(entry.name)\" uses the soup \"\(soup)\", which userstore.json does not define; add it there or change the sync's soupName"
            }
        }
    }
}

/// What applying a config did to one named sync.
public enum SyncsConfigChange: Sendable, Equatable {
    case created(name: String)
    /// The definition changed; `restarted` when the target changed, so the high-water mark was
    /// reset. `differences` says what changed, one phrase per key (`mergeMode LEAVE_IF_CHANGED →
    /// OVERWRITE`, `target query`).
    case updated(name: String, restarted: Bool, differences: [String])
    case unchanged(name: String)

    /// One line for a person, or nil when nothing changed that they need to hear about.
    public var notice: String? {
        guard case let .updated(name, restarted, differences) = self else { return nil }
        let what = differences.joined(separator: "; ")
        return restarted
            ? "sync \(name) changed in usersyncs.json (\(what)): it starts over and fetches every record again"
            : "sync \(name) changed in usersyncs.json (\(what)): it keeps its place"
    }

    /// The keys whose values differ between two definitions' JSON, with short values shown.
    static func differences(_ label: String, _ old: JSONValue, _ new: JSONValue) -> [String] {
        guard old != new else { return [] }
        guard let oldObject = old.objectValue, let newObject = new.objectValue else { return [label] }
        return Set(oldObject.keys).union(newObject.keys).sorted().compactMap { key in
            let before = oldObject[key] ?? .null
            let after = newObject[key] ?? .null
            guard before != after else { return nil }
            let name = label.isEmpty ? key : "\(label) \(key)"
            let shown = [before, after].map { value -> String? in
                switch value {
                case .null: "none"
                case let .string(text) where text.count <= 24: text
                case .bool, .int: JSONWriter.string(value)
                default: nil
                }
            }
            guard let from = shown[0], let to = shown[1] else { return name }
            return "\(name) \(from) → \(to)"
        }
    }
}

extension SyncsSoup {
    /// Brings the named syncs in line with a config. Beyond the SDK (which only creates missing
    /// names), an existing sync whose definition changed takes the new one: a changed target
    /// (query, fields, type) starts over from scratch, changed options keep the high-water mark.
    /// Syncs that are not in the file are left alone. A subscription is never replaced by a config
    /// sync of its name: the file is refused with the name, and the store is left as it was. Idempotent.
    @discardableResult
    public func apply(_ config: SyncsConfig) throws -> [SyncsConfigChange] {
        try store.write { transaction in
            var changes: [SyncsConfigChange] = []
            for entry in config.entries {
                guard let id = try lookupId(name: entry.name, in: transaction),
                    var existing = try state(id: id, in: transaction)
                else {
                    _ = try create(
                        SyncState(name: entry.name, target: entry.target, options: entry.options, soupName: entry.soupName),
                        in: transaction)
                    changes.append(.created(name: entry.name))
                    continue
                }
                guard existing.subscription == nil else {
                    throw MobileSyncError.invalidConfig(
                        "usersyncs.json names the sync \(entry.name), which is a subscription (forceterm subscribe): "
                            + "remove it with forceterm unsubscribe \(entry.name), or give the config's sync another name")
                }
                let targetChanged = existing.target != entry.target || existing.soupName != entry.soupName
                guard targetChanged || existing.options != entry.options else {
                    changes.append(.unchanged(name: entry.name))
                    continue
                }
                let differences =
                    SyncsConfigChange.differences("soupName", .string(existing.soupName), .string(entry.soupName))
                    + SyncsConfigChange.differences("target", existing.target.json, entry.target.json)
                    + SyncsConfigChange.differences("", existing.options.json, entry.options.json)
                existing.target = entry.target
                existing.options = entry.options
                existing.soupName = entry.soupName
                if targetChanged {
                    existing.maxTimeStamp = -1
                    existing.totalSize = -1
                    existing.progress = 0
                }
                try save(existing, in: transaction)
                changes.append(.updated(name: entry.name, restarted: targetChanged, differences: differences))
            }
            return changes
        }
    }
}
