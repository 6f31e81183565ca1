import ForceJSON
import Foundation

/// The User Interface API's record layout, `GET ui-api/layout/{objectApiName}`, which the Mobile
/// SDK's layout sync down (LayoutSyncManager) reads. Contact and Account have page layouts shaped
/// like a new org's defaults; any other object gets one section of its fields. Compact layouts
/// hold the name and a few key fields. Only the org's own fields appear, with their labels.
extension LocalOrgAPI {
    struct LayoutSection {
        var heading: String
        var fields: [String]
    }

    /// Full page layouts: sections of fields, in order.
    static let pageLayouts: [String: [LayoutSection]] = [
        "Contact": [
            LayoutSection(
                heading: "Contact Information",
                fields: [
                    "FirstName", "LastName", "AccountId", "Title", "Department", "Email", "Phone", "MobilePhone", "HomePhone",
                    "OwnerId",
                ]),
            LayoutSection(
                heading: "Address Information",
                fields: ["MailingStreet", "MailingCity", "MailingState", "MailingPostalCode", "MailingCountry"]),
            LayoutSection(heading: "System Information", fields: ["CreatedById", "LastModifiedById"]),
        ],
        "Account": [
            LayoutSection(heading: "Account Information", fields: ["Name", "Industry", "Phone", "Website", "NumberOfEmployees", "OwnerId"]),
            LayoutSection(
                heading: "Address Information",
                fields: ["BillingStreet", "BillingCity", "BillingState", "BillingPostalCode", "BillingCountry"]),
            LayoutSection(heading: "System Information", fields: ["CreatedById", "LastModifiedById"]),
        ],
    ]

    /// Compact layouts: the fields a record's highlights show.
    static let compactLayouts: [String: [String]] = [
        "Contact": ["Name", "Title", "AccountId", "Phone", "Email"],
        "Account": ["Name", "Phone", "Website", "Industry", "BillingCity"],
    ]

    func routeUIAPI(_ context: DataContext, rest: [String]) throws -> APIResponse {
        if rest.count >= 4, rest[0] == "object-info", rest[2] == "picklist-values" {
            return try picklistValues(context, objectName: rest[1], recordTypeId: rest[3], fieldName: rest.count == 5 ? rest[4] : nil)
        }
        guard rest.count == 2, rest[0] == "layout" else { return .error(.resourceNotFound) }
        try requireMethod(context.method, "GET")
        guard let object = schema.object(named: rest[1]) else {
            throw APIError(status: 400, errorCode: "INVALID_TYPE", message: "Object \(rest[1]) is not supported in UI API")
        }
        let query = context.request.queryItems
        let layoutType = try Self.choice(query["layoutType"], parameter: "layoutType", of: ["Full", "Compact"])
        let mode = try Self.choice(query["mode"], parameter: "mode", of: ["View", "Edit", "Create"])
        _ = try Self.choice(query["formFactor"], parameter: "formFactor", of: ["Large", "Medium", "Small"])
        let recordTypeId = query["recordTypeId"].flatMap(SalesforceId.canonical) ?? object.defaultRecordType.id
        guard object.recordType(id: recordTypeId) != nil else {
            throw APIError(status: 400, errorCode: "ILLEGAL_QUERY_PARAMETER_VALUE", message: "Invalid record type id: \(query["recordTypeId"] ?? "")")
        }
        let sections: [LayoutSection] =
            layoutType == "Compact"
            ? [LayoutSection(heading: "", fields: Self.compactLayouts[object.name] ?? [object.nameFieldName].compactMap { $0 })]
            : Self.pageLayouts[object.name]
                ?? [LayoutSection(heading: "Information", fields: object.fields.filter { !$0.isSystem && $0.name != "Id" }.map(\.name))]
        var body: JSONObject = [
            "id": .string(SalesforceId.make(keyPrefix: "00h", number: Int64(stableHash(object.name) % 1000) + (layoutType == "Compact" ? 1000 : 0))),
            "layoutType": .string(layoutType), "mode": .string(mode), "objectApiName": .string(object.name),
            "recordTypeId": .string(recordTypeId), "saveOptions": [],
        ]
        body["sections"] = .array(
            sections.enumerated().compactMap { index, section in
                layoutSection(section, index: index, object: object, mode: mode, compact: layoutType == "Compact", access: context.fieldAccess)
            })
        return Self.taggedAnswer(body, request: context.request)
    }

    /// A UI API answer: its `eTag` in the body and, quoted, in the ETag header, as Salesforce sends
    /// both; 304 with no body when the request's `If-None-Match` names that tag.
    private static func taggedAnswer(_ body: JSONObject, request: APIRequest) -> APIResponse {
        var tagged = body
        let tag = body["eTag"]?.stringValue ?? eTag(of: body)
        if matches(request.header("if-none-match"), "\"\(tag)\"") { return .empty(304) }
        tagged["eTag"] = .string(tag)
        var response = APIResponse.json(.object(tagged))
        response.headers.append(("ETag", "\"\(tag)\""))
        return response
    }

