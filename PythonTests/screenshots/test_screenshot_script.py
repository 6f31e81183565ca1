"""Runs `scripts/screenshots.sh` (the script behind `make screenshots`) against the built binaries.

The script drives `forceterm --demo` in tmux through every screen docs/tui.md shows and fails when a
screen does not appear as it expects, so running it here keeps it from going stale as the app
changes. The PNGs go to a scratch directory; the committed ones are not touched.
"""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from PIL import Image

REPO = pathlib.Path(__file__).resolve().parents[2]
from built import BIN_DIR
SHOTS = {
    "list": (120, 34), "help": (120, 34), "detail": (120, 34), "edit": (120, 34),
    "sync": (120, 34), "conflict": (120, 34), "resolve": (120, 34), "narrow-80x24": (80, 24),
}


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (make test installs it)")
def test_every_readme_screenshot_renders(tmp_path):
    for binary in ("forceterm", "localorg"):
        assert (BIN_DIR / binary).exists(), f"build {binary} first (make build)"
    env = dict(os.environ, SCREENSHOTS_OUT=str(tmp_path), TMPDIR=str(tmp_path),
               # A port of its own, so a `make screenshots` running alongside is not in the way.
               SCREENSHOTS_PORT=os.environ.get("SCREENSHOTS_TEST_PORT", "47453"))
    result = subprocess.run(["bash", str(REPO / "scripts" / "screenshots.sh"), str(BIN_DIR), sys.executable],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"screenshots.sh failed:\n{result.stdout}\n{result.stderr}"
    sizes = {}
    for name in SHOTS:
        path = tmp_path / f"{name}.png"
        assert path.exists(), f"no {name}.png:\n{result.stdout}\n{result.stderr}"
        with Image.open(path) as image:
            sizes[name] = image.size
            # Drawn text, not an empty frame: more than a handful of colours.
            assert len(image.convert("RGB").getcolors(maxcolors=1 << 16) or range(1 << 16)) > 8, f"{name}.png looks empty"
    # Every 120x34 shot has one size, and the 80x24 one is smaller in both directions.
    wide = {sizes[name] for name, cells in SHOTS.items() if cells == (120, 34)}
    assert len(wide) == 1
    (wide_w, wide_h), (narrow_w, narrow_h) = wide.pop(), sizes["narrow-80x24"]
    assert narrow_w < wide_w and narrow_h < wide_h
