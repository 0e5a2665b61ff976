# SPDX-License-Identifier: GPL-2.0
# Debian's OpenJDK 17 (java, javac; bin, conf, lib; the host's x86-64
# package only), with the DSOs its programs and libraries need, and a Java
# source for javac (the JVM tests run java too), and the class files this
# javac makes of it on the host: hugetext_jvm's reference (Gen.classes)
jdk=$(readlink -f /usr/lib/jvm/java-17-openjdk-amd64)
mkdir -p "$root$jdk"
rsync -aL --exclude src.zip "$jdk/bin" "$jdk/conf" "$jdk/lib" "$jdk/release" "$root$jdk/"
find "$jdk/bin" "$jdk/lib" -name '*.so' -o -path "$jdk/bin/*" -type f |
	while read -r f; do copy_with_libs "$f"; done
ln -sf "$jdk/bin/java" "$root/usr/bin/java"
ln -sf "$jdk/bin/javac" "$root/usr/bin/javac"
python3 "$top/scripts/gen-demo-input.py" --java 24 >"$root/opt/hugetext/Gen.java"
rm -rf "$root/opt/hugetext/Gen.classes"
"$jdk/bin/javac" -d "$root/opt/hugetext/Gen.classes" "$root/opt/hugetext/Gen.java"
