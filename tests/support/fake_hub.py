"""A local Hugging Face Hub for ``docfleet export --push`` (``HF_ENDPOINT`` pointed at it;
never the real hub): the routes ``huggingface_hub`` calls to create a dataset repo and
commit files to it — ``POST /api/repos/create``, ``POST /api/datasets/<repo>/preupload/
<rev>`` (data shards through LFS, the rest inline), the LFS batch API with ``basic``
uploads to ``PUT /lfs-upload/<oid>``, ``POST /api/datasets/<repo>/commit/<rev>`` (the
NDJSON commit), the repo's info, tree and paths-info, and file downloads
(``/datasets/<repo>/resolve/<rev>/<path>``) and the card's YAML check. Committed files
are kept in :attr:`repos` (repo → path → bytes); :attr:`tokens` holds every bearer token
it was sent. The client must use LFS, not Xet (``HF_HUB_DISABLE_XET=1``)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

from support.fake_http import FakeHTTPServer, Reply, Request, error_reply

_REPO = r"(?P<repo>[^/]+/[^/]+)"


class FakeHub(FakeHTTPServer):
    """The fake Hub (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.repos: dict[str, dict[str, bytes]] = {}
        self.tokens: set[str] = set()
        self.commits = 0
        #: LFS objects uploaded, by sha256
        self.lfs: dict[str, bytes] = {}

    @staticmethod
    def _mode(path: str) -> str:
        """How a file is uploaded: data shards through LFS (as the Hub asks), the rest
        inline."""
        return "lfs" if path.endswith((".parquet", ".arrow")) else "regular"

    def _sha(self, repo: str) -> str:
        return hashlib.sha1(f"{repo}/{self.commits}".encode()).hexdigest()

    def _info(self, repo: str) -> dict[str, Any]:
        return {"id": repo, "_id": repo, "sha": self._sha(repo), "private": False,
                "siblings": [{"rfilename": p} for p in sorted(self.repos[repo])],
                "tags": [], "downloads": 0, "likes": 0, "cardData": {}}

    def handle(self, request: Request) -> Reply | None:
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer "):
            with self.lock:
                self.tokens.add(auth.removeprefix("Bearer "))
        route = request.route
        if request.method == "POST" and route == "/api/repos/create":
            body = request.json()
            repo = f"{body.get('organization') or 'user'}/{body['name']}"
            with self.lock:
                self.repos.setdefault(repo, {})
            return Reply(200, {"url": f"{self.url}/datasets/{repo}", "name": repo})
        if request.method == "POST" and route == "/api/validate-yaml":
            return Reply(200, {"errors": [], "warnings": []})
        if m := re.fullmatch(rf"/api/datasets/{_REPO}/preupload/(?P<rev>[^/]+)", route):
            files = request.json().get("files", [])
            return Reply(200, {"files": [{"path": f["path"], "uploadMode": self._mode(f["path"]),
                                          "shouldIgnore": False} for f in files],
                               "commitOid": self._sha(m["repo"])})
        if m := re.fullmatch(rf"/datasets/{_REPO}\.git/info/lfs/objects/batch", route):
            objects = request.json().get("objects", [])
            return Reply(200, {"transfer": "basic", "objects": [
                {"oid": o["oid"], "size": o["size"], "authenticated": True,
                 "actions": {"upload": {"href": f"{self.url}/lfs-upload/{o['oid']}"}}}
                for o in objects]}, "application/vnd.git-lfs+json")
        if m := re.fullmatch(r"/lfs-upload/(?P<oid>[0-9a-f]+)", route):
            if hashlib.sha256(request.body).hexdigest() != m["oid"]:
                return error_reply(400, "LFS object does not match its oid")
            with self.lock:
                self.lfs[m["oid"]] = request.body
            return Reply(200, {})
        if m := re.fullmatch(rf"/api/datasets/{_REPO}/commit/(?P<rev>[^/]+)", route):
            return self._commit(m["repo"], request.body)
        if m := re.fullmatch(rf"/api/datasets/{_REPO}(?:/revision/(?P<rev>[^/]+))?", route):
            if m["repo"] not in self.repos:
                return Reply(404, {"error": "Repository not found"},
                             headers={"X-Error-Code": "RepoNotFound"})
            return Reply(200, self._info(m["repo"]))
        if m := re.fullmatch(rf"/api/datasets/{_REPO}/paths-info/(?P<rev>[^/]+)", route):
            files = self.repos.get(m["repo"], {})
            raw = request.body.decode()
            paths = (json.loads(raw).get("paths", []) if raw.startswith("{")
                     else re.findall(r"paths=([^&]+)", raw))
            return Reply(200, [{"type": "file", "path": p, "size": len(files[p]),
                                "oid": hashlib.sha1(files[p]).hexdigest()}
                               for p in paths if p in files])
        if m := re.fullmatch(rf"/api/datasets/{_REPO}/tree/(?P<rev>[^/]+)(?P<sub>/.*)?",
                             route):
            return self._tree(m["repo"], (m["sub"] or "").strip("/"),
                              "recursive=true" in request.path)
        if m := re.fullmatch(rf"/datasets/{_REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)", route):
            data = self.repos.get(m["repo"], {}).get(m["path"])
            if data is None:
                return Reply(404, {"error": "Entry not found"},
                             headers={"X-Error-Code": "EntryNotFound"})
            etag = {"ETag": f'"{hashlib.sha1(data).hexdigest()}"',
                    "X-Repo-Commit": self._sha(m["repo"])}
            if request.method == "HEAD":
                return Reply(200, b"", "application/octet-stream", etag)
            return Reply(200, data, "application/octet-stream", etag)
        return error_reply(404, f"no route {request.method} {route}")

    def _tree(self, repo: str, sub: str, recursive: bool) -> Reply:
        """The entries under folder ``sub`` (404 ``EntryNotFound`` for none, as the Hub)."""
        prefix = f"{sub}/" if sub else ""
        entries: dict[str, dict[str, Any]] = {}
        for path, data in sorted(self.repos.get(repo, {}).items()):
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix):]
            if "/" in rest and not recursive:
                folder = prefix + rest.split("/", 1)[0]
                entries[folder] = {"type": "directory", "path": folder, "oid": "0" * 40,
                                   "size": 0}
            else:
                entries[path] = {"type": "file", "path": path, "size": len(data),
                                 "oid": hashlib.sha1(data).hexdigest()}
        if sub and not entries:
            return Reply(404, {"error": f"{sub} does not exist"},
                         headers={"X-Error-Code": "EntryNotFound"})
        return Reply(200, list(entries.values()))

    def _commit(self, repo: str, body: bytes) -> Reply:
        if repo not in self.repos:
            return error_reply(404, "Repository not found")
        with self.lock:
            for line in body.decode().splitlines():
                if not line.strip():
                    continue
                op = json.loads(line)
                value = op.get("value", {})
                if op.get("key") == "file":
                    self.repos[repo][value["path"]] = base64.b64decode(value["content"])
                elif op.get("key") == "deletedFile":
                    self.repos[repo].pop(value["path"], None)
                elif op.get("key") == "lfsFile":
                    if value["oid"] not in self.lfs:
                        return error_reply(400, f"LFS object of {value['path']} not uploaded")
                    self.repos[repo][value["path"]] = self.lfs[value["oid"]]
            self.commits += 1
            sha = self._sha(repo)
        return Reply(200, {"commitUrl": f"{self.url}/datasets/{repo}/commit/{sha}",
                           "commitOid": sha, "success": True})
