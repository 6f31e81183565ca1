/// The configuration forceterm uses when `--config` names no directory: the repository's
/// `config/userstore.json` and `config/usersyncs.json`, built in so the binary works on its own. A
/// test checks these stay identical to the files.
public enum DefaultConfig {
    public static let userstoreJSON = #"""
        {
          "soups": [
            {
              "soupName": "contacts",
              "indexes": [
                {"path": "Id", "type": "string"},
                {"path": "FirstName", "type": "full_text"},
                {"path": "LastName", "type": "full_text"},
                {"path": "Title", "type": "full_text"},
                {"path": "Email", "type": "full_text"},
                {"path": "Department", "type": "full_text"},
                {"path": "MobilePhone", "type": "full_text"},
                {"path": "HomePhone", "type": "full_text"},
                {"path": "Phone", "type": "full_text"},
                {"path": "AccountId", "type": "string"},
                {"path": "__local__", "type": "string"},
                {"path": "__locally_created__", "type": "string"},
                {"path": "__locally_updated__", "type": "string"},
                {"path": "__locally_deleted__", "type": "string"},
                {"path": "__sync_id__", "type": "integer"}
              ]
            },
            {
              "soupName": "accounts",
              "indexes": [
                {"path": "Id", "type": "string"},
                {"path": "Name", "type": "full_text"},
                {"path": "Industry", "type": "full_text"},
                {"path": "BillingCity", "type": "full_text"},
                {"path": "Phone", "type": "full_text"},
                {"path": "__local__", "type": "string"},
                {"path": "__locally_created__", "type": "string"},
                {"path": "__locally_updated__", "type": "string"},
                {"path": "__locally_deleted__", "type": "string"},
                {"path": "__sync_id__", "type": "integer"}
              ]
            },
            {
              "soupName": "sobject_metadata",
              "indexes": [
                {"path": "Id", "type": "string"}
              ]
            }
          ]
        }
        """#

    public static let usersyncsJSON = #"""
        {
          "syncs": [
            {
              "syncName": "syncDownAccounts",
              "syncType": "syncDown",
              "soupName": "accounts",
              "target": {"type": "soql", "query": "SELECT Name, Industry, Phone, Website, BillingStreet, BillingCity, BillingState, BillingPostalCode, BillingCountry, Description FROM Account"},
              "options": {"mergeMode": "LEAVE_IF_CHANGED"}
            },
            {
              "syncName": "syncUpAccounts",
              "syncType": "syncUp",
              "soupName": "accounts",
              "target": {"createFieldlist": ["Name", "Industry", "Phone", "Website", "BillingStreet", "BillingCity", "BillingState", "BillingPostalCode", "BillingCountry", "Description"]},
              "options": {"fieldlist": ["Id", "Name", "Industry", "Phone", "Website", "BillingStreet", "BillingCity", "BillingState", "BillingPostalCode", "BillingCountry", "Description"], "mergeMode": "LEAVE_IF_CHANGED"}
            },
            {
              "syncName": "syncDownContacts",
              "syncType": "syncDown",
              "soupName": "contacts",
              "target": {"type": "soql", "query": "SELECT FirstName, LastName, Title, MobilePhone, Email, Department, HomePhone, AccountId, Phone, Salutation, MailingStreet, MailingCity, MailingState, MailingPostalCode, MailingCountry, Description FROM Contact"},
              "options": {"mergeMode": "LEAVE_IF_CHANGED"}
            },
            {
              "syncName": "syncUpContacts",
              "syncType": "syncUp",
              "soupName": "contacts",
              "target": {"createFieldlist": ["FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone", "AccountId", "Phone", "Salutation", "MailingStreet", "MailingCity", "MailingState", "MailingPostalCode", "MailingCountry", "Description"]},
              "options": {"fieldlist": ["Id", "FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone", "AccountId", "Phone", "Salutation", "MailingStreet", "MailingCity", "MailingState", "MailingPostalCode", "MailingCountry", "Description"], "mergeMode": "LEAVE_IF_CHANGED"}
            },
            {
              "syncName": "syncDownContactMetadata",
              "syncType": "syncDown",
              "soupName": "sobject_metadata",
              "target": {"type": "metadata", "sobjectType": "Contact"},
              "options": {"mergeMode": "OVERWRITE"}
            },
            {
              "syncName": "syncDownAccountMetadata",
              "syncType": "syncDown",
              "soupName": "sobject_metadata",
              "target": {"type": "metadata", "sobjectType": "Account"},
              "options": {"mergeMode": "OVERWRITE"}
            }
          ]
        }
        """#
}
