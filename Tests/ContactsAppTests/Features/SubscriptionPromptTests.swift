import Testing

@testable import ContactsApp

/// What `a` offers before anything is stored: a condition and a name from the list's search.
@Suite("The subscription prompt's suggestion")
struct SubscriptionPromptTests {
    @Test("Each word searched is found in one of the fields, anywhere in it; quotes, backslashes and LIKE's wildcards are taken as typed")
    func condition() {
        #expect(SubscriptionPrompt.condition(search: "", fields: ["LastName"]) == "")
        #expect(SubscriptionPrompt.condition(search: "ada", fields: []) == "")
        #expect(SubscriptionPrompt.condition(search: "ada", fields: ["LastName"]) == "LastName LIKE '%ada%'")
        #expect(SubscriptionPrompt.condition(search: "zür", fields: ["FirstName", "LastName"]) == "FirstName LIKE '%zür%' OR LastName LIKE '%zür%'")
        #expect(
            SubscriptionPrompt.condition(search: " o'brien  50%_off\\ ", fields: ["FirstName", "LastName"])
                == "(FirstName LIKE '%o\\'brien%' OR LastName LIKE '%o\\'brien%') AND (FirstName LIKE '%50\\%\\_off\\\\%' OR LastName LIKE '%50\\%\\_off\\\\%')")
    }

    @Test("The name suggested keeps letters and digits of any script, lower case, the rest one dash")
    func name() {
        #expect(SubscriptionPrompt.suggestedName(search: "Zürich AG") == "zürich-ag")
        #expect(SubscriptionPrompt.suggestedName(search: "  O'Brien & Söhne, 2nd ") == "o-brien-söhne-2nd")
        #expect(SubscriptionPrompt.suggestedName(search: "東京") == "東京")
        #expect(SubscriptionPrompt.suggestedName(search: "--") == "")
    }
}
