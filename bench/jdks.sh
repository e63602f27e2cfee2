# Sourced by the bench scripts: the JDKs they run the ranks on. `java` is $JAVA, or else the newest
# JDK 22 or later in /usr/lib/jvm (the ffm approaches, and bulk-jni's reads in place, need one),
# empty where there is none; `java17` is $JAVA17, or else JDK 17 in /usr/lib/jvm, or plain `java`.
java=${JAVA:-$(ls -d /usr/lib/jvm/temurin-2[2-9]-jdk-*/bin/java /usr/lib/jvm/java-2[2-9]-openjdk-*/bin/java \
  2>/dev/null | head -n 1 || true)}
java17=${JAVA17:-$(ls -d /usr/lib/jvm/java-17-openjdk-*/bin/java 2>/dev/null | head -n 1 || echo java)}
