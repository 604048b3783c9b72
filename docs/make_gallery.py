"""Screenshot every page in headless Chromium into docs/gallery/ (the images the README shows).

    python docs/make_gallery.py

Every page is shot twice: normal (`<page>.png`) and in teaching mode (`<page>_teaching.png`, the slide a
teacher would project), plus `teaching_mode.png` for the README. The page icons are emoji: the machine needs
an emoji font or they come out as empty boxes — on Debian `apt-get install -y fonts-noto-color-emoji`
(.ci/run installs it with Chromium).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools.browser import PAGES, chromium, streamlit_server, wait_for_page  # noqa: E402

OUT = ROOT / "docs" / "gallery"
EMOJI_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")


def main():
    if not EMOJI_FONT.exists():
        print(f"warning: {EMOJI_FONT} is missing, page icons will be boxes "
              "(apt-get install -y fonts-noto-color-emoji)", file=sys.stderr)
    OUT.mkdir(parents=True, exist_ok=True)
    with streamlit_server() as (url, _process, _seconds), chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url)
        wait_for_page(page)  # warm the model once
        for name, path in PAGES.items():
            for suffix, query in (("", ""), ("_teaching", "?teach=true")):
                page.goto(f"{url}/{path}{query}")
                wait_for_page(page, figures=name not in ("quiz", "glossary"))
                page.screenshot(path=str(OUT / f"{name}{suffix}.png"))
                print("wrote", OUT / f"{name}{suffix}.png")
        page.set_viewport_size({"width": 1280, "height": 720})  # a 16:9 slide
        page.goto(f"{url}/step3_softmax?teach=true&special=true")
        wait_for_page(page)
        page.screenshot(path=str(OUT / "teaching_mode.png"))
        print("wrote", OUT / "teaching_mode.png")


if __name__ == "__main__":
    main()
