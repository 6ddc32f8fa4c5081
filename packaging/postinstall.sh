#!/bin/sh
# systemd learns of the unit, and a running sitepush restarts on the new binary. A new install is
# neither enabled nor started: the configuration needs a site and the admin token first
# (docs/release.md).
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null 2>&1 || true
	systemctl try-restart sitepush.service >/dev/null 2>&1 || true
fi
