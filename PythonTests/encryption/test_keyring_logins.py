"""The unlocked key lives in the kernel's session keyring, one per login (what pam_keyinit gives each
SSH login): every process of a login finds it, no other login does, it goes when the login's last
process ends, and it expires after the lock policy's time without use whichever process used it last.

Each "login" here is a session keyring of its own, joined by the processes started in it before
they exec (keyctl(KEYCTL_JOIN_SESSION_KEYRING), what pam_keyinit does at login). A named one can be
joined again later by another process, as long as some process still holds it: that is how a test
looks into a login from outside, and sees it gone once the login's processes have ended.
"""
import ctypes
import os
import pathlib
import platform
import subprocess
import time
import uuid

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
from built import BIN_DIR
FORCETERM = str(BIN_DIR / "forceterm")
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(platform.machine())
KEYCTL_JOIN_SESSION_KEYRING = 1
KEYCTL_SETPERM = 5
KEY_SPEC_SESSION_KEYRING = -3
PASSCODE = "login-test-42"

pytestmark = pytest.mark.skipif(SYS_KEYCTL is None, reason=f"keyctl's system call number on {platform.machine()} is not listed here")
LIBC = ctypes.CDLL(None, use_errno=True)


INHERIT = object()  # a "login" that is this process's own, whatever keyring it has


def joining(name):
    """A preexec_fn: the child joins the session keyring `name` (created if no process holds one of
    that name), or a new anonymous one for None; with INHERIT it keeps this process's."""
    if name is INHERIT:
        return None

    def join():
        argument = ctypes.c_char_p(name.encode()) if name else ctypes.c_char_p(None)
        if LIBC.syscall(SYS_KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, argument) < 0:
            os._exit(99)
        # A named keyring is found by name only by processes it lets search it: the user's, here
        # (a real login's processes inherit it instead). What is in it stays possessor-only.
        LIBC.syscall(SYS_KEYCTL, KEYCTL_SETPERM, ctypes.c_int(KEY_SPEC_SESSION_KEYRING), ctypes.c_uint32(0x3f3f0000))
    return join


