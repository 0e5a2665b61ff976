# SPDX-License-Identifier: GPL-2.0
# llc-14 (the host's x86-64 package only) and 300 functions of IR for it
llc=$(readlink -f /usr/bin/llc-14)
copy_with_libs "$llc"
ln -sf "$llc" "$root/usr/bin/llc-14"
python3 "$top/scripts/gen-demo-input.py" --llvm-ir 300 >"$root/opt/hugetext/bench.ll"
