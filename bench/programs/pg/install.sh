# SPDX-License-Identifier: GPL-2.0
# PostgreSQL 15 (the arch's server and share files), UTC, the query mix,
# noitimer.so, and a data directory made here by the host's initdb, owned
# by the rootfs's unprivileged user (pguser: postgres refuses to run as
# root; the guest copies it before each run).  One directory serves x86-64
# and arm64: pg_control's layout checks (MAXALIGN 8, little-endian, 8 KB
# blocks, float8 by value, catalog version of the same PostgreSQL 15) are
# equal, and the server refuses a directory that fails them ("database
# files are incompatible")
pgbin=/usr/lib/postgresql/15/bin
copy_with_libs "$H$pgbin/postgres"
mkdir -p "$root/usr/share/postgresql"
rsync -a "$H/usr/share/postgresql/15/" "$root/usr/share/postgresql/15/"
mkdir -p "$root/usr/share/zoneinfo/Etc"
cp -L /usr/share/zoneinfo/UTC "$root/usr/share/zoneinfo/UTC"
cp -L /usr/share/zoneinfo/Etc/UTC "$root/usr/share/zoneinfo/Etc/UTC"
install -m 0644 "$dir/pg-queries.sql" "$root/opt/hugetext/pg-queries.sql"
"${CROSS}gcc" -O2 -Wall -Wextra -shared -fPIC -o "$root/opt/hugetext/noitimer.so" "$dir/noitimer.c"
# (made under /tmp: the unprivileged user may not reach out/)
pgtmp=$(mktemp -d /tmp/hugetext-pgdata.XXXXXX)
trap 'rm -rf "$pgtmp"' EXIT
if [ "$(id -u)" -eq 0 ]; then
	chown "$pguser:" "$pgtmp"
	run_pg() { runuser -u "$pguser" -- "$@"; }
else
	run_pg() { "$@"; }
fi
run_pg "$pgbin/initdb" -D "$pgtmp/pgdata" --no-sync -A trust -U postgres \
	--wal-segsize=1 --locale=C -E UTF8 >"$out/initdb.log" 2>&1 ||
	{ echo "mkrootfs: initdb failed, see $out/initdb.log"; exit 1; }
mv "$pgtmp/pgdata" "$root/opt/hugetext/pgdata"
