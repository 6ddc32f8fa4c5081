#!/bin/sh
# The sitepush system user, made before the package's files are unpacked: not every system runs
# systemd-sysusers when a package installs a sysusers.d file. Nothing is done when it exists.
set -e
if ! getent passwd sitepush >/dev/null 2>&1; then
	useradd --system --user-group --home-dir /var/lib/sitepush --no-create-home --shell /usr/sbin/nologin --comment sitepush sitepush
fi
