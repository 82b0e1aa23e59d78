"""Answers of identical calls, kept per creative (seed 000 §8.2): a model call or a retrieval query asked
again with exactly the same request — within a run (a review round that sends the same question back) or
across the revisions of one creative (a full redo searching the same notes) — is answered from here.

The key is the whole request (`CallCache.key`: a hash of every part, in order), so anything that changes the
answer changes the key. Each cache is bounded (least recently used entries go first) and so is the number
of creatives kept (`CallCaches`); both live in the process, so a restart starts empty. A call the user
asked to be done again — a rewrite, a redo, a regeneration — does not read the cache (`fresh` at the call
site), but what it answers is stored, so the newest answer is the one a later identical call gets. Hits
are counted in the run's usage (`tools.llm.UsageMeter`, `cacheHits` per task).

Values are kept as deep copies and handed out as deep copies: a caller that changes what it got never
changes what the next caller gets.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any

MAX_ENTRIES = 256  # answers per creative
MAX_SCOPES = 64  # creatives whose caches are kept


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else str(value)


class CallCache:
    """One creative's answers, the `max_entries` most recently used."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(*parts: Any) -> str:
        """The request's key: a hash of all its parts (JSON, keys sorted; models as their JSON)."""
        text = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=_plain)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, key: str) -> tuple[bool, Any]:
        """(True, a copy of the answer) for a known key, else (False, None)."""
        with self._lock:
            if key not in self._entries:
                self.misses += 1
                return False, None
            self._entries.move_to_end(key)
            self.hits += 1
            value = self._entries[key]
        return True, copy.deepcopy(value)

    def put(self, key: str, value: Any) -> None:
        kept = copy.deepcopy(value)
        with self._lock:
            self._entries[key] = kept
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


class CallCaches:
    """A `CallCache` per creative, for the `max_scopes` creatives used most recently."""

    def __init__(self, max_scopes: int = MAX_SCOPES, max_entries: int = MAX_ENTRIES) -> None:
        self.max_scopes = max_scopes
        self.max_entries = max_entries
        self._scopes: OrderedDict[Any, CallCache] = OrderedDict()
        self._lock = threading.Lock()

    def for_scope(self, scope: Any) -> CallCache:
        with self._lock:
            cache = self._scopes.get(scope)
            if cache is None:
                cache = self._scopes[scope] = CallCache(self.max_entries)
            self._scopes.move_to_end(scope)
            while len(self._scopes) > self.max_scopes:
                self._scopes.popitem(last=False)
            return cache
