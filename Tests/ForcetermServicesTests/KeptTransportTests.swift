import ForceAPI
import ForcetermServices
import Testing

/// The REST transport a sync leaves for the next, so its connection to the org stays open.
@Suite("Kept transport: one sync's connection for the next")
struct KeptTransportTests {
    @Test("The same configuration gets the transport kept; another CA or timeout a new one; forgotten, a new one")
    func keptWhileTheConfigurationHolds() {
        let kept = KeptTransport()
        defer { kept.forget() }
        let configuration = TransportConfiguration(caFile: "/tmp/ca.pem")
        let first = kept.transport(for: configuration)
        #expect(kept.transport(for: configuration) === first)

        var slower = configuration
        slower.stallTimeout = 60
        let second = kept.transport(for: slower)
        #expect(second !== first, "config.toml's [network] changed between two syncs")
        #expect(kept.transport(for: slower) === second)

        kept.forget()
        #expect(kept.transport(for: slower) !== second, "after a failed sync the next one starts afresh")
    }
}
