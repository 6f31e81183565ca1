import ForceJSON
import Foundation

/// The soups a store should have, in the Mobile SDK's `userstore.json` format:
/// `{"soups": [{"soupName": "contacts", "indexes": [{"path": "Id", "type": "string"}]}]}`.
public struct StoreConfig: Sendable, Equatable {
    public struct Soup: Sendable, Equatable {
        public var name: String
        public var indexSpecs: [IndexSpec]

        public init(name: String, indexSpecs: [IndexSpec]) {
            self.name = name
            self.indexSpecs = indexSpecs
        }
    }

    public var soups: [Soup]

    public init(soups: [Soup]) { self.soups = soups }

    public init(json text: String) throws {
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw SmartStoreError.invalidConfig("\(error)")
        }
        guard let soups = root["soups"]?.arrayValue else {
            throw SmartStoreError.invalidConfig("expected {\"soups\": [...]} at the top level")
        }
        self.soups = try soups.map { soup in
            guard let name = soup["soupName"]?.stringValue else {
                throw SmartStoreError.invalidConfig("every soup needs a \"soupName\": \(soup)")
            }
            guard let indexes = soup["indexes"]?.arrayValue else {
                throw SmartStoreError.invalidConfig("soup \"\(name)\" needs an \"indexes\" array")
            }
            let specs = try indexes.map { try IndexSpec(json: $0) }
            try SoupSchema.validateSoupName(name)
            try SoupSchema.validate(specs, soup: name)
            return Soup(name: name, indexSpecs: specs)
        }
    }

    /// Reads a config file; errors name the file.
    public init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw SmartStoreError.invalidConfig("cannot read \(url.path): \(error.localizedDescription)")
        }
        do {
            try self.init(json: text)
        } catch let SmartStoreError.invalidConfig(message) {
            throw SmartStoreError.invalidConfig("\(url.path): \(message)")
        } catch let error as SmartStoreError {
            throw SmartStoreError.invalidConfig("\(url.path): \(error)")
        }
    }
}

/// What `setup(from:)` did to one soup.
public enum StoreConfigChange: Sendable, Equatable {
    case registered(soup: String)
    case indexesAdded(soup: String, specs: [IndexSpec])
}

extension SmartStore {
    /// Brings the store in line with a config: registers missing soups and, beyond the SDK, adds to an
    /// existing soup the indexes the config has gained (re-indexing its entries). Existing indexes
    /// are never removed; a path whose type changed takes the config's type. Idempotent.
    @discardableResult
    public func setup(from config: StoreConfig) throws -> [StoreConfigChange] {
        var changes: [StoreConfigChange] = []
        for soup in config.soups {
            if try registerSoup(soup.name, indexSpecs: soup.indexSpecs) {
                changes.append(.registered(soup: soup.name))
                continue
            }
            let existing = try indexSpecs(soup: soup.name)
            let added = soup.indexSpecs.filter { wanted in !existing.contains { $0.sameDefinition(as: wanted) } }
            guard !added.isEmpty else { continue }
            let retyped = Set(added.map(\.path))
            let merged = existing.filter { !retyped.contains($0.path) }.map { IndexSpec(path: $0.path, type: $0.type) } + added
            try alterSoup(soup.name, indexSpecs: merged, reIndexData: true)
            changes.append(.indexesAdded(soup: soup.name, specs: added))
        }
        return changes
    }
}
