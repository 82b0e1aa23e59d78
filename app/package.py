"""A creative's publishing package (发布包): one version's pictures, its post text and a manifest, as a zip.

`GET /api/creatives/{id}/package.zip` (`app.http.routes.export`) and `studio export` build it here:

    01.png, 02.jpg …   the version's pictures, in the order of its image set (`asset_ids`), read through the
                       asset store; a failed or missing picture is left out and named in the manifest
    post.txt           title, blank line, body, blank line, tags as `#标签` separated by spaces — what is
                       pasted into the platform
    manifest.json      creative id, version number, what made it and when, title, tags, and per picture its
                       file name, asset id, position and role, size, sha256 and a summary of its plan

The package of one version is the same bytes every time (entries are dated with the version's time), so a
download can be checked against an earlier one. Pictures are small (a few hundred KB each, at most nine),
so the zip is built in memory, in a worker thread.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from agents.run import VersionNotFound
from tools.assets import EXTENSIONS, AssetStore
from tools.database import ROW_ID_MAX, Creative, CreativeVersion, iso
from tools.labels import label

POST_FILE = "post.txt"
MANIFEST_FILE = "manifest.json"
FORMAT = "content-studio/package"
FORMAT_VERSION = 1
TITLE_IN_NAME = 40  # characters of the title in the file name
_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#%]+')
_PLAN_KEYS = ("index", "role", "subject", "style", "layout", "palette", "background")
_OLDEST_ZIP_TIME = datetime(1980, 1, 1, tzinfo=UTC)  # zip cannot date an entry earlier

Sessions = async_sessionmaker[AsyncSession]


@dataclass(frozen=True)
class CreativeInfo:
    """What the package needs of the creative row (and the routes of its owner)."""

    id: int
    thread_id: str
    owner_id: int | None
    current_version: int


@dataclass(frozen=True)
class Package:
    """A built package: the zip's bytes, the file names to offer it under, and the manifest it holds."""

    creative_id: int
    version: int
    filename: str  # 作品12-第2版-标题.zip
    ascii_filename: str  # creative-12-v2.zip, for clients that cannot take the one above
    data: bytes
    manifest: dict[str, Any] = field(default_factory=dict)

    def content_disposition(self) -> str:
        """`attachment` with an ASCII `filename` and the Chinese one as RFC 5987 `filename*`."""
        encoded = quote(self.filename, safe="")
        return f"attachment; filename=\"{self.ascii_filename}\"; filename*=UTF-8''{encoded}"


def post_text(title: str | None, body: str | None, tags: list[Any] | None) -> str:
    """The post as the platform wants it pasted: the title line, a blank line, the body, a blank line, the
    tags as `#标签` separated by spaces (a part that is empty is left out with its blank line)."""
    heading = " ".join((title or "").split())
    words = [str(tag).strip().lstrip("#").strip() for tag in tags or []]
    hashtags = " ".join(f"#{word}" for word in words if word)
    parts = [part for part in (heading, (body or "").strip(), hashtags) if part]
    return "\n\n".join(parts) + "\n" if parts else ""


def package_filename(creative_id: int, number: int, title: str | None) -> tuple[str, str]:
    """(the file name, its ASCII stand-in): `作品12-第2版-周末露营.zip`, `creative-12-v2.zip`."""
    safe = " ".join(_UNSAFE_NAME.sub(" ", title or "").split()).strip(" .")[:TITLE_IN_NAME].strip()
    name = f"作品{creative_id}-第{number}版" + (f"-{safe}" if safe else "") + ".zip"
    return name, f"creative-{creative_id}-v{number}.zip"


async def creative_info(sessions: Sessions, creative_id: int) -> CreativeInfo | None:
    """The creative, or None when there is none with this id."""
    if not 0 < creative_id <= ROW_ID_MAX:
        return None
    async with sessions() as session:
        row = (await session.execute(
            select(Creative.thread_id, Creative.owner_id, Creative.current_version)
            .where(Creative.id == creative_id)
        )).first()
    if row is None:
        return None
    return CreativeInfo(creative_id, row.thread_id, row.owner_id, int(row.current_version or 0))


async def load_version(sessions: Sessions, creative: CreativeInfo, number: int | None) -> CreativeVersion:
    """Version `number` of the creative (None: its current one); VersionNotFound (404) when it has none."""
    wanted = creative.current_version if number is None else number
    if wanted < 1:
        raise VersionNotFound(
            f"作品 #{creative.id} 还没有完成的版本，没有可以下载的发布包", details={"version": None}
        )
    async with sessions() as session:
        version = (await session.scalars(
            select(CreativeVersion).where(
                CreativeVersion.creative_id == creative.id, CreativeVersion.number == wanted
            )
        )).first()
    if version is None:
        raise VersionNotFound(f"作品 #{creative.id} 没有第 {wanted} 版", details={"version": wanted})
    return version


