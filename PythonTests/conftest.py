"""What every suite under PythonTests/ shares: the built binaries, found one way, and localorg
started the one way its readiness is known (`serve --ready-file`). The helpers live in
`built.py` beside this file, importable from any suite (`from built import binary, serve`)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
