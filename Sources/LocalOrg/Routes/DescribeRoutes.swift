import Crypto
import ForceJSON
import Foundation
import GRDB
import SalesforceTime

/// Describes: the object list, an object's describe and its fields, as Salesforce answers them.
extension LocalOrgAPI {
    /// `/services/data/vNN.N/sobjects/T`: where an object's resources start, and with `/{id}`
    /// (describe urls, `Location`, an upsert's 300 choices) where a record lives.
    static func sobjectPath(_ object: ObjectDefinition, apiVersion: String) -> String {
        "/services/data/v\(apiVersion)/sobjects/\(object.name)"
    }

    func sobjectSummary(_ object: ObjectDefinition, apiVersion: String) -> JSONObject {
        let base = Self.sobjectPath(object, apiVersion: apiVersion)
        return [
            "activateable": false, "associateEntityType": .null, "associateParentEntity": .null,
            "createable": .bool(object.createable), "custom": .bool(object.name.hasSuffix("__c")), "customSetting": false,
            "deepCloneable": false, "deletable": .bool(object.deletable), "deprecatedAndHidden": false, "feedEnabled": false,
            "hasSubtypes": false, "isInterface": false, "isSubtype": false, "keyPrefix": .string(object.keyPrefix),
            "label": .string(object.label), "labelPlural": .string(object.labelPlural), "layoutable": true,
            "mergeable": .bool(object.deletable), "mruEnabled": true, "name": .string(object.name), "queryable": true,
            "replicateable": true, "retrieveable": true, "searchable": true, "triggerable": true,
            "undeletable": .bool(object.deletable), "updateable": true,
            "urls": ["sobject": .string(base), "describe": .string("\(base)/describe"), "rowTemplate": .string("\(base)/{ID}")],
        ]
    }

    /// True when the client's `If-Modified-Since` is no earlier than `lastChange` (answer 304).
    func notModified(_ request: APIRequest, since lastChange: Int64) -> Bool {
        guard let header = request.header("if-modified-since"), let date = SalesforceDate.parseHTTPDate(header) else { return false }
        return lastChange <= date
    }

    func describeGlobal(_ context: DataContext) throws -> APIResponse {
        if notModified(context.request, since: schemaLoadedAt) { return .empty(304) }
        return .json([
            "encoding": "UTF-8", "maxBatchSize": 200,
            "sobjects": .array(schema.objects.map { .object(sobjectSummary($0, apiVersion: context.apiVersion)) }),
        ])
    }

    func describe(_ object: ObjectDefinition, context: DataContext) -> APIResponse {
        // A profile or rule changed since the schema loaded changes what this user is told.
        let changed = max(schemaLoadedAt, context.rules.accessChangedAt)
        if notModified(context.request, since: changed) { return .empty(304) }
        var body = sobjectSummary(object, apiVersion: context.apiVersion)
        // A field the user's profile hides is not in their describe at all.
        let access = context.fieldAccess
        body["fields"] = .array(
            access.readableFields(of: object).map {
                describeField($0, of: object, access: access, longTextRefused: context.rules.isOn(.nonFilterableFields))
            })
        body["childRelationships"] = .array(
            schema.childRelationships(of: object.name).map { relationship in
                [
                    "childSObject": .string(relationship.childObject), "field": .string(relationship.field),
                    "relationshipName": .string(relationship.relationshipName), "cascadeDelete": .bool(relationship.cascadeDelete),
                    "restrictedDelete": false, "deprecatedAndHidden": false, "junctionIdListNames": [], "junctionReferenceTo": [],
                ]
            })
        let base = Self.sobjectPath(object, apiVersion: context.apiVersion)
        body["recordTypeInfos"] = .array(
            object.allRecordTypes.map { recordType in
                // With record types of its own, an object's Master is not available to users.
                let available = recordType.isMaster == object.recordTypes.isEmpty
                return [
                    "active": true, "available": .bool(available), "defaultRecordTypeMapping": .bool(recordType.id == object.defaultRecordType.id),
                    "developerName": .string(recordType.developerName), "master": .bool(recordType.isMaster),
                    "name": .string(recordType.label), "recordTypeId": .string(recordType.id),
                    "urls": ["layout": .string("\(base)/describe/layouts/\(recordType.id)")],
                ]
            })
        body["actionOverrides"] = []
        body["namedLayoutInfos"] = []
        body["supportedScopes"] = [["label": "All", "name": "everything"], ["label": "My", "name": "mine"]]
        let site = context.request.baseURL
        body["urls"] = [
            "sobject": .string(base), "describe": .string("\(base)/describe"), "rowTemplate": .string("\(base)/{ID}"),
            "compactLayouts": .string("\(base)/describe/compactLayouts"), "approvalLayouts": .string("\(base)/describe/approvalLayouts"),
            "layouts": .string("\(base)/describe/layouts"), "listviews": .string("\(base)/listviews"),
            "quickActions": .string("\(base)/quickActions"), "defaultValues": .string("\(base)/defaultValues?recordTypeId&fields"),
            "uiDetailTemplate": .string("\(site)/{ID}"), "uiEditTemplate": .string("\(site)/{ID}/e"),
            "uiNewRecord": .string("\(site)/\(object.keyPrefix)/e"),
        ]
        body["defaultImplementation"] = .null
        body["extendedBy"] = .null
        body["extendsInterfaces"] = .null
        body["implementedBy"] = .null
        body["implementsInterfaces"] = .null
        body["sobjectDescribeOption"] = "FULL"
        body["listviewable"] = .null
        body["lookupLayoutable"] = .null
        body["searchLayoutable"] = true
        body["compactLayoutable"] = true
        body["networkScopeFieldName"] = .null
        // A tag of what this user is told (field access differs per user), and the schema's load
        // time as Last-Modified: clients revalidate with If-None-Match or If-Modified-Since.
        let etag = "\"" + String(stableHash(JSONWriter.string(.object(body))), radix: 16) + "\""
        if Self.matches(context.request.header("if-none-match"), etag) { return .empty(304) }
        var response = APIResponse.json(.object(body))
        response.headers.append(("ETag", etag))
        response.headers.append(("Last-Modified", SalesforceDate.formatHTTPDate(changed)))
        return response
    }

