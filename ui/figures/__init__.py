"""Every figure the app draws. Pages call these (figures.matrix_heatmap, figures.show...) and never style plotly
themselves; by kind: layout.py (what every figure shares), matrices.py (heatmaps and grids), charts.py (bars,
lines, bands), diagrams.py (two conditions side by side, a schematic), alt_text.py (each figure's text alternative), show.py (a figure on the page).

Each builder assembles a plain plotly spec (traces and layout as dicts) and wraps it once, unvalidated:
plotly's per-property validation and update_* calls cost ~20 ms per figure, which made a rerun's figures
slower than the model pass. tests/test_figures.py validates every builder's spec instead.
"""

from ui.figures.layout import (CELL_TEXT_LIMIT, DISTANCE_SCALE, EMPTY_TEMPLATE, FOCUS_FROM, FOCUS_NEIGHBOURS, HIGHLIGHT,
                     NARROW_FIGURE_PX, NARROW_SUBTITLE_CHARS, NARROW_TITLE_CHARS, PREFERENCE_SCALE, SENTENCE_CHARS,
                     SIGNED_SCALE, SUBTITLE_CHARS, SUBTITLE_COLOUR, TEACHING_CELL_TEXT_LIMIT, TEACHING_SUBTITLE_CHARS,
                     TICK_COLOUR, TITLE_LINE_CHARS, TOOLBAR_BAND, WEIGHTS_SCALE, axis_labels, figure_title, focus_rows,
                     font_sizes, split_title, title_block_height, title_lines, values_fit)
from ui.figures.matrices import (SLIDE_FIGURE_WIDTH, layer_head_grid, matrix_heatmap, on_a_phone, query_meets_keys,
                       similarity_map, small_multiples, softmax_table, weight_grid)
from ui.figures.charts import (BAND_COLOURS, MAX_MARKED_POINTS, band_panels, compare_bars, line_chart, marker_bars,
                              row_bars, token_lines)
from ui.figures.diagrams import attention_history, paired_bar_panels
from ui.figures.alt_text import (TEXT_TABLE_CELLS, TEXT_TABLE_COLUMNS, figure_text, figure_text_html,
                                 figure_text_label)
from ui.figures.meaning_map import word_map_frames
from ui.figures.predict import answers_hidden, hidden_text
from ui.figures.show import FIT_CELL_TEXT_HTML, SLIDE_EXPORT_HEIGHT, SVG_EXPORT_HTML, download_config, figure_filename, show

__all__ = [
    "CELL_TEXT_LIMIT", "DISTANCE_SCALE", "EMPTY_TEMPLATE", "FOCUS_FROM", "FOCUS_NEIGHBOURS", "HIGHLIGHT",
    "NARROW_FIGURE_PX", "NARROW_SUBTITLE_CHARS", "NARROW_TITLE_CHARS", "PREFERENCE_SCALE", "SENTENCE_CHARS",
    "SIGNED_SCALE", "SUBTITLE_CHARS", "SUBTITLE_COLOUR", "TEACHING_CELL_TEXT_LIMIT", "TEACHING_SUBTITLE_CHARS",
    "TICK_COLOUR", "TITLE_LINE_CHARS", "TOOLBAR_BAND", "WEIGHTS_SCALE", "axis_labels", "figure_title", "focus_rows",
    "font_sizes", "split_title", "title_block_height", "title_lines", "values_fit", "SLIDE_FIGURE_WIDTH",
    "layer_head_grid", "matrix_heatmap", "on_a_phone", "query_meets_keys", "similarity_map", "small_multiples",
    "softmax_table", "weight_grid", "BAND_COLOURS", "MAX_MARKED_POINTS", "band_panels", "compare_bars",
    "line_chart", "marker_bars", "row_bars", "token_lines", "attention_history", "paired_bar_panels", "TEXT_TABLE_CELLS", "TEXT_TABLE_COLUMNS",
    "figure_text", "figure_text_html", "FIT_CELL_TEXT_HTML", "SLIDE_EXPORT_HEIGHT", "SVG_EXPORT_HTML",
    "download_config", "figure_filename", "show", "answers_hidden", "word_map_frames",
    "figure_text_label", "hidden_text",
]
