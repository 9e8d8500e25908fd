"""Our own escaped HTML whose marked parts report a click back to the page.

The HTML comes from :mod:`ui.render` (every text in it escaped there); an element with a
``data-pick`` attribute reports that value when clicked, once, to the ``on_pick`` callback,
which runs before the page's next run. Drawn as a Streamlit component without an iframe, so
it costs the browser no more than the same HTML through ``st.html`` — far less than a chart
library would.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

_JS = """
export default function ({ parentElement, data, setTriggerValue }) {
  const root = parentElement.querySelector(".cl-clickable");
  root.innerHTML = data.html;
  const onClick = (event) => {
    const picked = event.target.closest("[data-pick]");
    if (picked) setTriggerValue("pick", picked.dataset.pick);
  };
  root.addEventListener("click", onClick);
  return () => root.removeEventListener("click", onClick);
}
"""
_mount = st.components.v2.component(
    "chunklab_clickable_html", html='<div class="cl-clickable"></div>', js=_JS)


def clickable_html(html: str, *, key: str, on_pick: Callable[[str], None]) -> None:
    """Draw ``html`` (escaped by its builder); a click on a ``data-pick`` element calls
    ``on_pick`` with its value."""
    def picked() -> None:
        value = st.session_state[key].get("pick")
        if isinstance(value, str):
            on_pick(value)

    _mount(data={"html": html}, key=key, on_pick_change=picked)
