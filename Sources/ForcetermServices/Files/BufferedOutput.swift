import ContactsApp
import Foundation

/// Text gathered into large writes: an export of 100k records is not 100k system calls.
public struct BufferedOutput {
    public let write: (String) -> Void
    private var buffer = ""

    public init(write: @escaping (String) -> Void) {
        self.write = write
    }

    public mutating func append(_ text: String) {
        buffer += text
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    public mutating func flush() {
        if !buffer.isEmpty { write(buffer) }
        buffer = ""
    }
}
