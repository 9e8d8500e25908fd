#!/usr/bin/env bash
# The browser tests drive Debian's chromium (Playwright's own browser download cannot work here).
set -euo pipefail
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the browser tests…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "The browser tests need chromium at $CHROMIUM: run 'sudo apt-get install chromium'" \
       "or set CHROMIUM_PATH." >&2
  exit 1
fi
