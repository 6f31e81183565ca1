// The Linux kernel's key retention service (what keyctl(1) and ssh-agent-like tools use), called
// directly: the add_key and keyctl system calls are variadic in libc's syscall(), which Swift cannot
// call, and libkeyutils would be one more library to install and ship for five calls.
#ifndef FORCETERM_CKEYRING_SHIM_H
#define FORCETERM_CKEYRING_SHIM_H

#include <linux/keyctl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The calling process's session keyring: shared by every process of one login session (PAM's
/// pam_keyinit makes one per login). A process started outside any login has none; the kernel then
/// gives it the user's default session keyring rather than a new one of its own, which is what
/// asking for the id without "create" does: adding straight to KEY_SPEC_SESSION_KEYRING would join
/// a new keyring that dies with the process.
static inline int32_t forceterm_session_keyring(void) {
    return (int32_t)syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
}

/// The user's default session keyring, which a process outside any login (no pam_keyinit) uses as
/// its session keyring: shared by every such process of the user, whatever login it belongs to.
static inline int32_t forceterm_user_session_keyring(void) {
    return (int32_t)syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_SESSION_KEYRING, 0);
}

/// Adds (or replaces) a "user" key with `description` in `keyring`; its serial number, or -1.
static inline int32_t forceterm_add_key(const char *description, const void *payload, size_t length, int32_t keyring) {
    return (int32_t)syscall(SYS_add_key, "user", description, payload, length, keyring);
}

/// The "user" key with `description` reachable from `keyring`; -1 (errno ENOKEY) when none.
static inline int32_t forceterm_keyctl_search(int32_t keyring, const char *description) {
    return (int32_t)syscall(SYS_keyctl, KEYCTL_SEARCH, keyring, "user", description, 0);
}

/// Copies up to `length` bytes of the key's payload into `buffer`; the payload's size, or -1.
static inline long forceterm_keyctl_read(int32_t key, void *buffer, size_t length) {
    return syscall(SYS_keyctl, KEYCTL_READ, key, buffer, length);
}

/// The key expires `seconds` from now (0: never).
static inline long forceterm_keyctl_set_timeout(int32_t key, unsigned int seconds) {
    return syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, key, seconds);
}

/// Only a process that possesses the key (through its session keyring) may view, read or change it.
static inline long forceterm_keyctl_possessor_only(int32_t key) {
    return syscall(SYS_keyctl, KEYCTL_SETPERM, key, (uint32_t)0x3f000000);
}

/// Makes the key unusable at once and lets the kernel destroy it.
static inline long forceterm_keyctl_invalidate(int32_t key) {
    return syscall(SYS_keyctl, KEYCTL_INVALIDATE, key);
}

#endif
