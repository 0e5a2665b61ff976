# SPDX-License-Identifier: GPL-2.0
# a JIT-like program (static; jitbench.c emits the arch's code)
"${CROSS}gcc" -static -O2 -Wall -Wextra -o "$root/opt/hugetext/jitbench" "$dir/jitbench.c"
