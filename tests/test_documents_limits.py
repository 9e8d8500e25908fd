"""Limits checked before converting, and conversion in worker processes (time, memory, cancel,
side by side)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core.documents import convert
from core.documents.limits import MAX_CELLS, MAX_HTML_DEPTH, MAX_PARAGRAPHS
from core.documents.worker import run_in_worker, shutdown
from core.errors import ConversionError
from core.progress import Cancelled, Progress, ProgressFn
from corpora.documents import docx_bytes
from corpora.hostile import (
    deep_html,
    paragraphs_docx,
    wide_csv,
    xlsx_rows,
    zip_bomb_docx,
)

ROOT = Path(__file__).resolve().parent.parent


def test_a_worker_is_asked_when_the_app_holds_over_a_thousand_descriptors():
    """A long-running app holds many files and sockets; the worker's pipes then get numbers
    select() refuses (1024 and up)."""
    shutdown()  # the next worker is a new one, its pipes numbered after the files below
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        assert run_in_worker(sleep_then, 0, "answered", filename="many.pdf") == "answered"
    finally:
        shutdown()
        for descriptor in held:
            os.close(descriptor)


def sleep_then(seconds: float, value: str) -> str:
    """Run in a worker by the tests below."""
    time.sleep(seconds)
    return value


def steps_then(pauses: list[float], value: str, progress: ProgressFn) -> str:
    """Run in a worker by the tests below: a step of each pause's seconds, each reported."""
    for step, pause in enumerate(pauses, start=1):
        time.sleep(pause)
        progress(Progress(step, len(pauses), f"Read page {step} of {len(pauses)}"))
    return value


def hog_memory() -> int:
    """Allocate far more than a worker may (its address space is capped)."""
    blocks = [bytearray(2**28) for _ in range(64)]
    return len(blocks)


def raise_bug() -> None:
    raise KeyError("a converter bug")


@pytest.mark.parametrize(("name", "make", "says"), [
    ("many.docx", lambda: paragraphs_docx(MAX_PARAGRAPHS + 1), f"{MAX_PARAGRAPHS:,} paragraphs"),
    ("bomb.docx", zip_bomb_docx, "unpacks to 300.0 MiB, over the 100.0 MiB limit"),
    ("deep.html", lambda: deep_html(10_000), f"more than {MAX_HTML_DEPTH} deep"),
    ("rows.xlsx", lambda: xlsx_rows(MAX_CELLS // 3 + 10), f"{MAX_CELLS:,} cells"),
    ("wide.csv", lambda: wide_csv(MAX_CELLS), f"{MAX_CELLS:,} table cells"),
])
def test_files_over_a_limit_are_refused_before_converting(name, make, says):
    data = make()
    started = time.perf_counter()
    with pytest.raises(ConversionError) as caught:
        convert(data, name)
    assert says in str(caught.value) and str(caught.value).startswith(name)
    assert "\n" not in str(caught.value)
    assert time.perf_counter() - started < 10  # before: minutes of converting


def test_html_with_implied_end_tags_is_not_deep():
    rows = "".join(f"<tr><td>{i}<td>x" for i in range(2000))
    items = "".join(f"<li>{i}<p>para" for i in range(2000))
    doc = convert(f"<html><body><table>{rows}</table><ul>{items}</ul>".encode(), "flat.html")
    assert "1999" in doc.text


def test_a_worker_past_its_time_is_killed_with_one_sentence():
    with pytest.raises(ConversionError, match=r"^slow\.docx took longer than 1 s to convert"):
        run_in_worker(sleep_then, 30, "late", filename="slow.docx", timeout=1)


def test_the_time_limit_follows_the_work_each_step_under_its_own():
    run_in_worker(sleep_then, 0, "warm", filename="warm.pdf")  # a worker already started
    heard: list[Progress] = []
    started = time.perf_counter()
    answer = run_in_worker(steps_then, [1.0] * 5, "long", filename="long.pdf", timeout=3,
                           progress=heard.append, reports=True)
    assert answer == "long" and time.perf_counter() - started > 4.5  # past one limit in all
    assert [p.message for p in heard] == [f"Read page {n} of 5" for n in range(1, 6)]
    with pytest.raises(ConversionError, match=r"^stuck\.pdf took longer than 3 s for one step "
                       r"of its conversion \(after read page 2 of 3\), the time limit per step"):
        run_in_worker(steps_then, [0.1, 0.1, 30], "x", filename="stuck.pdf", timeout=3,
                      reports=True)


def test_a_worker_past_its_memory_says_so():
    with pytest.raises(ConversionError, match=r"^big\.xlsx needs more memory than the 2 GiB"):
        run_in_worker(hog_memory, filename="big.xlsx")


def test_a_converter_bug_is_one_sentence():
    with pytest.raises(ConversionError, match=r"^odd\.docx could not be converted"):
        run_in_worker(raise_bug, filename="odd.docx")


def test_cancel_stops_a_conversion():
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.perf_counter()
    with pytest.raises(Cancelled):
        run_in_worker(sleep_then, 30, "late", filename="slow.docx", cancel=cancel)
    assert time.perf_counter() - started < 10


def test_a_slow_conversion_does_not_hold_up_another():
    convert(docx_bytes(), "warm.docx")  # a worker with the converter loaded
    finished: list[str] = []
    slow = threading.Thread(
        target=lambda: finished.append(run_in_worker(sleep_then, 20, "slow", filename="s")))
    slow.start()
    time.sleep(0.5)
    doc = convert(docx_bytes(), "quick.docx")
    finished.append("quick")
    slow.join()
    assert doc.sections and finished == ["quick", "slow"]


def test_the_calling_process_never_loads_the_converter():
    code = ("import sys; from core.documents import convert; from corpora.documents import "
            "docx_bytes; convert(docx_bytes(), 'a.docx'); print(sorted(m for m in sys.modules "
            "if m.startswith(('docling', 'openpyxl', 'pdfplumber'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert out.strip() == "[]"


def test_cancel_stops_a_heavy_conversion_and_the_next_one_works():
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    started = time.perf_counter()
    with pytest.raises(Cancelled):
        convert(paragraphs_docx(MAX_PARAGRAPHS - 100), "long.docx", cancel=cancel)
    assert time.perf_counter() - started < 15  # converting it takes tens of seconds
    assert convert(docx_bytes(), "after.docx").sections
