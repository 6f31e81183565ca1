import Foundation

/// The partner SOAP API's `login()` call, which jsforce uses for username/password sign-in and
/// simple-salesforce for `SalesforceLogin(…, scratch_url=…)`. Salesforce retired it from API
/// version 65.0, and so does localorg.
extension LocalOrgAPI {
    static let lastSOAPLoginVersion = 64

    func soapLogin(_ request: APIRequest, version versionSegment: String) async throws -> APIResponse {
        guard request.method == "POST" else { return soapFault(code: "INVALID_OPERATION", message: "SOAP requests must use POST", status: 405) }
        guard let version = Self.supportedVersion(versionSegment) else {
            return soapFault(code: "UNSUPPORTED_API_VERSION", message: "Invalid Api version specified on URL", status: 500)
        }
        guard version <= Self.lastSOAPLoginVersion else {
            return soapFault(code: "INVALID_OPERATION", message: "login() is not available from API version 65.0; use OAuth", status: 500)
        }
        let envelope = String(decoding: request.body, as: UTF8.self)
        guard let username = Self.xmlElementText(envelope, named: "username"), let password = Self.xmlElementText(envelope, named: "password") else {
            return soapFault(code: "INVALID_LOGIN", message: "Invalid username, password, security token; or user locked out.", status: 500)
        }
        guard case let .accepted(userId, _) = try await store.checkSignIn(username: username, password: password) else {
            return soapFault(code: "INVALID_LOGIN", message: "Invalid username, password, security token; or user locked out.", status: 500)
        }
        let access = try await tokens.issue(kind: .access, userId: userId, clientId: "soap")
        let organizationId = await organizationId()
        guard let userObject = schema.object(named: "User"), let user = try await store.record(userObject, id: userId),
            let organization = schema.object(named: "Organization"),
            let organizationRecord = try await store.record(organization, id: organizationId)
        else { throw APIError.resourceNotFound }
        func text(_ record: StoredRecord, _ field: String) -> String { String.fromDatabaseValue(record.values[field] ?? .null) ?? "" }
        func orDefault(_ value: String, _ fallback: String) -> String { value.isEmpty ? fallback : value }
        let versionText = "\(version).0"
        let organization15 = String(organizationId.prefix(15))
        let body = """
            <?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" \
            xmlns="urn:partner.soap.sforce.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><loginResponse><result>\
            <metadataServerUrl>\(xmlEscaped("\(request.baseURL)/services/Soap/m/\(versionText)/\(organization15)"))</metadataServerUrl>\
            <passwordExpired>false</passwordExpired>\
            <sandbox>\(Bool.fromDatabaseValue(organizationRecord.values["IsSandbox"] ?? .null) == true)</sandbox>\
            <serverUrl>\(xmlEscaped("\(request.baseURL)/services/Soap/u/\(versionText)/\(organization15)"))</serverUrl>\
            <sessionId>\(xmlEscaped(access.token))</sessionId><userId>\(userId)</userId><userInfo>\
            <accessibilityMode>false</accessibilityMode><chatterExternal>false</chatterExternal><currencySymbol>$</currencySymbol>\
            <orgAttachmentFileSizeLimit>26214400</orgAttachmentFileSizeLimit><orgDefaultCurrencyIsoCode>USD</orgDefaultCurrencyIsoCode>\
            <orgDefaultCurrencyLocale>\(xmlEscaped(orDefault(text(organizationRecord, "DefaultLocaleSidKey"), "en_US")))</orgDefaultCurrencyLocale>\
            <orgDisallowHtmlAttachments>false</orgDisallowHtmlAttachments><orgHasPersonAccounts>false</orgHasPersonAccounts>\
            <organizationId>\(organizationId)</organizationId><organizationMultiCurrency>false</organizationMultiCurrency>\
            <organizationName>\(xmlEscaped(text(organizationRecord, "Name")))</organizationName>\
            <profileId>\(Self.standardUserProfileId)</profileId><roleId xsi:nil="true"/>\
            <sessionSecondsValid>\(tokens.accessTokenLifetime)</sessionSecondsValid><userDefaultCurrencyIsoCode xsi:nil="true"/>\
            <userEmail>\(xmlEscaped(text(user, "Email")))</userEmail><userFullName>\(xmlEscaped(text(user, "Name")))</userFullName>\
            <userId>\(userId)</userId><userLanguage>\(xmlEscaped(orDefault(text(user, "LanguageLocaleKey"), "en_US")))</userLanguage>\
            <userLocale>\(xmlEscaped(orDefault(text(user, "LanguageLocaleKey"), "en_US")))</userLocale>\
            <userName>\(xmlEscaped(text(user, "Username")))</userName>\
            <userTimeZone>\(xmlEscaped(orDefault(text(user, "TimeZoneSidKey"), "GMT")))</userTimeZone>\
            <userType>Standard</userType><userUiSkin>Theme3</userUiSkin>\
            </userInfo></result></loginResponse></soapenv:Body></soapenv:Envelope>
            """
        return APIResponse(status: 200, headers: [("Content-Type", "text/xml;charset=UTF-8")], body: Array(body.utf8))
    }

