from ui.render import HighlightSpan, highlight_html, md_escape, palette


def test_escapes_text_labels_and_tooltips():
    out = highlight_html(
        "<script>alert(1)</script> & more",
        [HighlightSpan(0, 8, "#fff", label="<b>", tooltip='"x"')],
    )
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "&lt;b&gt;" in out and "&quot;x&quot;" in out
    assert "&amp; more" in out


def test_plain_text_is_reproduced_exactly_between_tags():
    import re

    text = "alpha beta\n\ngamma delta"
    spans = [HighlightSpan(6, 15, palette(0)), HighlightSpan(12, 20, palette(1))]
    out = highlight_html(text, spans)
    body = out.split('<div class="cl-text"', 1)[1].split(">", 1)[1]
    visible = re.sub(r"<[^>]+>", "", body)
    assert visible == text


def test_overlap_is_striped_and_marked():
    out = highlight_html("0123456789", [HighlightSpan(0, 6, "#aaa"), HighlightSpan(4, 10, "#bbb")])
    assert out.count("<mark") == 3
    assert "cl-overlap" in out and "repeating-linear-gradient" in out


def test_max_chars_truncates_and_says_how_much_is_left():
    out = highlight_html("x" * 100, [HighlightSpan(90, 100, "#aaa")], max_chars=50)
    assert "<mark" not in out
    assert "50 more characters" in out


def test_markdown_special_characters_are_escaped():
    text = "![px](http://host/x.png) **bold** $5 and $6 <b>"
    escaped = md_escape(text)
    assert "!\\[px\\](http\u2060://host/x.png)" in escaped
    assert "\\*\\*bold\\*\\*" in escaped and "\\$5" in escaped and "\\<b>" in escaped


def test_strip_places_bars_by_share_and_escapes_tooltips():
    from ui.render import Bar, strip_html

    out = strip_html(["<row>"], [Bar("<row>", 250, 500, "#abc", tooltip='<b>"x"</b>')], 1000,
                     axis="offset", marks=[(900, "end")], legend=[("kept", "#abc")])
    assert "left:25.000%;width:50.000%" in out and "left:90.000%" in out
    assert "&lt;row&gt;" in out and "&lt;b&gt;&quot;x&quot;&lt;/b&gt;" in out and "<b>" not in out
    assert "<span>1,000</span>" in out and "kept" in out


def test_histogram_counts_every_value_once():
    import re

    from ui.render import histogram_html

    values = [10, 11, 12, 50, 99, 100]
    out = histogram_html(values, "#abc", axis="tokens", counted="chunks", bins=3)
    counts = [int(n) for n in re.findall(r": (\d+) chunks", out)]
    assert sum(counts) == len(values) and len(counts) == 3
    assert histogram_html([], "#abc", axis="tokens", counted="chunks") == ""
