import ForceJSON
import Testing

@testable import SmartStore

@Suite("Search text typed by people")
struct FullTextQueryTests {
    @Test func wordsBecomeQuotedPrefixes() {
        #expect(FullTextQuery.prefixTerms("jo gar") == #""jo"* AND "gar"*"#)
        #expect(FullTextQuery.prefixTerms("  ") == nil)
        #expect(FullTextQuery.prefixTerms("- ( )") == nil)
        #expect(FullTextQuery.prefixTerms(#"say "hi""#) == #""say"* AND """hi"""*"#)
        #expect(FullTextQuery.prefixTerms("東京テクノ p") == #"("東 京 テ ク ノ" OR "東京テクノ"*) AND "p"*"#, "CJK anywhere in a run, or a run's start")
    }

    @Test func anythingTypedRunsAsASearch() throws {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup("people", indexSpecs: [IndexSpec(path: "name", type: .fullText)])
        _ = try temporary.store.create([["name": "José O'Brien"], ["name": "Ana NOT Known"], ["name": "山田 太郎"]], in: "people")
        func search(_ typed: String) throws -> [JSONValue?] {
            guard let terms = FullTextQuery.prefixTerms(typed) else { return [] }
            return try temporary.store.query(.match("people", path: "name", matchKey: terms, orderPath: "name")).map { $0["name"] }
        }
        #expect(try search("jos") == ["José O'Brien"])
        #expect(try search("o'brien") == ["José O'Brien"])
        #expect(try search("NOT") == ["Ana NOT Known"], "operators typed in the box are words")
        #expect(try search("AND OR") == [])
        #expect(try search("\"(*:^") == [])
        #expect(try search("山田") == ["山田 太郎"])
        #expect(try search("ana kno") == ["Ana NOT Known"])
    }
}
