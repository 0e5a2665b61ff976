#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a padding helper: hugetext_bigtext.c (a few real functions)
# plus padtext.S, a static ET_EXEC whose text segment ends 1.5 MB past a
# 2 MB boundary (1 full 2 MB region + a 1.5 MB tail), in one of five
# layouts:
#   ok    .rodata (1 MB) follows the text at the same file offset delta:
#         padding may cover it with hugetext_pad_rodata=1; the text
#         starts 4 KB past a boundary, after the segment holding the ELF
#         headers (head padding may cover it the same way)
#   gap   linked with -z separate-code -z max-page-size=0x200000: the
#         text starts on a boundary and the next segment on the one after
#         its end, so the tail's region holds only linker padding (bytes
#         no segment maps): padded by default
#   rw    .rodata is small, so the writable data segment lies within the
#         2 MB region of the tail: no padding
#   near  .rodata starts 64 KB into the tail's region at another delta
#         (other file bytes at those addresses): no padding
#   eof   .rodata and .data are linked far away and the file is stripped:
#         the file ends inside the tail's region: no padding
# Two links: the first measures where the text ends without the filler.
#   mk_padtext.sh CC OUT VARIANT SMALL_S CFLAGS...
set -euo pipefail
cc=$1 out=$2 variant=$3 small=$4; shift 4
src=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$out")
case $variant in
ok)   defs=(-DBIG_RODATA -DFILE_FILLER) ;;
gap)  defs=(-DBIG_RODATA -DFILE_FILLER) ;;
rw)   defs=(-DFILE_FILLER) ;;
near) defs=(-DBIG_RODATA -DFILE_FILLER) ;;
eof)  defs=() ;;
*)    echo "mk_padtext.sh: unknown layout $variant" >&2; exit 2 ;;
esac
link() {	# link FILL [LDFLAGS...]
	local fill=$1; shift
	"$cc" "$@" -no-pie -static -DTEXT_NAME="\"$name\"" -DFILL="$fill" \
		"${defs[@]}" -o "$out" "$src/hugetext_bigtext.c" "$small" \
		-x assembler-with-cpp "$src/padtext.S" -x none \
		"$src/hugetext_util.c" "${ldflags[@]}"
}
text_end() {	# end of the R E PT_LOAD
	local t off va pa fsz msz f1 f2 rest
	readelf -lW "$out" | while read -r t off va pa fsz msz f1 f2 rest; do
		if [ "$t" = LOAD ] && [ "$f2" = E ]; then echo $((va + fsz)); fi
	done
}
M2=$((2 << 20))
# the layouts are x86-64 ld's defaults (-z separate-code, 4 KB pages);
# arm64's ld links for 64 KB pages with headers, text and rodata in one
# segment (as Debian's arm64 programs are: hugetext_real.sh's cc1), so
# ask it for x86-64's
base=()
case "$("$cc" -dumpmachine)" in
aarch64-*) base=(-Wl,-z,separate-code,-z,max-page-size=0x1000) ;;
esac
ldflags=("${base[@]}")
[ "$variant" = eof ] && ldflags+=(-Wl,-Trodata-segment=0x40000000 -s)
[ "$variant" = gap ] && ldflags=(-Wl,-z,separate-code,-z,max-page-size=0x200000)
link 0 "$@"
e0=$(text_end)
target=$(( (e0 + M2 - 1) / M2 * M2 + M2 + 0x180000 ))
[ "$variant" = near ] && ldflags=("${base[@]}" -Wl,-Trodata-segment=$(printf '%#x' $(( (target + 0xffff) / 0x10000 * 0x10000 + 0x10000 ))))
link $((target - e0)) "$@"
printf '%s: %s layout, text ends at %#x\n' "$name" "$variant" "$(text_end)"
