#!/bin/sh
# On removal, not on upgrade, the service stops before its binary goes: deb's prerm gets
# "remove", rpm's %preun the number of versions left, 0.
set -e
case "$1" in
remove | 0)
	if [ -d /run/systemd/system ]; then
		systemctl disable --now sitepush.service >/dev/null 2>&1 || true
	fi
	;;
esac
