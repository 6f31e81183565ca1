import ForceJSON
import Foundation

/// Every object localorg serves, loaded from the schema file so adding an object is configuration.
public struct OrgSchema: Sendable {
    public let objects: [ObjectDefinition]
    private let objectIndexByLowercaseName: [String: Int]

    public init(objects: [ObjectDefinition]) throws {
        self.objects = objects
        var index: [String: Int] = [:]
        var prefixes: [String: String] = [:]
        for (position, object) in objects.enumerated() {
            guard index[object.name.lowercased()] == nil else { throw SchemaError(description: "object \(object.name) is defined twice") }
            index[object.name.lowercased()] = position
            if let other = prefixes[object.keyPrefix] {
                throw SchemaError(description: "\(object.name) and \(other) share the key prefix \(object.keyPrefix)")
            }
            prefixes[object.keyPrefix] = object.name
            guard object.keyPrefix.utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }),
                object.keyPrefix != "01g"
            else {
                throw SchemaError(description: "\(object.name) needs a key prefix of three letters or digits other than 01g (query locators)")
            }
            guard object.name.utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95 }) else {
                throw SchemaError(description: "object name \(object.name) may use only letters, digits and underscores")
            }
        }
        objectIndexByLowercaseName = index
        for object in objects {
            for field in object.fields where field.type == .reference {
                guard let target = field.referenceTo, index[target.lowercased()] != nil else {
                    throw SchemaError(description: "\(object.name).\(field.name) refers to an unknown object")
                }
            }
        }
    }

    /// The object named `name`, ignoring case.
    public func object(named name: some StringProtocol) -> ObjectDefinition? {
        objectIndexByLowercaseName[name.lowercased()].map { objects[$0] }
    }

    /// The object whose ids start with `keyPrefix`.
    public func object(keyPrefix: String) -> ObjectDefinition? {
        objects.first { $0.keyPrefix == keyPrefix }
    }

    /// The relationships whose parent is `parent`, e.g. Account's `Contacts`.
    public func childRelationships(of parent: String) -> [ChildRelationship] {
        objects.flatMap { child in
            child.fields.compactMap { field -> ChildRelationship? in
                guard field.type == .reference, field.referenceTo == parent, let name = field.childRelationshipName else { return nil }
                return ChildRelationship(childObject: child.name, field: field.name, relationshipName: name, cascadeDelete: field.cascadeDelete)
            }
        }
    }

    /// The schema compiled into localorg (`BundledSchema.swift`).
    public static func bundled() throws -> OrgSchema {
        try parse(try bundledDocument())
    }

    /// The compiled-in schema's JSON, to extend it or write it out for an org to edit.
    public static func bundledDocument() throws -> JSONValue {
        do { return try JSONParser.parse(Data(bundledJSON.utf8)) } catch { throw SchemaError(description: "the compiled-in schema: \(error)") }
    }

    /// An org's schema file, or the compiled-in one when `url` is nil, plus `additions`.
    public static func load(from url: URL?, additions additionsURL: URL? = nil) throws -> OrgSchema {
        let document = try url.map(readJSON) ?? bundledDocument()
        guard let additionsURL else { return try parse(document) }
        do {
            return try parse(document, additions: try readJSON(additionsURL))
        } catch let error as SchemaError {
            throw SchemaError(description: "\(additionsURL.path): \(error.description)")
        }
    }

    private static func readJSON(_ url: URL) throws -> JSONValue {
        let data = try Data(contentsOf: url)
        do { return try JSONParser.parse(data) } catch { throw SchemaError(description: "\(url.path): \(error)") }
    }

    /// Builds the schema from its JSON form, adding the system fields every object has.
    /// `additions` (an org's `custom-schema.json`) adds custom objects and custom fields.
    public static func parse(_ document: JSONValue, additions: JSONValue? = nil) throws -> OrgSchema {
        guard var objectList = document["objects"]?.arrayValue else { throw SchemaError(description: "schema needs an \"objects\" array") }
        if let additions { try merge(additions, into: &objectList) }
        var objects: [ObjectDefinition] = []
        for objectJSON in objectList {
            guard let name = objectJSON["name"]?.stringValue, let keyPrefix = objectJSON["keyPrefix"]?.stringValue,
                keyPrefix.utf8.count == 3
            else { throw SchemaError(description: "every object needs a name and a 3-character keyPrefix") }
            let hasOwner = objectJSON["hasOwner"]?.boolValue ?? true
            var fields = [systemField("Id", label: "\(name) ID", type: .id)]
            fields.append(systemField("IsDeleted", label: "Deleted", type: .boolean))
            for fieldJSON in objectJSON["fields"]?.arrayValue ?? [] {
                fields.append(try parseField(fieldJSON, objectName: name))
            }
            let recordTypes = try (objectJSON["recordTypes"]?.arrayValue ?? []).map { try parseRecordType($0, objectName: name, fields: fields) }
            if !recordTypes.isEmpty {
                var recordType = FieldDefinition(name: "RecordTypeId", label: "Record Type ID", type: .reference)
                recordType.length = 18
                recordType.referenceTo = "RecordType"
                recordType.relationshipName = "RecordType"
                recordType.defaultedOnCreate = true
                fields.append(recordType)
            }
            if hasOwner {
                var owner = systemField("OwnerId", label: "Owner ID", type: .reference, reference: ("User", "Owner"))
                owner.createable = true
                owner.updateable = true
                owner.defaultedOnCreate = true
                fields.append(owner)
            }
            fields.append(systemField("CreatedDate", label: "Created Date", type: .datetime))
            fields.append(systemField("CreatedById", label: "Created By ID", type: .reference, reference: ("User", "CreatedBy")))
            fields.append(systemField("LastModifiedDate", label: "Last Modified Date", type: .datetime))
            fields.append(systemField("LastModifiedById", label: "Last Modified By ID", type: .reference, reference: ("User", "LastModifiedBy")))
            fields.append(systemField("SystemModstamp", label: "System Modstamp", type: .datetime))
            var seen = Set<String>()
            for field in fields {
                guard field.name.utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95 }) else {
                    throw SchemaError(description: "field name \(name).\(field.name) may use only letters, digits and underscores")
                }
                guard seen.insert(field.name.lowercased()).inserted else { throw SchemaError(description: "\(name).\(field.name) is defined twice") }
            }
            var object = ObjectDefinition(
                name: name,
                label: objectJSON["label"]?.stringValue ?? name,
                labelPlural: objectJSON["labelPlural"]?.stringValue ?? name + "s",
                keyPrefix: keyPrefix,
                hasOwner: hasOwner,
                createable: objectJSON["createable"]?.boolValue ?? true,
                deletable: objectJSON["deletable"]?.boolValue ?? true,
                fields: fields)
            object.recordTypes = recordTypes
            object.validationRules = try (objectJSON["validationRules"]?.arrayValue ?? []).map { try parseValidationRule($0, object: object) }
            object.fieldUpdates = try (objectJSON["fieldUpdates"]?.arrayValue ?? []).map { try FieldUpdate.parse($0, object: object) }
            objects.append(object)
        }
        return try OrgSchema(objects: objects)
    }

    /// Adds `custom-schema.json`'s objects and fields to the base schema's JSON. Custom names end
    /// in `__c`, as Salesforce requires, so an addition can never shadow a standard field.
    private static func merge(_ additions: JSONValue, into objectList: inout [JSONValue]) throws {
        for object in additions["objects"]?.arrayValue ?? [] {
            guard let name = object["name"]?.stringValue, name.hasSuffix("__c") else {
                throw SchemaError(description: "custom object \(object["name"]?.stringValue ?? "(no name)") needs a name ending in __c")
            }
            objectList.append(object)
        }
        for (objectName, fieldList) in additions["fields"]?.objectValue ?? [:] {
            guard let position = objectList.firstIndex(where: { $0["name"]?.stringValue?.lowercased() == objectName.lowercased() }),
                case var .object(object) = objectList[position]
            else {
                throw SchemaError(description: "custom fields are added to \(objectName), which the schema does not have")
            }
            var fields = object["fields"]?.arrayValue ?? []
            for field in fieldList.arrayValue ?? [] {
                guard let fieldName = field["name"]?.stringValue, fieldName.hasSuffix("__c") else {
                    throw SchemaError(description: "custom field \(objectName).\(field["name"]?.stringValue ?? "(no name)") needs a name ending in __c")
                }
                fields.append(field)
            }
            object["fields"] = .array(fields)
            objectList[position] = .object(object)
        }
        // A class exercise's flows: appended to an object's own.
        for (objectName, updates) in additions["fieldUpdates"]?.objectValue ?? [:] {
            guard let position = objectList.firstIndex(where: { $0["name"]?.stringValue?.lowercased() == objectName.lowercased() }),
                case var .object(object) = objectList[position]
            else {
                throw SchemaError(description: "field updates are added to \(objectName), which the schema does not have")
            }
            object["fieldUpdates"] = .array((object["fieldUpdates"]?.arrayValue ?? []) + (updates.arrayValue ?? []))
            objectList[position] = .object(object)
        }
        if let unknown = additions.objectValue?.keys.first(where: { !["objects", "fields", "fieldUpdates", "about"].contains($0) }) {
            throw SchemaError(description: "unknown key \"\(unknown)\"; custom-schema.json holds \"objects\", \"fields\" and \"fieldUpdates\"")
        }
    }

    private static func parseRecordType(_ json: JSONValue, objectName: String, fields: [FieldDefinition]) throws -> RecordTypeDefinition {
        guard let developerName = json["developerName"]?.stringValue, !developerName.isEmpty, developerName != "Master" else {
            throw SchemaError(description: "every record type of \(objectName) needs a developerName other than Master")
        }
        var picklists: [String: [String]] = [:]
        for (fieldName, values) in json["picklistValues"]?.objectValue ?? [:] {
            guard let field = fields.first(where: { $0.name == fieldName }), field.type.isPicklist else {
                throw SchemaError(description: "record type \(objectName).\(developerName) names \(fieldName), which is no picklist of \(objectName)")
            }
            let list = values.arrayValue?.compactMap(\.stringValue) ?? []
            if let stray = list.first(where: { !field.picklistValues.contains($0) }) {
                throw SchemaError(description: "record type \(objectName).\(developerName) offers \(stray), which \(objectName).\(fieldName) does not have")
            }
            picklists[fieldName] = list
        }
        let number = Int64(stableHash("\(objectName).\(developerName)") % 1_000_000_000) + 1
        return RecordTypeDefinition(
            id: SalesforceId.make(keyPrefix: "012", number: number), developerName: developerName,
            label: json["label"]?.stringValue ?? developerName,
            isDefault: json["default"]?.boolValue ?? false, picklistValues: picklists)
    }

    private static func parseValidationRule(_ json: JSONValue, object: ObjectDefinition) throws -> ValidationRule {
        guard let name = json["name"]?.stringValue, let message = json["errorMessage"]?.stringValue else {
            throw SchemaError(description: "every validation rule of \(object.name) needs a name and an errorMessage")
        }
        let conditions = (json["when"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { key, value in
            ValidationRule.Condition(field: key, value: value.stringValue ?? JSONWriter.string(value))
        }
        let requires = json["requires"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let errorField = json["errorField"]?.stringValue
        for fieldName in conditions.map(\.field).filter({ $0 != "RecordType" }) + requires + [errorField].compactMap({ $0 })
        where object.field(named: fieldName) == nil {
            throw SchemaError(description: "validation rule \(object.name).\(name) names \(fieldName), which \(object.name) does not have")
        }
        return ValidationRule(name: name, errorMessage: message, errorField: errorField, conditions: conditions, requires: requires)
    }

    private static func systemField(_ name: String, label: String, type: FieldType, reference: (String, String)? = nil) -> FieldDefinition {
        var field = FieldDefinition(name: name, label: label, type: type)
        field.isSystem = true
        field.createable = false
        field.updateable = false
        field.nillable = false
        field.defaultedOnCreate = true
        field.length = type == .id || type == .reference ? 18 : 0
        field.idLookup = type == .id
        field.referenceTo = reference?.0
        field.relationshipName = reference?.1
        return field
    }

    private static func parseField(_ json: JSONValue, objectName: String) throws -> FieldDefinition {
        guard let name = json["name"]?.stringValue, let typeName = json["type"]?.stringValue else {
            throw SchemaError(description: "every field of \(objectName) needs a name and a type")
        }
        guard let type = FieldType(rawValue: typeName), type != .id else {
            throw SchemaError(description: "\(objectName).\(name) has an unsupported type \(typeName)")
        }
        var field = FieldDefinition(name: name, label: json["label"]?.stringValue ?? name, type: type)
        field.length = Int(json["length"]?.int64Value ?? (type == .reference ? 18 : 0))
        field.digits = Int(json["digits"]?.int64Value ?? 0)
        field.precision = Int(json["precision"]?.int64Value ?? 0)
        field.scale = Int(json["scale"]?.int64Value ?? 0)
        field.nillable = json["nillable"]?.boolValue ?? true
        field.createable = json["createable"]?.boolValue ?? true
        field.updateable = json["updateable"]?.boolValue ?? true
        field.externalId = json["externalId"]?.boolValue ?? false
        field.unique = json["unique"]?.boolValue ?? false
        field.idLookup = json["idLookup"]?.boolValue ?? field.externalId
        field.nameField = json["nameField"]?.boolValue ?? false
        field.custom = json["custom"]?.boolValue ?? name.hasSuffix("__c")
        field.picklistValues = json["picklistValues"]?.arrayValue?.compactMap(\.stringValue) ?? []
        field.restrictedPicklist = json["restrictedPicklist"]?.boolValue ?? false
        switch json["editableBy"]?.stringValue {
        case nil, "everyone": break
        case "admins": field.editableByAdminsOnly = true
        case let other?: throw SchemaError(description: "\(objectName).\(name): editableBy is \"everyone\" or \"admins\", not \"\(other)\"")
        }
        field.referenceTo = json["referenceTo"]?.stringValue
        field.relationshipName = json["relationshipName"]?.stringValue
        field.childRelationshipName = json["childRelationshipName"]?.stringValue
        field.cascadeDelete = json["cascadeDelete"]?.boolValue ?? false
        field.concatenationOf = json["concatenationOf"]?.arrayValue?.compactMap(\.stringValue) ?? []
        field.defaultValue = json["defaultValue"]
        // Booleans always have a value (false unless the schema says otherwise), as in Salesforce.
        if type == .boolean {
            field.nillable = false
            field.defaultedOnCreate = true
        }
        if type == .reference && (field.referenceTo == nil || field.relationshipName == nil) {
            throw SchemaError(description: "\(objectName).\(name) needs referenceTo and relationshipName")
        }
        return field
    }
}

/// FNV-1a: the same for the same text in every run (Swift's `hashValue` is not).
func stableHash(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return hash
}