    /// A SOAP fault shaped as clients parse it: `faultstring`, and `sf:exceptionCode` /
    /// `sf:exceptionMessage` with exactly that prefix.
    func soapFault(code: String, message: String, status: Int) -> APIResponse {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" \
            xmlns:sf="urn:fault.partner.soap.sforce.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><soapenv:Fault>\
            <faultcode>sf:\(code)</faultcode><faultstring>\(code): \(xmlEscaped(message))</faultstring><detail>\
            <sf:LoginFault xsi:type="sf:LoginFault"><sf:exceptionCode>\(code)</sf:exceptionCode>\
            <sf:exceptionMessage>\(xmlEscaped(message))</sf:exceptionMessage></sf:LoginFault></detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>
            """
        return APIResponse(status: status, headers: [("Content-Type", "text/xml;charset=UTF-8")], body: Array(body.utf8))
    }

    /// The profile every localorg user answers with (Salesforce's ids for a Standard User profile look alike).
    static let standardUserProfileId = "00eLo000000StdUAAS"

    /// The text of the first element with this local name (any namespace prefix): entities decoded,
    /// CDATA sections taken as they are (Salesforce's own Postman collection sends its login so).
    static func xmlElementText(_ xml: String, named name: String) -> String? {
        var searchStart = xml.startIndex
        while let open = xml.range(of: "<", range: searchStart..<xml.endIndex) {
            guard let close = xml.range(of: ">", range: open.upperBound..<xml.endIndex) else { return nil }
            let tag = xml[open.upperBound..<close.lowerBound]
            let tagName = tag.split(separator: " ").first.map { $0.split(separator: ":").last.map(String.init) ?? "" } ?? ""
            if tagName == name, !tag.hasPrefix("/"), !tag.hasSuffix("/") {
                return elementContent(xml[close.upperBound...])
            }
            searchStart = close.upperBound
        }
        return nil
    }

    /// Text up to the element's end tag: character data unescaped, CDATA sections verbatim.
    static func elementContent(_ rest: Substring) -> String? {
        var text = ""
        var rest = rest
        while true {
            guard let markup = rest.firstIndex(of: "<") else { return nil }
            text += xmlUnescaped(String(rest[..<markup]))
            rest = rest[markup...]
            if rest.hasPrefix("<![CDATA[") {
                guard let end = rest.range(of: "]]>") else { return nil }
                text += rest[rest.index(rest.startIndex, offsetBy: 9)..<end.lowerBound]
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("</") {
                return text
            } else {
                return nil  // a child element: not text
            }
        }
    }

    static func xmlUnescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            guard let semicolon = rest[ampersand...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: ampersand)..<semicolon]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = UnicodeScalar(number) { result.unicodeScalars.append(scalar) } else { result += "&\(entity);" }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}

/// Escapes text for XML element content.
func xmlEscaped(_ text: String) -> String { htmlEscaped(text) }
