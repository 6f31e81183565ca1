import Foundation

/// The time the model reads, injected so tests step it instead of waiting (swift-nio's
/// `EmbeddedEventLoop.advanceTime` is the model).
public struct AppClock: Sendable {
    public let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    public static let system = AppClock { Date() }
}
