"""The one line that names the limit that kept JVMs from starting, read from what they printed,
and the crash reports they named (jiobench.run.jvm_diagnosis)."""
from __future__ import annotations

import resource
import subprocess

import pytest

from testing import HOME, nproc, pids_cgroup
from jiobench.run import jvm_diagnosis, node
from jiobench.run.node import ThreadLimit

JAR = HOME / "runner" / "target" / "jiobench-runner.jar"

# What JDK 17.0.15 printed, word for word, when a limit stopped it at its start.
# prlimit --nproc=5 java -jar jiobench-runner.jar --version (as an unprivileged user)
G1_SERVICE = """\
[0.006s][warning][os,thread] Failed to start thread "G1 Refine#0" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 4k, detached.
[0.006s][warning][gc       ] Failed to create refinement thread 0, no more OS threads
[0.006s][warning][os,thread] Failed to start thread "G1 Service" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 4k, detached.
Error occurred during initialization of VM
Could not create G1ServiceThread
Error: Could not create the Java Virtual Machine.
Error: A fatal exception has occurred. Program will exit.
"""
# --nproc=1: a GC worker, which HotSpot calls insufficient memory.
GC_WORKER = """\
[0.012s][warning][os,thread] Failed to start thread "GC Thread#0" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 4k, detached.
#
# There is insufficient memory for the Java Runtime Environment to continue.
# Cannot create worker GC thread. Out of system resources.
# An error report file with more information is saved as:
# /tmp/nb/hs_err_pid31792.log
"""
# --nproc=7
VM_THREAD = """\
[0.040s][warning][os,thread] Failed to start thread "VM Thread" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 4k, detached.
Error occurred during initialization of VM
Cannot create VM thread. Out of system resources.
"""
# --nproc=10, and the same in a cgroup of pids.max 12
NATIVE_THREAD = """\
[0.048s][warning][os,thread] Failed to start thread "Unknown thread" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 0k, detached.
Error occurred during initialization of VM
java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached
"""
# --nproc=18: the java launcher's own main thread, with its stack trace.
CLEANER = """\
[0.097s][warning][os,thread] Failed to start thread "Unknown thread" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 0k, detached.
[0.098s][warning][os,thread] Failed to start the native thread for java.lang.Thread "Common-Cleaner"
Error: A JNI error has occurred, please check your installation and try again
Exception in thread "main" java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached
\tat java.base/java.lang.Thread.start0(Native Method)
\tat java.base/java.lang.Thread.start(Thread.java:809)
"""
# ulimit -v 500000
HEAP_SPACE = """\
Error occurred during initialization of VM
Could not reserve enough space for 251904KB object heap
"""
# ulimit -v 1500000
CLASS_SPACE = """\
Error occurred during initialization of VM
Could not allocate compressed class space: 1073741824 bytes
"""
# ulimit -v 4000000
METASPACE = """\
#
# There is insufficient memory for the Java Runtime Environment to continue.
# Native memory allocation (mmap) failed to map 67108864 bytes. Error detail: Failed to reserve memory for metaspace
# An error report file with more information is saved as:
# /tmp/nb/hs_err_pid31999.log
"""
# -Xms100g on a node of 23 GiB
COMMIT = """\
OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00007efc08000000, 107374182400, 0) failed; error='Not enough space' (errno=12)
#
# There is insufficient memory for the Java Runtime Environment to continue.
# Native memory allocation (mmap) failed to map 107374182400 bytes. Error detail: committing reserved memory.
"""
# prlimit --nofile=5
LIBZIP = """\
Error: A JNI error has occurred, please check your installation and try again
Exception in thread "main" java.lang.UnsatisfiedLinkError: /usr/lib/jvm/java-17-openjdk-amd64/lib/libzip.so: /usr/lib/jvm/java-17-openjdk-amd64/lib/libzip.so: cannot open shared object file: Too many open files
\tat java.base/jdk.internal.loader.NativeLibraries.load(Native Method)
"""
# prlimit --nofile=3
LIBZ = "java: error while loading shared libraries: libz.so.1: cannot open shared object file: Error 24\n"
# What the rank says where it cannot fork its JVM (jiobench.run.rank: "cannot start JAVA: STRERROR").
FORK = "cannot start java: Resource temporarily unavailable"


@pytest.mark.parametrize("text", [G1_SERVICE, GC_WORKER, VM_THREAD, NATIVE_THREAD, CLEANER, FORK])
def test_a_jvm_that_could_not_start_its_threads_is_one_line_naming_the_thread_limits(text, thread_limits):
    thread_limits.extend([nproc(4096, 4000), ThreadLimit("kernel.pid_max", "kernel.pid_max 32768", 32768, 900, "")])
    line = jvm_diagnosis.start_limit_line([text, text, ""])
    assert line.startswith("jiobench: error: 2 JVMs could not start their threads (")
    assert "\n" not in line
    # The tightest limit first, with what is in use of it.
    assert "the tightest first: ulimit -u 4096 (4000 in use), kernel.pid_max 32768 (900 in use); run fewer ranks" in line


