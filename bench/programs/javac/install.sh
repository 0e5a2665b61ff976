# SPDX-License-Identifier: GPL-2.0
# Debian's OpenJDK 17 (java, javac; bin, conf, lib; the host's x86-64
# package only), with the DSOs its programs and libraries need, and a Java
# source for javac (the JVM tests run java too)
jdk=$(readlink -f /usr/lib/jvm/java-17-openjdk-amd64)
mkdir -p "$root$jdk"
rsync -aL --exclude src.zip "$jdk/bin" "$jdk/conf" "$jdk/lib" "$jdk/release" "$root$jdk/"
find "$jdk/bin" "$jdk/lib" -name '*.so' -o -path "$jdk/bin/*" -type f |
	while read -r f; do copy_with_libs "$f"; done
ln -sf "$jdk/bin/java" "$root/usr/bin/java"
ln -sf "$jdk/bin/javac" "$root/usr/bin/javac"
python3 "$top/scripts/gen-demo-input.py" --java 24 >"$root/opt/hugetext/Gen.java"
