#!/usr/bin/env bash
# Installs what bench/report.py needs: Suricata 7 (Debian bookworm-backports) and
# matplotlib. Idempotent; run as root (or with sudo) on Debian 12.
set -euo pipefail

if ! command -v suricata >/dev/null 2>&1; then
    if [ ! -e /etc/apt/sources.list.d/bookworm-backports.sources ]; then
        cat > /etc/apt/sources.list.d/bookworm-backports.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports suricata
    # The package starts a service on install; the benchmark runs its own instances.
    systemctl disable --now suricata >/dev/null 2>&1 || true
fi
suricata -V

if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
    python3 -m pip install --quiet matplotlib 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages matplotlib
fi
python3 -c 'import matplotlib; print("matplotlib", matplotlib.__version__)'
