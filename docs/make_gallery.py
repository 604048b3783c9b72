"""Screenshot every page in headless Chromium into docs/gallery/ (the images the README shows).

    python docs/make_gallery.py
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools.browser import PAGES, chromium, streamlit_server, wait_for_page  # noqa: E402

OUT = ROOT / "docs" / "gallery"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    with streamlit_server() as (url, _process, _seconds), chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url)
        wait_for_page(page)  # warm the model once
        for name, path in PAGES.items():
            page.goto(f"{url}/{path}")
            wait_for_page(page, figures=name not in ("quiz", "glossary"))
            page.screenshot(path=str(OUT / f"{name}.png"))
            print("wrote", OUT / f"{name}.png")
        page.goto(f"{url}/step3_softmax?teach=true&special=true")
        wait_for_page(page)
        page.screenshot(path=str(OUT / "teaching_mode.png"))
        print("wrote", OUT / "teaching_mode.png")


if __name__ == "__main__":
    main()
