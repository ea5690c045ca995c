"""scopelint's version, from the installed distribution (the one place it is written is pyproject.toml)."""
from __future__ import annotations

from importlib import metadata

try:
    VERSION = metadata.version("scopelint")
except metadata.PackageNotFoundError:  # imported from a checkout that was never installed
    VERSION = "0+unknown"