def test_the_line_quotes_hotspot_s_cause_rather_than_its_headline(thread_limits):
    line = jvm_diagnosis.start_limit_line([GC_WORKER])
    assert line.startswith("jiobench: error: a JVM could not start its threads (Cannot create worker GC thread. Out "
                           "of system resources.)"), line
    assert "(Could not create G1ServiceThread)" in jvm_diagnosis.start_limit_line([G1_SERVICE])
    assert "insufficient memory" not in line


@pytest.mark.parametrize("text", [HEAP_SPACE, CLASS_SPACE, METASPACE, COMMIT, "cannot start java: Cannot allocate memory"])
def test_a_jvm_that_could_not_reserve_its_memory_is_one_line_naming_the_memory_limit(text, monkeypatch):
    monkeypatch.setattr(resource, "getrlimit", lambda which: (500000 << 10, resource.RLIM_INFINITY))
    line = jvm_diagnosis.start_limit_line([text])
    assert line.startswith("jiobench: error: a JVM could not reserve its memory (")
    assert line.endswith("): the virtual memory limit (ulimit -v) is 500000 KiB, which each JVM's heap, class space, "
                         "code cache and thread stacks all count against; give each JVM a smaller heap "
                         "(--jvm-args=-Xmx...), or lift the limit (ulimit -v unlimited)"), line
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(node, "available_memory", lambda: 3 << 30)
    assert "this node has 3.0 GiB available" in jvm_diagnosis.start_limit_line([text])


def test_under_an_address_space_limit_a_thread_that_could_not_start_is_the_address_space(thread_limits, monkeypatch):
    # NATIVE_THREAD's words are also what java -Xmx512m said under ulimit -v 2867200, the need
    # the check computes for that heap: a thread's stack is address space too.
    monkeypatch.setattr(resource, "getrlimit", lambda which: (2867200 << 10,) * 2 if which == resource.RLIMIT_AS
                        else (resource.RLIM_INFINITY,) * 2)
    thread_limits.extend([nproc(4096, 300), ThreadLimit("kernel.pid_max", "kernel.pid_max 32768", 32768, 900, "")])
    assert jvm_diagnosis.start_limit_line([NATIVE_THREAD, GC_WORKER]) == (
        "jiobench: error: 2 JVMs could not start their threads (java.lang.OutOfMemoryError: unable to create native "
        "thread: possibly out of memory or process/resource limits reached): the virtual memory limit (ulimit -v) is "
        "2867200 KiB, which each JVM's heap, class space, code cache and thread stacks all count against; give each "
        "JVM a smaller heap (--jvm-args=-Xmx...), or lift the limit (ulimit -v unlimited)")
    # With a limit on threads within a rank's threads of its end, that limit is the likelier one.
    thread_limits[0] = nproc(4096, 4090)
    assert "a limit on this node's threads or processes is reached, the tightest first: ulimit -u 4096 (4090 in use)" \
        in jvm_diagnosis.start_limit_line([NATIVE_THREAD])


@pytest.mark.parametrize("text", [LIBZIP, LIBZ])
def test_a_jvm_out_of_descriptors_is_one_line_naming_the_open_files_limit(text, monkeypatch):
    monkeypatch.setattr(resource, "getrlimit", lambda which: (5, 4096))
    line = jvm_diagnosis.start_limit_line([text])
    assert line.startswith("jiobench: error: a JVM ran out of file descriptors (")
    assert "the open-files limit (ulimit -n) is 5 (hard limit 4096)" in line


def test_the_reports_of_jvms_a_limit_stopped_are_named_for_removal():
    assert jvm_diagnosis.error_reports([GC_WORKER, METASPACE, VM_THREAD]) == ["/tmp/nb/hs_err_pid31792.log",
                                                                             "/tmp/nb/hs_err_pid31999.log"]


@pytest.mark.parametrize("text", ["Error occurred during initialization of VM\nToo small maximum heap\n",
                                  "Exception in thread \"main\" java.lang.IllegalStateException: no\n", ""])
def test_other_failures_are_left_to_the_caller(text):
    assert jvm_diagnosis.start_limit_line([text]) is None


def test_a_real_jvm_short_of_threads_in_its_cgroup_is_named_in_one_line(thread_limits):
    thread_limits.append(nproc(8, 0))
    with pids_cgroup(12) as inside:
        done = subprocess.run([*inside, "java", "-jar", str(JAR), "--version"], capture_output=True, text=True,
                              timeout=60, cwd="/")
    printed = done.stdout + done.stderr
    assert done.returncode != 0, printed
    line = jvm_diagnosis.start_limit_line([printed])
    assert line and line.startswith("jiobench: error: a JVM could not start its threads ("), printed
