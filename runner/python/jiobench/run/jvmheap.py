"""What the ranks' JVM heap changes in what the numbers mean: the collector, and whether G1 makes
the transfer array humongous (docs/jvm-heap.md)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping, Optional

from .. import vocabulary
from ..model.text import size_text

# An array's header before its first element (HotSpot, compressed class pointers).
ARRAY_HEADER_BYTES = 16


def region_to_suggest(array_bytes: int, jdk_feature: int) -> Optional[int]:
    """The smallest G1 region that holds the array as an ordinary object (over twice its size), if the JDK has one."""
    region = 1 << 20
    while region <= 2 * (array_bytes + ARRAY_HEADER_BYTES):
        region *= 2
    largest = (32 if jdk_feature < 18 else 512) << 20  # G1's largest region grew in JDK 18
    return region if region <= largest else None


def warnings(jvm: Mapping[str, Any], approaches: list[str]) -> list[str]:
    heap = jvm.get("heap") or {}
    if not heap.get("transfer_array_humongous"):
        return []
    array = heap["transfer_array_bytes"]
    # Those that hand the array itself to the kernel, where its placement shows, as the JVM that
    # ran them describes them.
    java = str(Path(jvm["home"]) / "bin" / "java") if jvm.get("home") else None
    affected = [a for a in vocabulary.approaches_reading_in_place(java) if a in approaches]
    effect = (f"{' and '.join(affected)} then {'steers' if len(affected) == 1 else 'steer'} around that copy, "
              "at the cost of one pass more where nothing is swapped" if affected
              else "an approach that hands it to the kernel slows")
    feature = re.match(r"\d+", jvm.get("version") or "")
    region = region_to_suggest(array, int(feature.group()) if feature else 0)
    remedies = ([f"--jvm-args=-XX:G1HeapRegionSize={region >> 20}m"] if region else []) + [
        "a smaller -t", "--jvm-args=-XX:+UseParallelGC"]
    return [f"the transfer array ({size_text(array)}) is humongous under G1 with {size_text(heap['region_bytes'])} "
            "regions: it starts 16 bytes past a 4 KiB boundary, where the kernel's copy between it and the page "
            f"cache slows on some processors (AMD EPYC among them); {effect}. Avoid it with "
            f"{', '.join(remedies[:-1])} or {remedies[-1]} (docs/jvm-heap.md)"]
