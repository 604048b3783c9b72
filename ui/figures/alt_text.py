"""Every figure's text alternative: a sentence and a table of its numbers, read from its plotly spec."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from ui.content import words

# A screen reader's table stays a table a person can walk through: wider matrices (a vector of 384 numbers per
# token) are summarised row by row, said so in the sentence.
TEXT_TABLE_COLUMNS = 40
TEXT_TABLE_CELLS = 600  # (24 × 24): a larger matrix's table is one summary line a row (and its page payload small)


def figure_text_label() -> str:
    """The text alternative's box label in the page's language."""
    return words("alt_text.box_label")


def _plain(text) -> str:
    """Plotly label text (HTML-escaped, maybe bold, with zero-width spaces) back to plain text."""
    text = str(text).replace("<br>", " ").replace("<b>", "").replace("</b>", "").replace("\u200b", "")
    return html.unescape(text).strip()


def _number(value: float) -> str:
    value = float(value)
    if not np.isfinite(value):
        return "–"
    if value.is_integer():
        return f"{value:.0f}"
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.1f}" if abs(value) >= 10 else f"{value:.3f}"


def _largest(values) -> int:
    """Index of the largest value, NaN (a masked cell, a step not run) never chosen; 0 if all are NaN."""
    values = np.asarray(values, dtype=np.float64)
    return int(np.argmax(np.where(np.isnan(values), -np.inf, values))) if values.size else 0


def _smallest(values) -> int:
    values = np.asarray(values, dtype=np.float64)
    return int(np.argmin(np.where(np.isnan(values), np.inf, values))) if values.size else 0


def _axis_name(layout: dict, axis: str, default: str) -> str:
    title = layout.get(axis, {}).get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return _plain(text) if text else default


def _figure_name(layout: dict) -> str:
    title = layout.get("title", {})
    subtitle = title.get("subtitle", {}).get("text", "")
    return _plain(title.get("text", "")) + (f" ({_plain(subtitle)})" if subtitle else "")


def _outlined_row(layout: dict) -> int | None:
    for shape in layout.get("shapes", []):
        if shape.get("type") == "rect" and shape.get("xref") == "paper" and shape.get("yref") == "y":
            return int(round(shape["y0"] + 0.5))
    return None


def _heatmap_text(trace: dict, layout: dict) -> tuple[list[str], list[list[str]], list[str]]:
    """(sentences, table header, table rows) of one heatmap."""
    z = np.asarray(trace["z"], dtype=np.float64)
    rows = [_plain(label) for label in trace.get("y", range(z.shape[0]))]
    columns = [_plain(label) for label in trace.get("x", range(z.shape[1]))]
    row_name = _axis_name(layout, "yaxis", words("alt_text.row_default"))
    column_name = _axis_name(layout, "xaxis", words("alt_text.column_default"))
    top = np.unravel_index(_largest(z), z.shape)
    low = np.unravel_index(_smallest(z), z.shape)
    said = [words("alt_text.grid", n_rows=z.shape[0], row_axis=row_name, n_columns=z.shape[1],
                  column_axis=column_name, low=_number(z[low]), high=_number(z[top]), top_row=rows[top[0]],
                  top_column=columns[top[1]])]
    outlined = _outlined_row(layout)
    if outlined is not None and 0 <= outlined < z.shape[0]:
        row = z[outlined]
        said.append(words("alt_text.outlined_row", row=rows[outlined], high=_number(row[_largest(row)]),
                          high_column=columns[_largest(row)], low=_number(row[_smallest(row)]),
                          low_column=columns[_smallest(row)]))
    if z.shape[1] > TEXT_TABLE_COLUMNS or z.size > TEXT_TABLE_CELLS:
        said.append(words("alt_text.summary_table", n_columns=z.shape[1]))
        at = words("alt_text.summary_at")
        header = [row_name, words("alt_text.summary_largest"), words("alt_text.summary_largest_at",
                  column_axis=column_name), words("alt_text.summary_second"), at,
                  words("alt_text.summary_smallest"), at]
        body = []
        for r in range(z.shape[0]):
            first = _largest(z[r])
            second = _largest(np.where(np.arange(z.shape[1]) == first, np.nan, z[r]))
            low = _smallest(z[r])
            body.append([rows[r], _number(z[r][first]), columns[first], _number(z[r][second]), columns[second],
                         _number(z[r][low]), columns[low]])
    else:
        header = [row_name] + columns
        body = [[rows[r]] + [_number(v) for v in z[r]] for r in range(z.shape[0])]
    return said, header, body


def _panels_text(traces: list[dict], layout: dict) -> tuple[list[str], list[list[str]], list[str]]:
    """Small multiples: per panel its strongest cell; the table names each row's strongest column per panel."""
    names = [_plain(a.get("text", "")) for a in layout.get("annotations", [])]
    names = [name.split(":")[0] or words("alt_text.panel_default", number=i) for i, name in enumerate(names)] + \
        [words("alt_text.panel_default", number=i) for i in range(len(names), len(traces))]
    said = [words("alt_text.panels", n=len(traces), names=", ".join(names[:len(traces)]))]
    strongest = []
    for name, trace in zip(names, traces):
        z = np.asarray(trace["z"], dtype=np.float64)
        rows, columns = [_plain(t) for t in trace["y"]], [_plain(t) for t in trace["x"]]
        r, c = np.unravel_index(_largest(z), z.shape)
        strongest.append(words("alt_text.panel_strongest", name=name, value=_number(z[r, c]), row=rows[r],
                               column=columns[c]))
    said.append(words("alt_text.panels_strongest", cells="; ".join(strongest)))
    said.append(words("alt_text.panels_table"))
    first = traces[0]
    header = [words("alt_text.row_default")] + names[:len(traces)]
    body = []
    for r, label in enumerate(first["y"]):
        cells = [_plain(label)]
        for trace in traces:
            row = np.asarray(trace["z"][r], dtype=np.float64)
            cells.append(f"{_plain(trace['x'][_largest(row)])} {_number(row[_largest(row)])}")
        body.append(cells)
    return said, header, body


