#!/bin/sh
# The sitepush system group and user, made before the package's files are unpacked: not every
# system runs systemd-sysusers when a package installs a sysusers.d file, and dpkg and rpm give
# /etc/sitepush/sitepush.yaml to the group sitepush only when it exists then (else to root, and
# the service could not read it). Nothing is done for what exists.
set -e
if ! getent group sitepush >/dev/null 2>&1; then
	groupadd --system sitepush
fi
if ! getent passwd sitepush >/dev/null 2>&1; then
	useradd --system --gid sitepush --home-dir /var/lib/sitepush --no-create-home --shell /usr/sbin/nologin --comment sitepush sitepush
fi
