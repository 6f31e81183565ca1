/// The objects and fields every localorg serves (Account, Contact, User, …), in the JSON form an
/// org's own `schema.json` takes. Compiled in rather than shipped as a resource bundle, so the
/// binaries run from any directory (a .deb installs them without SwiftPM's bundle beside them).
extension OrgSchema {
    static let bundledJSON = #"""
        {
          "about": "The objects localorg serves. Every object also gets the system fields Id, IsDeleted, CreatedDate, CreatedById, LastModifiedDate, LastModifiedById and SystemModstamp (and OwnerId when hasOwner is true). A field is required on create when it is createable, not nillable and not defaultedOnCreate. 'restrictedPicklist' accepts only the picklist's values; 'editableBy': 'admins' lets other users read the field but not set it. 'recordTypes' (besides Master) offer their own picklist values and add RecordTypeId; 'validationRules' require fields when conditions hold ('RecordType' names a record type). 'concatenationOf' makes a read-only field computed from others, like Contact.Name. 'fieldUpdates' are the org's record-triggered flows: on create or every save, when conditions hold, set a field (set, setIfBlank, transform: lowercase, uppercase, trim, digitsOnly) or refuse the save (refuse: message).",
          "objects": [
            {
              "name": "Account", "label": "Account", "labelPlural": "Accounts", "keyPrefix": "001", "hasOwner": true,
              "fields": [
                {"name": "Name", "label": "Account Name", "type": "string", "length": 255, "nillable": false, "nameField": true},
                {"name": "AccountNumber", "label": "Account Number", "type": "string", "length": 40, "externalId": true},
                {"name": "Type", "label": "Account Type", "type": "picklist", "length": 255, "restrictedPicklist": true,
                 "picklistValues": ["Prospect", "Customer - Direct", "Customer - Channel", "Channel Partner / Reseller", "Installation Partner", "Technology Partner", "Other"]},
                {"name": "Industry", "label": "Industry", "type": "picklist", "length": 255,
                 "picklistValues": ["Agriculture", "Apparel", "Banking", "Biotechnology", "Chemicals", "Communications", "Construction", "Consulting", "Education", "Electronics", "Energy", "Engineering", "Entertainment", "Environmental", "Finance", "Food & Beverage", "Government", "Healthcare", "Hospitality", "Insurance", "Machinery", "Manufacturing", "Media", "Not For Profit", "Recreation", "Retail", "Shipping", "Technology", "Telecommunications", "Transportation", "Utilities", "Other"]},
                {"name": "Rating", "label": "Account Rating", "type": "picklist", "length": 255, "editableBy": "admins",
                 "picklistValues": ["Hot", "Warm", "Cold"]},
                {"name": "Ownership", "label": "Ownership", "type": "picklist", "length": 255,
                 "picklistValues": ["Public", "Private", "Subsidiary", "Other"]},
                {"name": "Phone", "label": "Account Phone", "type": "phone", "length": 40},
                {"name": "Fax", "label": "Account Fax", "type": "phone", "length": 40},
                {"name": "Website", "label": "Website", "type": "url", "length": 255},
                {"name": "BillingStreet", "label": "Billing Street", "type": "textarea", "length": 255},
                {"name": "BillingCity", "label": "Billing City", "type": "string", "length": 40},
                {"name": "BillingState", "label": "Billing State/Province", "type": "string", "length": 80},
                {"name": "BillingPostalCode", "label": "Billing Zip/Postal Code", "type": "string", "length": 20},
                {"name": "BillingCountry", "label": "Billing Country", "type": "string", "length": 80},
                {"name": "BillingStateCode", "label": "Billing State/Province Code", "type": "picklist", "length": 10},
                {"name": "BillingCountryCode", "label": "Billing Country Code", "type": "picklist", "length": 10},
                {"name": "NumberOfEmployees", "label": "Employees", "type": "int", "digits": 8},
                {"name": "AnnualRevenue", "label": "Annual Revenue", "type": "currency", "precision": 18, "scale": 0},
                {"name": "Description", "label": "Account Description", "type": "textarea", "length": 32000}
              ],
              "recordTypes": [
                {"developerName": "Customer", "label": "Customer Account", "default": true,
                 "picklistValues": {"Type": ["Prospect", "Customer - Direct", "Customer - Channel", "Other"]}},
                {"developerName": "Partner", "label": "Partner Account",
                 "picklistValues": {"Type": ["Channel Partner / Reseller", "Installation Partner", "Technology Partner"],
                                    "Industry": ["Communications", "Consulting", "Electronics", "Technology", "Telecommunications", "Other"]}}
              ],
              "validationRules": [
                {"name": "PartnerNeedsWebsite", "errorMessage": "A partner account needs its website.", "errorField": "Website",
                 "when": {"RecordType": "Partner"}, "requires": ["Website"]}
              ]
            },
            {
              "name": "Contact", "label": "Contact", "labelPlural": "Contacts", "keyPrefix": "003", "hasOwner": true,
              "fields": [
                {"name": "FirstName", "label": "First Name", "type": "string", "length": 40},
                {"name": "MiddleName", "label": "Middle Name", "type": "string", "length": 40},
                {"name": "LastName", "label": "Last Name", "type": "string", "length": 80, "nillable": false},
                {"name": "Suffix", "label": "Suffix", "type": "string", "length": 40},
                {"name": "Name", "label": "Full Name", "type": "string", "length": 121, "createable": false, "updateable": false,
                 "nameField": true, "concatenationOf": ["FirstName", "LastName"]},
                {"name": "Salutation", "label": "Salutation", "type": "picklist", "length": 40,
                 "picklistValues": ["Mr.", "Ms.", "Mrs.", "Dr.", "Prof."]},
                {"name": "Title", "label": "Title", "type": "string", "length": 128},
                {"name": "Email", "label": "Email", "type": "email", "length": 80, "idLookup": true},
                {"name": "Phone", "label": "Business Phone", "type": "phone", "length": 40},
                {"name": "MobilePhone", "label": "Mobile Phone", "type": "phone", "length": 40},
                {"name": "HomePhone", "label": "Home Phone", "type": "phone", "length": 40},
                {"name": "OtherPhone", "label": "Other Phone", "type": "phone", "length": 40},
                {"name": "Fax", "label": "Business Fax", "type": "phone", "length": 40},
                {"name": "Department", "label": "Department", "type": "string", "length": 80},
                {"name": "AccountId", "label": "Account ID", "type": "reference", "referenceTo": "Account",
                 "relationshipName": "Account", "childRelationshipName": "Contacts", "cascadeDelete": true},
                {"name": "MailingStreet", "label": "Mailing Street", "type": "textarea", "length": 255},
                {"name": "MailingCity", "label": "Mailing City", "type": "string", "length": 40},
                {"name": "MailingState", "label": "Mailing State/Province", "type": "string", "length": 80},
                {"name": "MailingPostalCode", "label": "Mailing Zip/Postal Code", "type": "string", "length": 20},
                {"name": "MailingCountry", "label": "Mailing Country", "type": "string", "length": 80},
                {"name": "MailingStateCode", "label": "Mailing State/Province Code", "type": "picklist", "length": 10},
                {"name": "MailingCountryCode", "label": "Mailing Country Code", "type": "picklist", "length": 10},
                {"name": "Birthdate", "label": "Birthdate", "type": "date"},
                {"name": "LeadSource", "label": "Lead Source", "type": "picklist", "length": 255,
                 "picklistValues": ["Web", "Phone Inquiry", "Partner Referral", "Purchased List", "Other"]},
                {"name": "ExternalKey__c", "label": "External Key", "type": "string", "length": 80, "externalId": true, "unique": true, "custom": true},
                {"name": "Description", "label": "Contact Description", "type": "textarea", "length": 32000}
              ],
              "validationRules": [
                {"name": "WebLeadsNeedEmail", "errorMessage": "A contact who came from the web needs an email address.", "errorField": "Email",
                 "when": {"LeadSource": "Web"}, "requires": ["Email"]}
              ],
              "fieldUpdates": [
                {"name": "Default Lead Source", "field": "LeadSource", "on": "create", "setIfBlank": "Other"}
              ]
            },
            {
              "name": "User", "label": "User", "labelPlural": "Users", "keyPrefix": "005", "hasOwner": false,
              "fields": [
                {"name": "Username", "label": "Username", "type": "string", "length": 80, "nillable": false, "unique": true, "idLookup": true},
                {"name": "FirstName", "label": "First Name", "type": "string", "length": 40},
                {"name": "MiddleName", "label": "Middle Name", "type": "string", "length": 40},
                {"name": "LastName", "label": "Last Name", "type": "string", "length": 80, "nillable": false},
                {"name": "Suffix", "label": "Suffix", "type": "string", "length": 40},
                {"name": "Name", "label": "Full Name", "type": "string", "length": 121, "createable": false, "updateable": false,
                 "nameField": true, "concatenationOf": ["FirstName", "LastName"]},
                {"name": "Alias", "label": "Alias", "type": "string", "length": 8},
                {"name": "Email", "label": "Email", "type": "email", "length": 128, "nillable": false},
                {"name": "IsActive", "label": "Active", "type": "boolean", "defaultValue": true},
                {"name": "TimeZoneSidKey", "label": "Time Zone", "type": "string", "length": 40},
                {"name": "LanguageLocaleKey", "label": "Language", "type": "string", "length": 40}
              ]
            },
            {
              "name": "RecordType", "label": "Record Type", "labelPlural": "Record Types", "keyPrefix": "012", "hasOwner": false,
              "createable": false, "deletable": false,
              "fields": [
                {"name": "Name", "label": "Record Type Label", "type": "string", "length": 80, "nillable": false, "nameField": true,
                 "createable": false, "updateable": false},
                {"name": "DeveloperName", "label": "Record Type Name", "type": "string", "length": 80, "nillable": false,
                 "createable": false, "updateable": false},
                {"name": "SobjectType", "label": "SObject Type Name", "type": "string", "length": 40, "nillable": false,
                 "createable": false, "updateable": false},
                {"name": "IsActive", "label": "Active", "type": "boolean", "defaultValue": true, "createable": false, "updateable": false}
              ]
            },
            {
              "name": "Organization", "label": "Organization", "labelPlural": "Organizations", "keyPrefix": "00D", "hasOwner": false,
              "createable": false, "deletable": false,
              "fields": [
                {"name": "Name", "label": "Name", "type": "string", "length": 80, "nillable": false, "nameField": true},
                {"name": "OrganizationType", "label": "Edition", "type": "string", "length": 40, "createable": false, "updateable": false},
                {"name": "InstanceName", "label": "Instance Name", "type": "string", "length": 5, "createable": false, "updateable": false},
                {"name": "IsSandbox", "label": "Is Sandbox", "type": "boolean", "createable": false, "updateable": false},
                {"name": "DefaultLocaleSidKey", "label": "Locale", "type": "string", "length": 40},
                {"name": "TimeZoneSidKey", "label": "Time Zone", "type": "string", "length": 40}
              ]
            }
          ]
        }
        """#
}