    /// A picklist's values as describe lists them; an address code field's are the org's countries
    /// or states, labelled, the states `validFor` their country.
    static func picklistEntries(_ field: FieldDefinition, of object: ObjectDefinition) -> [JSONValue] {
        if AddressPicklists.isCodeField(field.name, of: object.name) { return AddressPicklists.standard.describeEntries(for: field.name) }
        return field.picklistValues.map { ["active": true, "defaultValue": false, "label": .string($0), "validFor": .null, "value": .string($0)] }
    }

    /// One field as the asking user is told it: read-only fields (the profile's, or the schema's)
    /// are not createable or updateable. `longTextRefused`: long text areas are not filterable,
    /// sortable or groupable, as a real org describes them (a recorded describe of a textarea of
    /// 32,768 characters answers false for all three; the SOQL reference: WHERE takes "any field
    /// except a long text area").
    func describeField(
        _ field: FieldDefinition, of object: ObjectDefinition, access: FieldAccess = .administrator,
        longTextRefused: Bool = true
    ) -> JSONValue {
        let isNumber = field.type.isNumber
        let longText = longTextRefused && field.isLongText
        // State and Country/Territory Picklists: a state code depends on its address's country code.
        let isAddressCode = AddressPicklists.isCodeField(field.name, of: object.name)
        let controller = isAddressCode && field.name.hasSuffix("StateCode") ? String(field.name.dropLast("StateCode".count)) + "CountryCode" : nil
        return [
            "name": .string(field.name), "label": .string(field.label), "type": .string(field.type.rawValue),
            "soapType": .string(field.type.soapType), "length": .int(Int64(field.type.isText || field.type == .id || field.type == .reference ? field.length : 0)),
            "byteLength": .int(Int64(field.length * 3)), "digits": .int(Int64(field.digits)),
            "precision": .int(Int64(field.precision)), "scale": .int(Int64(field.scale)),
            "nillable": .bool(field.nillable), "createable": .bool(access.canWrite(field, in: object, creating: true)),
            "updateable": .bool(access.canWrite(field, in: object, creating: false)),
            "defaultedOnCreate": .bool(field.defaultedOnCreate), "unique": .bool(field.unique), "externalId": .bool(field.externalId),
            "idLookup": .bool(field.idLookup), "nameField": .bool(field.nameField), "calculated": .bool(!field.concatenationOf.isEmpty),
            "autoNumber": false, "custom": .bool(field.custom), "caseSensitive": false,
            "filterable": .bool(!longText), "sortable": .bool(!longText && (field.type != .textarea || field.length <= 255)),
            "groupable": .bool(!isNumber && !longText),
            "aggregatable": true, "referenceTo": .array(field.referenceTo.map { [.string($0)] } ?? []),
            "relationshipName": field.relationshipName.map(JSONValue.string) ?? .null,
            "cascadeDelete": .bool(field.cascadeDelete), "restrictedDelete": false,
            "picklistValues": .array(Self.picklistEntries(field, of: object)),
            "restrictedPicklist": .bool(field.restrictedPicklist || isAddressCode), "dependentPicklist": .bool(controller != nil),
            "controllerName": controller.map(JSONValue.string) ?? .null,
            "defaultValue": field.defaultValue ?? .null, "defaultValueFormula": .null, "calculatedFormula": .null,
            "inlineHelpText": .null, "htmlFormatted": false, "encrypted": false, "deprecatedAndHidden": false,
            "compoundFieldName": .null, "extraTypeInfo": field.type == .textarea ? "plaintextarea" : .null,
            "permissionable": .bool(field.isPermissionable), "writeRequiresMasterRead": false,
            "aiPredictionField": false, "displayLocationInDecimal": false, "filteredLookupInfo": .null,
            "formulaTreatNullNumberAsZero": false, "highScaleNumber": false, "mask": .null, "maskType": .null,
            "namePointing": false, "polymorphicForeignKey": false, "queryByDistance": false, "referenceTargetField": .null,
            "relationshipOrder": .null, "searchPrefilterable": false,
        ]
    }
}
