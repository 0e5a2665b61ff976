# SPDX-License-Identifier: GPL-2.0
# MariaDB 10.11 (the arch's mariadbd, the mariadb client for its SHUTDOWN,
# sysbench and their share files), its options (mariadb.cnf), its client
# (sysbench-client), and a data directory with sysbench's table made here
# by the host's MariaDB: like PostgreSQL's, one directory serves x86-64
# and arm64 (InnoDB's and Aria's files are the same on both little-endian
# 64-bit arches)
copy_with_libs "$H/usr/sbin/mariadbd" "$H/usr/bin/mariadb" "$H/usr/bin/sysbench"
for d in /usr/share/mysql/english /usr/share/mysql/charsets /usr/share/sysbench; do
	mkdir -p "$root$d"
	rsync -a "$H$d/" "$root$d/"
done
install -m 0644 "$dir/mariadb.cnf" "$root/opt/hugetext/mariadb.cnf"
install -m 0755 "$dir/sysbench-client" "$root/opt/hugetext/sysbench-client"
mdbtmp=$(mktemp -d /tmp/hugetext-mariadb.XXXXXX)
trap '[ -z "${mdbpid:-}" ] || kill "$mdbpid" 2>/dev/null; rm -rf "$mdbtmp"' EXIT
mdbcnf=--defaults-file=$dir/mariadb.cnf
mariadb-install-db "$mdbcnf" --datadir="$mdbtmp/data" --skip-test-db \
	--auth-root-authentication-method=normal --skip-name-resolve \
	>"$out/mariadb-prepare.log" 2>&1 ||
	{ echo "mkrootfs: mariadb-install-db failed, see $out/mariadb-prepare.log"; exit 1; }
mariadbd "$mdbcnf" --datadir="$mdbtmp/data" --socket="$mdbtmp/sock" \
	>>"$out/mariadb-prepare.log" 2>&1 &
mdbpid=$!
"$dir/sysbench-client" "$mdbtmp/sock" prepare >>"$out/mariadb-prepare.log" 2>&1 ||
	{ echo "mkrootfs: sysbench prepare failed, see $out/mariadb-prepare.log"; exit 1; }
wait "$mdbpid" ||
	{ echo "mkrootfs: mariadbd failed, see $out/mariadb-prepare.log"; exit 1; }
mdbpid=
mv "$mdbtmp/data" "$root/opt/hugetext/mariadb"