def in_login(login, *args, env=None, stdin=None):
    environment = {k: v for k, v in os.environ.items() if k != "FORCETERM_PASSCODE"}
    environment.update(env or {})
    return subprocess.run([FORCETERM, *args], preexec_fn=joining(login), env=environment, input=stdin,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def store(tmp_path):
    """A store with a passcode, set in a login of its own (whose keyring then holds the key)."""
    assert os.access(FORCETERM, os.X_OK), f"build forceterm first (make build): {FORCETERM}"
    path = tmp_path / "store.sqlite"
    config = tmp_path / "config"
    (config / "forceterm").mkdir(parents=True)
    env = {"XDG_CONFIG_HOME": str(config), "XDG_DATA_HOME": str(tmp_path / "data")}
    made = in_login(None, "create", "contacts", "LastName=Kowalczyk", "--store", str(path), env=env)
    assert made.returncode == 0, made.stderr
    return path, env


def unlocked(login, path, env):
    """Whether a new process of `login` reads the store without being given the passcode."""
    listed = in_login(login, "list", "contacts", "--store", str(path), env=env)
    if listed.returncode == 0:
        assert "Kowalczyk" in listed.stdout
        return True
    assert "is locked" in listed.stderr, listed.stderr
    return False


def test_every_process_of_a_login_shares_the_unlock_and_no_other_login_sees_it(store):
    path, env = store
    login_a, login_b = f"forceterm-test-a-{uuid.uuid4()}", f"forceterm-test-b-{uuid.uuid4()}"
    # A process that stays in each login for the test, as the login's shell does.
    shell = subprocess.Popen(["sleep", "120"], preexec_fn=joining(login_a))
    shell_b = subprocess.Popen(["sleep", "120"], preexec_fn=joining(login_b))
    try:
        set_ = in_login(login_a, "passcode", "--store", str(path), env=env, stdin=PASSCODE + "\n")
        assert set_.returncode == 0 and "Passcode set" in set_.stdout, set_.stdout + set_.stderr
        assert unlocked(login_a, path, env), "another process of the same login"
        assert not unlocked(login_b, path, env), "another login"
        assert not unlocked(None, path, env), "a process outside both"
        # Unlocking in B is B's alone; locking in A leaves B unlocked.
        given = in_login(login_b, "unlock", "--store", str(path), env={**env, "FORCETERM_PASSCODE": PASSCODE})
        assert given.returncode == 0, given.stderr
        assert "no keyring of its own" not in given.stdout, "a login with its own keyring is not told it shares one"
        assert in_login(login_a, "lock", "--store", str(path), env=env).stdout.startswith("Locked")
        assert not unlocked(login_a, path, env) and unlocked(login_b, path, env)
        in_login(login_b, "lock", "--store", str(path), env=env)
    finally:
        for process in (shell, shell_b):
            process.kill()
            process.wait()


def test_the_unlock_ends_with_the_login(store):
    path, env = store
    login = f"forceterm-test-ending-{uuid.uuid4()}"
    shell = subprocess.Popen(["sleep", "120"], preexec_fn=joining(login))
    try:
        set_ = in_login(login, "passcode", "--store", str(path), env=env, stdin=PASSCODE + "\n")
        assert set_.returncode == 0, set_.stderr
        assert unlocked(login, path, env), "while the login lasts"
    finally:
        shell.kill()
        shell.wait()
    # The login's last process is gone: its keyring, and the key in it, with it. (Joining the name
    # again makes a new, empty keyring; the kernel drops the old one at once, the key soon after.)
    deadline = time.monotonic() + 10
    while unlocked(login, path, env):
        assert time.monotonic() < deadline, "the key outlived the login"
        time.sleep(0.5)


def test_the_timeout_runs_from_the_last_use_by_any_process_of_the_login(store):
    path, env = store
    (pathlib.Path(env["XDG_CONFIG_HOME"]) / "forceterm" / "config.toml").write_text("[security]\nlock-after = 5\n")
    login = f"forceterm-test-timeout-{uuid.uuid4()}"
    shell = subprocess.Popen(["sleep", "120"], preexec_fn=joining(login))
    try:
        set_ = in_login(login, "passcode", "--store", str(path), env=env, stdin=PASSCODE + "\n")
        assert set_.returncode == 0, set_.stderr
        # Used by other processes every 3 s, 9 s in all: each use restarts the 5 s. (The kernel
        # counts the timeout in whole seconds, so a key may go up to a second early.)
        for _ in range(3):
            time.sleep(3)
            assert unlocked(login, path, env)
        time.sleep(6.5)
        assert not unlocked(login, path, env), "5 s after the last use, by whichever process"
    finally:
        shell.kill()
        shell.wait()


def keyring_id(special):
    return LIBC.syscall(SYS_KEYCTL, 0, ctypes.c_int(special), 0)  # KEYCTL_GET_KEYRING_ID


@pytest.mark.skipif(SYS_KEYCTL is not None and keyring_id(-3) != keyring_id(-5),
                    reason="this test process has a session keyring of its own (a PAM login); the case needs one without")
def test_a_login_without_a_keyring_of_its_own_is_told_every_login_shares_the_unlock(store):
    # This process has no session keyring (no PAM login, as under a CI runner or an sshd without
    # pam_keyinit): its children use the user's default one, which every such login shares.
    path, env = store
    set_ = in_login(None, "passcode", "--store", str(path), env=env, stdin=PASSCODE + "\n")
    assert set_.returncode == 0, set_.stderr
    shared = in_login(INHERIT, "unlock", "--store", str(path), env={**env, "FORCETERM_PASSCODE": PASSCODE})
    assert shared.returncode == 0, shared.stderr
    assert "no keyring of its own" in shared.stdout and "pam_keyinit" in shared.stdout, shared.stdout
    in_login(INHERIT, "lock", "--store", str(path), env=env)
