import GRDB

extension LocalOrgAPI {
    /// A data write on behalf of the request's session, with the session checked again in the
    /// write's own transaction: a snapshot restore (or a revocation) that committed after the
    /// request was authenticated ended the session and replaced what it read, so nothing of the
    /// request may land in the restored org. It is answered as an expired session is.
    func sessionWrite<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let selector = RequestContext.current?.tokenSelector
        return try await store.write { db in
            if let selector {
                let live =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM localorg_token WHERE selector = ? AND revoked = 0)",
                        arguments: [selector]) ?? false
                guard live else { throw APIError.sessionInvalid }
            }
            return try body(db)
        }
    }
}
