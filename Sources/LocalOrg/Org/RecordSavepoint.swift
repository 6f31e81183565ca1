import GRDB

extension Database {
    /// GRDB's `inSavepoint` for one record of a collection or composite request, with its
    /// statements prepared once per connection instead of on every call: preparing `SAVEPOINT` and
    /// `RELEASE` anew for each record was a sixth of localorg's CPU in a sync up (`make bench-sync`).
    /// Runs only inside a transaction (every caller is in `OrgStore.write`); `.rollback` or a
    /// thrown error undoes the body's changes and nothing else.
    func inRecordSavepoint(_ body: () throws -> TransactionCompletion) throws {
        try cachedStatement(sql: "SAVEPOINT localorg_record").execute()
        let completion: TransactionCompletion
        do {
            completion = try body()
        } catch {
            try? rollBackRecordSavepoint()
            throw error
        }
        switch completion {
        case .commit: try cachedStatement(sql: "RELEASE SAVEPOINT localorg_record").execute()
        case .rollback: try rollBackRecordSavepoint()
        }
    }

    private func rollBackRecordSavepoint() throws {
        try cachedStatement(sql: "ROLLBACK TO SAVEPOINT localorg_record").execute()
        try cachedStatement(sql: "RELEASE SAVEPOINT localorg_record").execute()
    }
}
