"""A process's output read line by line in a thread, so that a test can wait for a line with a
time limit while the process prints nothing."""
import queue
import re
import threading
import time


class Output:
    """A process's output lines, read by a thread so a wait can time out while it prints nothing."""

    def __init__(self, process):
        self.process = process
        self.lines = []
        self.queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.queue.put(line)
        self.queue.put(None)

    def _lines(self, timeout):
        """Lines not read yet, each as it comes, until the output closes or `timeout` passes."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                line = self.queue.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                return
            if line is None:
                return
            self.lines.append(line)
            yield line

    def wait_for(self, pattern, timeout=60):
        """The first match of `pattern` in a line not read yet; fails with everything read so far."""
        for line in self._lines(timeout):
            match = re.search(pattern, line)
            if match:
                return match
        raise AssertionError(f"no line matching {pattern!r} within {timeout} s:\n{''.join(self.lines)}")

    def settle(self, quiet=0.5):
        """Reads every line already printed: returns once none came for `quiet` seconds."""
        while True:
            try:
                line = self.queue.get(timeout=quiet)
            except queue.Empty:
                return self.lines
            if line is None:
                self.queue.put(None)
                return self.lines
            self.lines.append(line)

    def rest(self, timeout=30):
        """Every line until the process has ended and its output closed."""
        for _ in self._lines(timeout):
            pass
        return self.lines
