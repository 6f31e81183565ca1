import Testing

@testable import LocalOrg

@Suite struct SalesforceIdTests {
    @Test(arguments: [
        ("001D000000IRFma", "001D000000IRFmaIAH"), ("a0BA0000000L2ZC", "a0BA0000000L2ZCMA0"),
        ("70130000001tcyI", "70130000001tcyIAAQ"), ("00558000001N0Ke", "00558000001N0KeAAK"),
        ("AaaAABbbBBCccCC", "AaaAABbbBBCccCCZZZ"), ("AAaAAbbBBBCcCCC", "AAaAAbbBBBCcCCC123"),
    ])
    func fifteenToEighteenMatchesPublishedVectors(id15: String, id18: String) {
        #expect(SalesforceId.canonical(id15) == id18)
        #expect(SalesforceId.canonical(id18) == id18)
    }

    @Test func eighteenCharacterIdsRegainTheirCaseFromTheSuffix() {
        #expect(SalesforceId.canonical("001D000000IRFmaIAH".uppercased()) == "001D000000IRFmaIAH")
        #expect(SalesforceId.canonical("001d000000irfmaiah") == "001D000000IRFmaIAH")
    }

    @Test(arguments: ["", "abc", "001D000000IRFm", "001D000000IRFma!", "001D000000IRFmaIA", "001D000000IRFma_AH", "001D000000IRFma999"])
    func textThatIsNotAnIdIsRejected(text: String) {
        #expect(SalesforceId.canonical(text) == nil)
    }

    @Test func madeIdsCarryTheKeyPrefixAValidSuffixAndAreDistinct() {
        let ids = (1...500).map { SalesforceId.make(keyPrefix: "003", number: Int64($0)) }
        #expect(Set(ids).count == 500)
        for id in ids {
            #expect(id.count == 18)
            #expect(id.hasPrefix("003"))
            #expect(SalesforceId.canonical(id.prefix(15)) == id)
        }
        #expect(SalesforceId.make(keyPrefix: "001", number: 62).prefix(15) == "001Lo0000000010")
    }
}
