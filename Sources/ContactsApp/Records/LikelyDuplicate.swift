import ForceJSON

/// A contact here that the org's standard contact duplicate rule would likely match with a new
/// one: the same email, or the same first and last name (case, accents and spacing aside) in the
/// same account. Said before anything is sent; the org decides.
public struct LikelyDuplicate: Sendable {
    public let record: LocalRecord
    public let reason: String

    public static func find(for new: LocalRecord, in repository: RecordRepository) throws -> LikelyDuplicate? {
        let email = new.string("Email").trimmingWhitespace
        if !email.isEmpty,
            let match = try repository.records(where: "Email", equalsIgnoringCase: email, limit: 3)
                .first(where: { $0.entryId != new.entryId && !$0.isLocallyDeleted })
        {
            return LikelyDuplicate(record: match, reason: "the same email")
        }
        let last = new.string("LastName").trimmingWhitespace
        guard !last.isEmpty else { return nil }
        let key = { (record: LocalRecord) in
            [CountryNames.fold(record.string("FirstName")), CountryNames.fold(record.string("LastName")), record.string("AccountId")]
        }
        let wanted = key(new)
        let match = try repository.records(where: "LastName", equalsIgnoringCase: last, limit: 50)
            .first { $0.entryId != new.entryId && !$0.isLocallyDeleted && key($0) == wanted }
        return match.map { LikelyDuplicate(record: $0, reason: "the same name and account") }
    }
}
