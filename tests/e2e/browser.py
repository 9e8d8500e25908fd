"""Helpers the browser tests share: where screenshots go, and waiting for Streamlit to finish."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def wait_for_app(page: Page, timeout_ms: int = 120_000) -> None:
    """Wait until Streamlit has finished the current run: script idle, no spinner, no skeleton."""
    page.wait_for_selector('[data-testid="stApp"]')
    page.wait_for_timeout(300)  # a rerun triggered just now may not have started yet
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                && !document.querySelector('[data-testid="stStatusWidget"]')
                && !document.querySelector('[data-testid="stSkeleton"]');
        }""",
        timeout=timeout_ms,
    )
