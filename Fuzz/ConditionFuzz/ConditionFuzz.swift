import ForceJSON
import MobileSync
import SOQLSyntax

/// libFuzzer's target for `forceterm subscribe --where`: each input is a condition's text, checked
/// as `SubscriptionCondition.validate` checks it against a describe of Contact. A refusal must be
/// `invalidSubscription`; an accepted condition must make the queries a subscription sends (its
/// sync down, and a changed condition's difference) parse as one query whose WHERE is the
/// condition alone: text that closes the WHERE early (`x') OR ('1'='1`) must never pass.
@_cdecl("LLVMFuzzerTestOneInput")
public func conditionFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let condition: SubscriptionCondition
    do {
        condition = try SubscriptionCondition.validate(
            text, name: "fuzz", object: "Contact", allowed: ConditionFuzzSetup.allowed, described: ConditionFuzzSetup.described)
    } catch .invalidSubscription {
        return 0
    } catch {
        fatalError("a refusal that is not invalidSubscription: \(error)")
    }
    let queries = [
        "SELECT Id, LastName FROM Contact WHERE (\(condition.text))",
        "SELECT Id FROM Contact WHERE (\(condition.text)) AND (NOT (\(condition.text)))",
    ]
    for query in queries {
        do {
            let parsed = try SOQLParser.parse(query)
            guard parsed.objectName == "Contact", parsed.condition != nil, parsed.limit == nil, parsed.offset == nil, parsed.ordering.isEmpty,
                parsed.groupBy.isEmpty, parsed.having == nil
            else { fatalError("accepted \(text.debugDescription), whose query is more than a WHERE: \(query)") }
        } catch {
            fatalError("accepted \(text.debugDescription), whose query does not parse: \(error)")
        }
    }
    return 0
}

/// The fields a subscription of the built-in contacts sync may name, and a describe of them.
enum ConditionFuzzSetup {
    static let allowed = ["FirstName", "LastName", "Title", "Email", "MailingCity", "Description", "AccountId", "Id", "LastModifiedDate", "OwnerId"]
    static let described: DescribedFields? = {
        let fields: [JSONValue] = allowed.map { name in
            .object([
                "name": .string(name), "type": .string(name == "Description" ? "textarea" : name.hasSuffix("Id") ? "reference" : "string"),
                "length": .int(name == "Description" ? 32_000 : 80), "filterable": .bool(name != "Description"),
            ])
        }
        return DescribedFields(describe: ["name": "Contact", "fields": .array(fields)])
    }()
}
