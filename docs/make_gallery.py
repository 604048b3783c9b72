"""Screenshot every page in headless Chromium into docs/gallery/ (the images the README shows).

    python docs/make_gallery.py
    python docs/make_gallery.py --walkthrough   # only walkthrough.png

Every page is shot twice: normal (`<page>.png`) and in teaching mode (`<page>_teaching.png`, the slide a
teacher would project), plus `teaching_mode.png` for the README. The page icons are emoji: the machine needs
an emoji font or they come out as empty boxes — on Debian `apt-get install -y fonts-noto-color-emoji`
(.ci/run installs it with Chromium).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools.browser import (PAGES, animated_chart, chromium, click_tick, show_walkthrough,  # noqa: E402
                              streamlit_server, wait_for_page)

OUT = ROOT / "docs" / "gallery"
# Pages whose top is only their inputs: shot from the heading of what they measure.
SHOT_FROM = {"meaning": "Layer by layer"}
EMOJI_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")


# The walk-through's gallery frame: "bank" by the river, a head that spreads its attention (layer 1, head 4 as the
# pages count; a link keeps the code's numbers, from 0), stopped on the first share of step 4, where both panels
# carry numbers.
WALKTHROUGH_LINK = "?sentence=I+sat+on+the+river+bank+and+watched+the+water.&layer=0&head=3&token=5"
WALKTHROUGH_FRAME = "Step 4 of 4"


def walkthrough_frame(browser, url) -> None:
    """docs/gallery/walkthrough.png: one frame of “Play the four steps”, the figure alone."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/{WALKTHROUGH_LINK}")
    wait_for_page(page)
    show_walkthrough(page)
    chart, rail, ticks = animated_chart(page)
    heading = "() => document.querySelector('.slider-container').closest('.js-plotly-plot')" \
              ".querySelector('.annotation-text').textContent"
    for number in range(ticks.count()):  # the first frame of the step
        click_tick(page, rail, ticks, number)
        page.wait_for_function(f"() => ({heading})().includes('({number + 1}/')")
        if WALKTHROUGH_FRAME in page.evaluate(heading):
            break
    page.mouse.move(0, 0)  # no toolbar, no hover label
    page.wait_for_timeout(400)
    chart.screenshot(path=str(OUT / "walkthrough.png"))
    print("wrote", OUT / "walkthrough.png")
    page.close()


def main():
    if "--walkthrough" in sys.argv[1:]:
        with streamlit_server() as (url, _process, _seconds), chromium() as browser:
            walkthrough_frame(browser, url)
        return
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
                if name in SHOT_FROM:
                    heading = page.get_by_role("heading", name=SHOT_FROM[name]).first
                    heading.evaluate("e => e.scrollIntoView({block: 'start'})")
                    page.wait_for_timeout(500)
                page.screenshot(path=str(OUT / f"{name}{suffix}.png"))
                print("wrote", OUT / f"{name}{suffix}.png")
        page.set_viewport_size({"width": 1280, "height": 720})  # a 16:9 slide
        page.goto(f"{url}/step3_softmax?teach=true&special=true")
        wait_for_page(page)
        page.screenshot(path=str(OUT / "teaching_mode.png"))
        print("wrote", OUT / "teaching_mode.png")
        walkthrough_frame(browser, url)


if __name__ == "__main__":
    main()