def _plan_summary(plan: Any) -> dict[str, Any] | None:
    if not isinstance(plan, dict):
        return None
    return {key: plan[key] for key in _PLAN_KEYS if plan.get(key) not in (None, "", [])}


def _overlay_of(overlays: list[Any], index: int | None) -> dict[str, Any] | None:
    for overlay in overlays:
        if isinstance(overlay, dict) and overlay.get("imageIndex") == index:
            return {k: overlay[k] for k in ("headline", "lines", "caption") if overlay.get(k)}
    return None


async def build_package(assets: AssetStore, creative: CreativeInfo, version: CreativeVersion) -> Package:
    """The zip of `version`: its pictures (read through the asset store), post.txt and manifest.json."""
    ids = list(version.asset_ids or [])
    plans = list(version.image_plans or [])
    overlays = list(version.overlay_plan or [])
    paired = len(plans) == len(ids)  # plans[k] belongs to ids[k] (the same order, as a restore assumes)
    found: list[tuple[int, Any, Any]] = []  # (position, record, path)
    missing: list[dict[str, Any]] = []
    for position, asset_id in enumerate(ids, start=1):
        record = await assets.get(asset_id) if isinstance(asset_id, int) else None
        located = await assets.open_path(asset_id) if record is not None and record.ok else None
        if record is None or located is None:
            reason = "图片生成失败" if record is not None and not record.ok else "图片文件缺失"
            missing.append({"index": position, "assetId": asset_id, "reason": reason})
            continue
        found.append((position, record, located[0]))

    def plan_for(position: int, task_index: int | None) -> Any:
        if paired:
            return plans[position - 1]
        return next((p for p in plans if isinstance(p, dict) and p.get("index") == task_index), None)

    images: list[dict[str, Any]] = []
    for number, (position, record, _path) in enumerate(found, start=1):
        plan = plan_for(position, record.task_index)
        overlay = _overlay_of(overlays, plan.get("index") if isinstance(plan, dict) else record.task_index)
        images.append({
            "file": f"{number:02d}.{EXTENSIONS.get(record.mime, 'bin')}",
            "assetId": record.id,
            "index": position,
            "taskIndex": record.task_index,
            "role": record.role,
            "roleLabel": label("role", record.role),
            "mime": record.mime,
            "width": record.width,
            "height": record.height,
            "plan": _plan_summary(plan),
            **({"overlay": overlay} if overlay else {}),
        })
    review = version.review if isinstance(version.review, dict) else {}
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "formatVersion": FORMAT_VERSION,
        "creativeId": creative.id,
        "threadId": creative.thread_id,
        "version": version.number,
        "currentVersion": creative.current_version,
        "source": version.source,
        "sourceLabel": label("versionSource", version.source),
        "actor": version.actor,
        "basedOn": version.based_on,
        "restoredFrom": version.restored_from,
        "createdAt": iso(version.created_at),
        "title": version.title or "",
        "tags": list(version.tags or []),
        "score": review.get("overall"),
        "post": POST_FILE,
        "images": images,
        "missing": missing,
    }
    post = post_text(version.title, version.body, version.tags)
    created = version.created_at if version.created_at.tzinfo else version.created_at.replace(tzinfo=UTC)
    paths = [path for _position, _record, path in found]
    data = await asyncio.to_thread(_zip, paths, images, post, manifest, max(created, _OLDEST_ZIP_TIME))
    name, ascii_name = package_filename(creative.id, version.number, version.title)
    return Package(creative.id, version.number, name, ascii_name, data, manifest)


def _zip(
    paths: list[Any], images: list[dict[str, Any]], post: str, manifest: dict[str, Any], when: datetime
) -> bytes:
    """Read the pictures (their sha256 and size go into the manifest) and write the zip: pictures stored
    as they are (already compressed), the text files deflated; every entry dated `when` (UTC)."""
    stamp = when.astimezone(UTC).timetuple()[:6]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:

        def add(name: str, payload: bytes, method: int) -> None:
            entry = zipfile.ZipInfo(name, date_time=stamp)
            entry.compress_type = method
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, payload)

        for path, image in zip(paths, images, strict=True):
            payload = path.read_bytes()
            image["bytes"] = len(payload)
            image["sha256"] = hashlib.sha256(payload).hexdigest()
            add(image["file"], payload, zipfile.ZIP_STORED)
        add(POST_FILE, post.encode("utf-8"), zipfile.ZIP_DEFLATED)
        text = json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
        add(MANIFEST_FILE, text.encode("utf-8"), zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
