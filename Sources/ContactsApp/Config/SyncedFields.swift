import ForceJSON

/// Which fields of each soup the user edits: the `createFieldlist` of the soup's sync-up in
/// `usersyncs.json` (the Mobile SDK's format). Reading only this much keeps the form in step with
/// what sync up will send; MobileSync owns the rest of the file.
public struct SyncedFields: Sendable, Equatable {
    public let fieldsBySoup: [String: [String]]

    public init(fieldsBySoup: [String: [String]]) {
        self.fieldsBySoup = fieldsBySoup
    }

    /// Parses `usersyncs.json` text. Throws a one-line reason when the file is not in the SDK's shape.
    public init(usersyncsJSON text: String) throws {
        let root: JSONObject
        do {
            root = try JSONParser.parseObject(text)
        } catch {
            throw ConfigError("usersyncs.json is not valid JSON (\(error))")
        }
        guard let syncs = root["syncs"]?.arrayValue else { throw ConfigError("usersyncs.json has no \"syncs\" array") }
        var fields: [String: [String]] = [:]
        for sync in syncs {
            guard let object = sync.objectValue, object["syncType"]?.stringValue == "syncUp",
                let soup = object["soupName"]?.stringValue
            else { continue }
            let target = object["target"]?.objectValue
            let options = object["options"]?.objectValue
            let list = target?["createFieldlist"]?.arrayValue ?? options?["fieldlist"]?.arrayValue ?? []
            fields[soup] = list.compactMap(\.stringValue).filter { $0 != "Id" }
        }
        fieldsBySoup = fields
    }

    public func fields(forSoup soup: String) -> [String] { fieldsBySoup[soup] ?? [] }
}

/// A configuration file that cannot be used, with the reason in one line.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
