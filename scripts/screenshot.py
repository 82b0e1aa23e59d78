"""The README's screenshot of the studio, made by hand: `.venv/bin/python scripts/screenshot.py`.

It starts a real server on a scratch data dir (offline model, sample corpus), writes one request in the
studio at 1280 px through Debian's chromium, approves both checkpoints and saves the finished page as
`docs/images/studio.png` (a 128-colour PNG, 1000 px wide). Needs `make test`'s set-up (Playwright and
chromium) and an emoji font for the post's emoji (Debian: `apt-get install fonts-noto-color-emoji`).
`make test` never runs it: tests write no tracked files.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.serving import LiveServer  # noqa: E402
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, DESKTOP, _fontconfig  # noqa: E402

REQUEST = "周末去苏州平江路逛吃，写一篇攻略"
OUT = ROOT / "docs" / "images" / "studio.png"


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        server = LiveServer(Path(scratch) / "data").start(timeout=180)
        os.environ["FONTCONFIG_FILE"] = str(_fontconfig(Path(scratch) / "fonts"))
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=DESKTOP, locale="zh-CN")
                page.goto(server.url + "/")
                page.fill("#message", REQUEST)
                page.click("#start-btn")
                for kind in ("content", "image_plans"):  # approve the draft, then the image plans
                    panel = page.locator(f".checkpoint[data-kind={kind}]")
                    expect(panel).to_be_visible(timeout=120_000)
                    panel.locator("[data-action=approve]").click()
                expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=120_000)
                raw = Path(scratch) / "studio.png"
                page.screenshot(path=str(raw), full_page=False)
                browser.close()
        finally:
            server.stop()
        image = Image.open(raw).convert("RGB")
        image = image.resize((1000, round(image.height * 1000 / image.width)), Image.LANCZOS)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        image.quantize(colors=128).save(OUT, optimize=True)
        print(f"{OUT}（{OUT.stat().st_size // 1024} KB）")


if __name__ == "__main__":
    main()