def _series_text(traces: list[dict], layout: dict) -> tuple[list[str], list[list[str]], list[str]]:
    """Bars or lines sharing one category or number axis: one table column per series."""
    horizontal = traces[0].get("orientation") == "h"
    category_key, value_key = ("y", "x") if horizontal else ("x", "y")
    categories = [_plain(v) if not isinstance(v, (int, float, np.number)) else _number(v)
                  for v in traces[0][category_key]]
    category_name = _axis_name(layout, "yaxis" if horizontal else "xaxis", words("alt_text.item_default"))
    said = []
    names = []
    for i, trace in enumerate(traces):
        values = np.asarray(trace[value_key], dtype=np.float64)
        name = _plain(trace.get("name") or (words("alt_text.series_default", number=i + 1) if len(traces) > 1
                                            else words("alt_text.value_default")))
        names.append(name)
        top, low = _largest((values)), _smallest((values))
        said.append(words("alt_text.series", name=name, first=_number(values[0]), first_at=categories[0],
                          last=_number(values[-1]), last_at=categories[-1], high=_number(values[top]),
                          high_at=categories[top], low=_number(values[low]), low_at=categories[low]))
    header = [category_name] + names
    body = [[category] + [_number(trace[value_key][k]) for trace in traces] for k, category in enumerate(categories)]
    return said, header, body


def figure_text(fig: go.Figure) -> tuple[str, list[str], list[list[str]]]:
    """A figure in words and numbers, for a screen reader (or a student who copies them): one sentence with its
    key numbers, and the data as a table's header and rows. Read from the figure's own spec, so no figure can
    go without one; a builder whose picture is not in its traces (token_lines) puts it in layout.meta["text"]."""
    # The spec as the builders wrote it (numpy arrays, not plotly's base64 typed arrays): see the module's docstring.
    traces, layout = fig._data, fig._layout
    meta = layout.get("meta") or {}
    said, header, body = [], [], []
    heatmaps = [t for t in traces if t.get("type") == "heatmap"]
    series = [t for t in traces if t.get("type") in ("bar", "scatter") and t.get("mode") != "text"]
    tables = [t for t in traces if t.get("type") == "table"]
    if isinstance(meta, dict) and meta.get("text"):
        said, header, body = list(meta["text"]["said"]), meta["text"]["header"], meta["text"]["rows"]
    elif len(heatmaps) > 1:
        said, header, body = _panels_text(heatmaps, layout)
    elif heatmaps:
        said, header, body = _heatmap_text(heatmaps[0], layout)
        if series:  # query_meets_keys: the heatmap's rows summed, as bars beside it
            more, bar_header, bar_body = _series_text(series, layout)
            said += more
            if len(header) > len(bar_header):
                header = header + bar_header[1:]
                body = [row + extra[1:] for row, extra in zip(body, bar_body)]
    elif series:
        said, header, body = _series_text(series, layout)
    elif tables:
        table = tables[0]
        header = [_plain(h) for h in table["header"]["values"]]
        columns = table["cells"]["values"]
        body = [[_plain(column[r]) for column in columns] for r in range(len(columns[0]))]
        said = [words("alt_text.table", n_rows=len(body), n_columns=len(header), columns=", ".join(header))]
        try:
            last = np.array([float(row[-1]) for row in body])
            top = _largest(last)
            said.append(words("alt_text.table_largest", column=header[-1], value=body[top][-1], row=body[top][0]))
        except ValueError:  # a column of words
            pass
    name = _figure_name(layout)
    return (f"{name}. " if name else "") + " ".join(said), header, body


def figure_text_html(fig: go.Figure) -> str:
    """figure_text as HTML: a paragraph and a table. Every piece of text is escaped (tokens are user text)."""
    sentence, header, body = figure_text(fig)
    esc = lambda text: html.escape(str(text))  # noqa: E731
    head = "".join(f"<th scope=\"col\">{esc(h)}</th>" for h in header)
    rows = "".join("<tr>" + (f"<th scope=\"row\">{esc(row[0])}</th>" if row else "") +
                   "".join(f"<td>{esc(cell)}</td>" for cell in row[1:]) + "</tr>" for row in body)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>" if header else ""
    return f'<div class="figure-text"><p>{esc(sentence)}</p>{table}</div>'
