// A small C shim over ncursesw for Swift: ncurses exposes much of its API as macros and mutable
// globals (stdscr, LINES, COLOR_PAIR, A_BOLD, KEY_F), which Swift cannot import or, under strict
// concurrency, should not touch directly. Each helper here is a one-line static inline function.
#ifndef FORCETERM_CNCURSESW_SHIM_H
#define FORCETERM_CNCURSESW_SHIM_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/// Takes the locale from the environment (LANG / LC_ALL) so ncursesw reads and writes UTF-8.
static inline int cnc_set_locale_from_environment(void) { return setlocale(LC_ALL, "") != NULL; }

/// Whether the locale in force writes UTF-8 (LANG=C over SSH does not: ncursesw then draws every
/// other character as a blank).
static inline int cnc_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

/// Starts ncurses on stdin/stdout like initscr, but returns 0 instead of exiting the process when
/// TERM names no known terminal, so the caller can restore state and report the problem itself.
static inline int cnc_start_terminal(void) {
    SCREEN *screen = newterm(NULL, stdout, stdin);
    if (screen == NULL) return 0;
    set_term(screen);
    return 1;
}

static inline WINDOW *cnc_standard_screen(void) { return stdscr; }
static inline int cnc_rows(void) { return LINES; }
static inline int cnc_columns(void) { return COLS; }

// Attributes and colour pairs.
static inline attr_t cnc_attribute_bold(void) { return A_BOLD; }
static inline attr_t cnc_attribute_dim(void) { return A_DIM; }
static inline attr_t cnc_attribute_reverse(void) { return A_REVERSE; }
static inline attr_t cnc_attribute_underline(void) { return A_UNDERLINE; }
static inline attr_t cnc_attribute_normal(void) { return A_NORMAL; }
static inline attr_t cnc_color_pair(int pair) { return COLOR_PAIR(pair); }

// Key codes that are function-like macros.
static inline int cnc_key_function(int number) { return KEY_F(number); }

/// The columns the C library (and so ncurses) gives one character; -1 for non-printable ones.
/// Declared here because glibc hides wcwidth unless _XOPEN_SOURCE was set before its first include.
extern int wcwidth(wchar_t character);
static inline int cnc_character_width(wchar_t character) { return wcwidth(character); }

/// Writes `count` wide characters at row `y`, column `x` with the attributes `attributes`.
static inline int cnc_put_wide(int y, int x, const wchar_t *text, int count, attr_t attributes) {
    attrset(attributes);
    return mvaddnwstr(y, x, text, count);
}

/// Reads one key as a wide character or a KEY_ code; returns OK, KEY_CODE_YES or ERR.
static inline int cnc_read_key(wint_t *key) { return get_wch(key); }

// SIGTERM / SIGHUP / SIGINT: the handler only records the signal; the event loop sees it on its next
// tick (get_wch is woken with ERR), restores the terminal and exits with the store committed.
static volatile sig_atomic_t cnc_received_signal = 0;

static void cnc_record_signal(int signal_number) { cnc_received_signal = signal_number; }

static inline void cnc_watch_quit_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cnc_record_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    // A parent (a test harness, a service manager) may have started us with these blocked.
    sigset_t quit_signals;
    sigemptyset(&quit_signals);
    sigaddset(&quit_signals, SIGTERM);
    sigaddset(&quit_signals, SIGHUP);
    sigaddset(&quit_signals, SIGINT);
    sigprocmask(SIG_UNBLOCK, &quit_signals, NULL);
}

/// The quit signal received since the last call, or 0.
static inline int cnc_take_quit_signal(void) {
    int signal_number = cnc_received_signal;
    cnc_received_signal = 0;
    return signal_number;
}

#endif