    /// A section of two columns, its items row by row; nil when none of its fields exists here
    /// (or, creating a record, when all are read-only system fields).
    /// A field the user's profile hides is left out of the layout, as the UI API leaves it out.
    private func layoutSection(
        _ section: LayoutSection, index: Int, object: ObjectDefinition, mode: String, compact: Bool,
        access: FieldAccess
    ) -> JSONValue? {
        let fields = section.fields.compactMap { object.field(named: $0) }.filter { field in
            access.canRead(field, in: object) && (mode == "View" || !field.isSystem || field.name == "OwnerId")
        }
        guard !fields.isEmpty else { return nil }
        let columns = compact ? 1 : 2
        let items = fields.map { layoutItem($0, object: object, mode: mode, compact: compact, access: access) }
        let rows = stride(from: 0, to: items.count, by: columns).map { start in
            JSONValue.object(["layoutItems": .array(Array(items[start..<min(start + columns, items.count)]))])
        }
        return [
            "collapsible": false, "columns": .int(Int64(columns)), "heading": .string(section.heading),
            "id": .string(SalesforceId.make(keyPrefix: "01B", number: Int64(index + 1))),
            "layoutRows": .array(rows), "rows": .int(Int64(rows.count)), "useHeading": .bool(!compact && !section.heading.isEmpty),
        ]
    }

    private func layoutItem(_ field: FieldDefinition, object: ObjectDefinition, mode: String, compact: Bool, access: FieldAccess) -> JSONValue {
        let required = field.isRequiredOnCreate && !field.isSystem
        let creatable = access.canWrite(field, in: object, creating: true)
        let updatable = access.canWrite(field, in: object, creating: false)
        let editable = mode == "Create" ? creatable : updatable
        // Page layouts say how the item behaves; compact layouts leave it null (as the UI API does).
        let behavior: JSONValue = compact ? .null : .string(required ? "Required" : (editable && !field.isSystem ? "Edit" : "Readonly"))
        let component: JSONObject = [
            "apiName": .string(field.name), "behavior": behavior, "componentType": "Field", "customLinkUrl": .null,
            "label": .string(field.label),
        ]
        return [
            "editableForNew": .bool(creatable && !field.isSystem), "editableForUpdate": .bool(updatable && !field.isSystem),
            "label": .string(field.label), "layoutComponents": [.object(component)],
            "lookupIdApiName": field.referenceTo == nil ? .null : .string(field.name),
            "required": .bool(required), "sortable": false, "uiBehavior": behavior,
        ]
    }

    /// `GET ui-api/object-info/{object}/picklist-values/{recordTypeId}[/{field}]`: the values each
    /// picklist offers on records of that record type, in the UI API's shape.
    private func picklistValues(_ context: DataContext, objectName: String, recordTypeId: String, fieldName: String?) throws -> APIResponse {
        try requireMethod(context.method, "GET")
        guard let object = schema.object(named: objectName) else {
            throw APIError(status: 400, errorCode: "INVALID_TYPE", message: "Object \(objectName) is not supported in UI API")
        }
        guard let recordType = SalesforceId.canonical(recordTypeId).flatMap({ object.recordType(id: $0) }) else {
            throw APIError(status: 404, errorCode: "NOT_FOUND", message: "The requested resource does not exist")
        }
        let base = "/services/data/v\(context.apiVersion)/ui-api/object-info/\(object.name)/picklist-values/\(recordType.id)"
        func fieldValues(_ field: FieldDefinition) -> JSONObject {
            var body: JSONObject = [
                "controllerValues": [:], "defaultValue": .null, "url": .string("\(base)/\(field.name)"),
                "values": .array(
                    object.picklistValues(of: field, recordType: recordType).map { value in
                        ["attributes": .null, "label": .string(value), "validFor": [], "value": .string(value)]
                    }),
            ]
            body["eTag"] = .string(Self.eTag(of: body))
            return body
        }
        if let fieldName {
            guard let field = object.field(named: fieldName), field.type.isPicklist, context.fieldAccess.canRead(field, in: object) else {
                throw APIError(status: 404, errorCode: "NOT_FOUND", message: "The requested resource does not exist")
            }
            return Self.taggedAnswer(fieldValues(field), request: context.request)
        }
        var fields: JSONObject = [:]
        for field in context.fieldAccess.readableFields(of: object) where field.type.isPicklist { fields[field.name] = .object(fieldValues(field)) }
        return Self.taggedAnswer(["picklistFieldValues": .object(fields)], request: context.request)
    }

    /// A query parameter that must be one of `values` (case as Salesforce writes them; any case
    /// accepted); the first when absent.
    private static func choice(_ given: String?, parameter: String, of values: [String]) throws -> String {
        guard let given else { return values[0] }
        guard let value = values.first(where: { $0.caseInsensitiveCompare(given) == .orderedSame }) else {
            throw APIError(
                status: 400, errorCode: "ILLEGAL_QUERY_PARAMETER_VALUE",
                message: "Invalid \(parameter): \(given). Use one of \(values.joined(separator: ", ")).")
        }
        return value
    }

    /// A stable tag of the layout's content, so a client can tell an unchanged layout.
    private static func eTag(of body: JSONObject) -> String {
        String(stableHash(JSONWriter.string(.object(body))), radix: 16)
    }

}
