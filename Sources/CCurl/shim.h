// Typed wrappers around libcurl's variadic calls, which Swift cannot call directly.
#ifndef FORCETERM_CCURL_SHIM_H
#define FORCETERM_CCURL_SHIM_H

#include <curl/curl.h>
#include <string.h>
#include <sys/socket.h>

/// Receives body or header bytes; returns how many it consumed (fewer aborts the transfer).
typedef size_t (*forceterm_curl_data_callback)(char *data, size_t size, size_t count, void *context);
/// Called during a transfer; a non-zero return aborts it (used for cancellation).
typedef int (*forceterm_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                                curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode forceterm_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode forceterm_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode forceterm_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode forceterm_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode forceterm_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode forceterm_curl_set_data_callback(CURL *handle, CURLoption option, forceterm_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode forceterm_curl_set_progress_callback(CURL *handle, forceterm_curl_progress_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}
/// Called once a connection is ready and before the request is written on it (CURLOPT_PREREQFUNCTION,
/// libcurl 7.80): until it has run, nothing of the request has left. Returns 0 to go on.
typedef int (*forceterm_curl_prereq_callback)(void *context, char *primary_ip, char *local_ip, int primary_port, int local_port);
/// CURLE_UNKNOWN_OPTION with a libcurl older than 7.80.
static inline CURLcode forceterm_curl_set_prereq_callback(CURL *handle, forceterm_curl_prereq_callback value, void *context) {
#if LIBCURL_VERSION_NUM >= 0x075000
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_PREREQDATA, context);
#else
    (void)handle; (void)value; (void)context;
    return CURLE_UNKNOWN_OPTION;
#endif
}
/// Sets SO_LINGER to zero on each socket libcurl opens: closing it resets the connection and drops
/// whatever of a request the kernel still holds, instead of delivering it once a dead link comes
/// back. A request given up on (a stall) must not reach the server after the client has looked
/// for its effect and sent it again.
static inline int forceterm_curl_reset_on_close(void *context, curl_socket_t socket, curlsocktype purpose) {
    (void)context;
    (void)purpose;
    struct linger linger = { .l_onoff = 1, .l_linger = 0 };
    setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
    return CURL_SOCKOPT_OK;
}
static inline CURLcode forceterm_curl_set_reset_on_close(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, forceterm_curl_reset_on_close);
}
static inline CURLcode forceterm_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode forceterm_curl_get_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode forceterm_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// How many certificates the server sent, after a transfer made with CURLOPT_CERTINFO (0 if none).
static inline int forceterm_curl_certificate_count(CURL *handle) {
    struct curl_certinfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_CERTINFO, &info) != CURLE_OK || info == NULL) return 0;
    return info->num_of_certs;
}
/// One field ("Cert", "Subject", "Issuer", ...) of the certificate at `index` (0 is the server's
/// own), or NULL; the text lives as long as the handle's transfer info.
static inline const char *forceterm_curl_certificate_field(CURL *handle, int index, const char *name) {
    struct curl_certinfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_CERTINFO, &info) != CURLE_OK || info == NULL || index >= info->num_of_certs) return NULL;
    size_t length = strlen(name);
    for (struct curl_slist *item = info->certinfo[index]; item != NULL; item = item->next) {
        if (strncmp(item->data, name, length) == 0 && item->data[length] == ':') return item->data + length + 1;
    }
    return NULL;
}

/// Typed curl_share_setopt calls: what the share handle shares, and the locks around it.
static inline CURLSHcode forceterm_curl_share_set_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}
static inline CURLSHcode forceterm_curl_share_set_pointer(CURLSH *share, CURLSHoption option, void *value) {
    return curl_share_setopt(share, option, value);
}
static inline CURLSHcode forceterm_curl_share_set_lock(CURLSH *share, curl_lock_function value) {
    return curl_share_setopt(share, CURLSHOPT_LOCKFUNC, value);
}
static inline CURLSHcode forceterm_curl_share_set_unlock(CURLSH *share, curl_unlock_function value) {
    return curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, value);
}

/// Typed curl_multi_setopt for long values.
static inline CURLMcode forceterm_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
/// The next transfer the multi handle has finished: its easy handle and result. 0 when none is left.
static inline int forceterm_curl_multi_next_done(CURLM *multi, CURL **handle, CURLcode *result) {
    int left = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &left)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *handle = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

#endif
