import Foundation
import LocalOrgProcess
import Testing

@testable import MobileSync

@Suite("Keys of usersyncs.json that look misspelled")
struct SyncsConfigNotesTests {
    @Test("A key differing only in case from one the SDK reads is noted where it is; unknown others are not")
    func misspelledKeysAreNoted() throws {
        let json = SyncsConfigTests.explorerConfig
            .replacingOccurrences(of: #"{"type":"soql","#, with: #"{"type":"soql", "IdFieldName":"Id", "colour":"red","#)
            .replacingOccurrences(of: #""createFieldlist""#, with: #""createFieldList""#)
        let config = try SyncsConfig(json: json)
        #expect(
            config.notes == [
                #"sync "syncDownContacts": "target.IdFieldName" is not a key the SDK reads, so it is ignored; did you mean "idFieldName"?"#,
                #"sync "syncUpContacts": "target.createFieldList" is not a key the SDK reads, so it is ignored; did you mean "createFieldlist"?"#,
            ])
        #expect(config.entries.count == 2, "the syncs still run, as the SDK runs them")
    }

    @Test("The repo's config and every config file the SDK ships have nothing to note")
    func theSDKsOwnFilesHaveNoNotes() throws {
        #expect(try SyncsConfig(contentsOf: SyncStore.packageRoot.appendingPathComponent("config/usersyncs.json")).notes.isEmpty)
        guard RealSalesforce.isAvailable else { return }
        var checked = 0
        for name in RealSalesforce.mobileSyncConfigNames {
            for file in ["usersyncs.json", "globalsyncs.json"] {
                let url = RealSalesforce.mobileSyncConfig(name).appendingPathComponent(file)
                guard FileManager.default.fileExists(atPath: url.path) else { continue }
                #expect(try SyncsConfig(contentsOf: url).notes.isEmpty, "\(name)/\(file)")
                checked += 1
            }
        }
        #expect(checked >= 5)
    }
}
