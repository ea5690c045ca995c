"""How the CI formats name a file: as the checkout's workflow sees it."""
from __future__ import annotations

import os


def workspace_path(path: str) -> str:
    """Relative to the working directory (the checkout, in a workflow) when under it: annotations
    attach to repository-relative paths."""
    if not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative == ".." or relative.startswith(".." + os.sep) else relative
