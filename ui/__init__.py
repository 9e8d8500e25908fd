"""Streamlit-side helpers shared by the pages.

Importing this package also repairs one Streamlit start-up quirk: because the folder ``pages/``
exists, a server whose *first* visitor opens a page URL directly (``/compare``) runs that page
in the old folder-based mode — no router, no wide layout, file names as the menu — until
someone opens ``/``. Every page imports ``ui``, so the first such run switches the server to
``st.navigation`` mode and reruns; the router in ``app.py`` then serves the page.
"""

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

if PagesManager.uses_pages_directory:
    PagesManager.uses_pages_directory = False
    st.rerun()
