# SPDX-License-Identifier: GPL-2.0
# V8: Debian's node (the host's x86-64 package only) and a JS workload (the
# node tests run it too)
copy_with_libs "$(readlink -f /usr/bin/node)"
[ -e "$root/usr/bin/node" ] || ln -s "$(readlink -f /usr/bin/node)" "$root/usr/bin/node"
install -m 0644 "$dir/work.js" "$root/opt/hugetext/work.js"
