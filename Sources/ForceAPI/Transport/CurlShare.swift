import CCurl
import Foundation

/// A curl share handle: the TLS sessions and DNS answers the transport's easy handles have in
/// common (the multi handle holds the connections), with the locks curl asks for around each
/// kind of shared data.
final class CurlShare: @unchecked Sendable {
    // Unchecked: `handle` is touched only under curl's own calls to `lock`/`unlock`, and closed
    // once the transport's thread, the only one to use it, has finished.
    let handle: UnsafeMutableRawPointer?
    private let locks: [NSLock]

    init() {
        locks = (0...Int(CURL_LOCK_DATA_LAST.rawValue)).map { _ in NSLock() }
        handle = curl_share_init()
        guard let handle else { return }
        forceterm_curl_share_set_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        forceterm_curl_share_set_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
        forceterm_curl_share_set_pointer(handle, CURLSHOPT_USERDATA, Unmanaged.passUnretained(self).toOpaque())
        forceterm_curl_share_set_lock(handle) { _, data, _, context in
            guard let context else { return }
            Unmanaged<CurlShare>.fromOpaque(context).takeUnretainedValue().lock(data)
        }
        forceterm_curl_share_set_unlock(handle) { _, data, context in
            guard let context else { return }
            Unmanaged<CurlShare>.fromOpaque(context).takeUnretainedValue().unlock(data)
        }
    }

    private func lock(_ data: curl_lock_data) { locks[min(Int(data.rawValue), locks.count - 1)].lock() }
    private func unlock(_ data: curl_lock_data) { locks[min(Int(data.rawValue), locks.count - 1)].unlock() }

    /// Frees the share handle; only once no easy handle uses it any more.
    func close() {
        if let handle { curl_share_cleanup(handle) }
    }
}

/// curl_global_init is not thread-safe and must run once before any handle exists.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    static func ensureInitialized() { _ = initialized }
}
