"""The scripts, styles and icons under /static, read once at start and served from memory.

Starlette's StaticFiles reads and stats each file on a worker thread per request; under a crowd
those threads were the slowest thing the server did. The folder is small and fixed, so every
file is loaded once, compressed once (through the response cache) and looked up by exact name:
no path reaches the file system.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from arena.web.cache import Rendered, ResponseCache

LIFETIME = "public, max-age=600"
"""Unversioned names: browsers keep a file ten minutes, then revalidate it by its ETag."""


class StaticFiles:
    """The files of one folder (not its subfolders), by name."""

    def __init__(self, folder: Path, cache: ResponseCache) -> None:
        self.cache = cache
        self.files: dict[str, Rendered] = {}
        for path in sorted(folder.iterdir()):
            if path.is_file():
                kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                if kind.startswith("text/") or kind.endswith(("javascript", "+xml", "json")):
                    kind += "; charset=utf-8"
                self.files[path.name] = Rendered(
                    200, path.read_bytes(), kind, final=True, headers=(("Cache-Control", LIFETIME),)
                )

    async def endpoint(self, request: Request) -> Response:
        """The file the path names, or a 404."""
        found = self.files.get(str(request.path_params["file"]))
        if found is None:
            raise HTTPException(404)
        file = found

        async def render() -> Rendered:
            return file

        return await self.cache.serve(request, render)
