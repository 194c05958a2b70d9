"""The screenshots of ``mlcost ui`` in docs/ (README and docs/ui.md show them): the three
questions in headless Chromium, saved as PNG and reduced to a 256-colour palette (Pillow, which
matplotlib already needs) to keep them small.

Run: ``.venv/bin/python scripts/ui_screenshots.py`` (about 20 s; needs the dev extra and the
browser that scripts/test.sh installs)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from mlcost.ui.testing import browser, running_ui

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: Question -> (query string, what to open before the shot).
SHOTS = {
    "train": ("?q=train&gpu=h100-sxm5-80gb&gpus=64&tokens=1e11", "compare"),
    "serve": ("?q=serve&model=llama-3-70b&gpu=h200-sxm-141gb&tpsrv=2&ttft=500&tpot=50", ""),
    "fit": ("?q=fit&model=llama-3-8b&gpu=rtx-4090&seq=2048&mode=lora", "compare"),
}


def main() -> None:
    with running_ui() as address, browser(width=1280, height=1500) as page:
        for question, (query, opened) in SHOTS.items():
            page.open(address + query)
            if opened:
                page.driver.execute_script(f"document.getElementById('{opened}-box').open = true")
                page.wait(lambda d: d.find_elements("css selector", "#compare table"), timeout=120)
            target = DOCS / f"ui-{question}.png"
            page.screenshot(target)
            with Image.open(target) as shot:
                small = shot.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
                small.save(target, optimize=True)
            print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
