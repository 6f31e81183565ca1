import ForceJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// Subscription membership on a real store file: rows in `sync_members`, and what a release and
/// the leaving sweep remove and keep.
@Suite("Subscription membership and release")
struct SubscriptionReleaseTests {
    static let configSync: Int64 = 7
    static let subscription: Int64 = 100
    static let otherSubscription: Int64 = 200

    /// Five contacts: c1 written by the config sync, c2…c5 by the subscription, which holds all
    /// five; the other subscription holds c3; c4 has an unsent edit.
    static func storeWithASlice() throws -> (SyncStore, SyncMembers) {
        let fixture = try SyncStore()
        let members = try SyncMembers(store: fixture.store)
        try fixture.store.write { (transaction) throws in
            var records: [JSONObject] = []
            for number in 1...5 {
                var record = Records.contact("c\(number)", last: "Contact \(number)")
                record[LocalField.syncId] = .int(number == 1 ? configSync : subscription)
                record[LocalField.local] = false
                records.append(number == 4 ? Records.edited(record, ["Title": "Changed here"]) : record)
            }
            _ = try transaction.create(records, in: "contacts")
            try members.hold((1...5).map { "c\($0)" }, syncId: subscription, soup: "contacts", in: transaction)
            try members.hold(["c3"], syncId: otherSubscription, soup: "contacts", in: transaction)
        }
        return (fixture, members)
    }

    static func ids(_ fixture: SyncStore) throws -> [String] {
        try fixture.documents("contacts").compactMap { $0["Id"]?.stringValue }.sorted()
    }

    @Test func holdingTwiceKeepsOneRowAndRowsNameTheirSoup() throws {
        let (fixture, members) = try Self.storeWithASlice()
        try fixture.store.write { (transaction) throws in
            try members.hold(["c1", "c2"], syncId: Self.subscription, soup: "contacts", in: transaction)
            try members.hold(["c1"], syncId: Self.subscription, soup: "accounts", in: transaction)
        }
        try fixture.store.read { (transaction) throws in
            #expect(try members.ids(syncId: Self.subscription, soup: "contacts", in: transaction).sorted() == ["c1", "c2", "c3", "c4", "c5"])
            #expect(try members.ids(syncId: Self.subscription, soup: "accounts", in: transaction) == ["c1"])
            #expect(try members.holders(of: ["c3", "c9"], soup: "contacts", in: transaction) == ["c3": [Self.subscription, Self.otherSubscription]])
        }
        #expect(try fixture.documents(SyncMembers.soupName).count == 7)
    }

    @Test func aReleaseRemovesWhatNothingHoldsAndKeepsAnUnsentChange() throws {
        let (fixture, members) = try Self.storeWithASlice()
        let release = SubscriptionRelease(soupName: "contacts", configHolders: [Self.configSync], members: members)
        let outcome = try fixture.store.write { (transaction) throws in
            try release.release(["c1", "c2", "c3", "c4", "c5", "c9"], from: Self.subscription, in: transaction)
        }
        #expect(outcome == SubscriptionRelease.Outcome(removed: 2, waiting: 1, kept: 2))
        #expect(try Self.ids(fixture) == ["c1", "c3", "c4"], "the config's c1, the other subscription's c3 and the edited c4 stay")
        try fixture.store.read { (transaction) throws in
            #expect(try members.ids(syncId: Self.subscription, soup: "contacts", in: transaction).isEmpty)
            #expect(try members.ids(syncId: SyncMembers.leaving, soup: "contacts", in: transaction) == ["c4"])
            #expect(try members.ids(syncId: Self.otherSubscription, soup: "contacts", in: transaction) == ["c3"])
        }
    }

    @Test func aLeavingRecordGoesOnlyOnceItsChangeIsSent() throws {
        let (fixture, members) = try Self.storeWithASlice()
        let release = SubscriptionRelease(soupName: "contacts", configHolders: [Self.configSync], members: members)
        _ = try fixture.store.write { try release.release(["c4", "c5"], from: Self.subscription, in: $0) }

        #expect(try fixture.store.write { try release.sweepLeaving(in: $0) } == 0, "c4 has not been sent yet")
        #expect(try Self.ids(fixture).contains("c4"))

        // The sync up sent it: the record is clean again.
        var sent = try #require(try fixture.document("contacts", id: "c4"))
        sent.markClean()
        _ = try fixture.store.update(sent, id: try #require(sent.soupEntryId), in: "contacts")
        #expect(try fixture.store.write { try release.sweepLeaving(in: $0) } == 1)
        #expect(try Self.ids(fixture) == ["c1", "c2", "c3"])
        try fixture.store.read { (transaction) throws in
            #expect(try members.ids(syncId: SyncMembers.leaving, soup: "contacts", in: transaction).isEmpty)
        }
    }

    @Test func aLeavingRecordHeldAgainStaysAndARowWithoutItsRecordGoes() throws {
        let (fixture, members) = try Self.storeWithASlice()
        let release = SubscriptionRelease(soupName: "contacts", configHolders: [Self.configSync], members: members)
        try fixture.store.write { (transaction) throws in
            _ = try release.release(["c4"], from: Self.subscription, in: transaction)
            // A leaving row for a record already gone (sent as a delete, say).
            try members.hold(["c8"], syncId: SyncMembers.leaving, soup: "contacts", in: transaction)
            // A sync of the other subscription fetched c4 back.
            try members.hold(["c4"], syncId: Self.otherSubscription, soup: "contacts", in: transaction)
        }
        var sent = try #require(try fixture.document("contacts", id: "c4"))
        sent.markClean()
        _ = try fixture.store.update(sent, id: try #require(sent.soupEntryId), in: "contacts")

        #expect(try fixture.store.write { try release.sweepLeaving(in: $0) } == 0)
        #expect(try Self.ids(fixture).contains("c4"))
        try fixture.store.read { (transaction) throws in
            #expect(try members.ids(syncId: SyncMembers.leaving, soup: "contacts", in: transaction).isEmpty, "both leaving rows are settled")
            #expect(try members.ids(syncId: Self.otherSubscription, soup: "contacts", in: transaction).sorted() == ["c3", "c4"])
        }
    }

    @Test func aRecordEditedAfterTheReleaseBeganIsNeverRemoved() throws {
        let (fixture, members) = try Self.storeWithASlice()
        let release = SubscriptionRelease(soupName: "contacts", configHolders: [Self.configSync], members: members)
        // The edit lands in the same transaction as the release, before it reads the record.
        let outcome = try fixture.store.write { (transaction) throws in
            let record = try #require(try transaction.entries(whereIndexed: "Id", isOneOf: ["c5"], in: "contacts").first)
            _ = try transaction.update(Records.edited(record, ["Title": "Late edit"]), id: try #require(record.soupEntryId), in: "contacts")
            return try release.release(["c5"], from: Self.subscription, in: transaction)
        }
        #expect(outcome == SubscriptionRelease.Outcome(removed: 0, waiting: 1, kept: 0))
        #expect(try fixture.document("contacts", id: "c5")?["Title"]?.stringValue == "Late edit")
    }
}
