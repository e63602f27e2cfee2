"""Named sweeps (`jiobench sweep --preset NAME`): Xu and Guo's experiments ("An In-Depth
Examination of Java I/O Performance and Possible Tuning Strategies", sections 3 and 4) as the
lists a sweep varies and the runner options every point shares, sized so that each runs in about
a minute on a 2-core machine with --here (docs/sweep.md says why each is what it is).

A preset is only a sweep's description: the user's `--vary` of the same option replaces the
preset's list, and the user's runner options after `--` replace the preset's option of the same
name. The manifest keeps the preset's name and the figure of the paper its report draws.
"""
from __future__ import annotations

from dataclasses import dataclass

from jiobench import vocabulary
from jiobench.errors import UsageError

# Every phase ends 0.2 s after its barrier (-D): unbuffered 1-byte operations move a few MiB by
# then. The runner plans every transfer ahead (36 bytes each), so a 16 MiB block is the most that
# 1-byte operations leave room for in a default heap; phases of 512 B operations and larger end
# within 50 ms and are marked short. One warm-up, then -i auto: at least the 6 measured
# repetitions that a median's interval needs, more where those leave it wide, within 20 s of
# phases a point (a few seconds an approach: the four presets' 26 points take 15 minutes or less).
SHARED = ("-b", "16MiB", "-D", "0.2", "-i", "auto", "--time-budget", "20s", "--warmup", "1")
# The runner options that only -i auto takes: a user's count (-- -i 3) drops the preset's too.
AUTO_ONLY = ("--ci-target", "--time-budget", "--max-reps")


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str  # one line of `jiobench sweep --help`
    vary: tuple[tuple[str, tuple[str, ...]], ...]
    runner_args: tuple[str, ...]
    x: str  # the run file parameter the report's figure has on its x axis
    split: str | None  # a parameter whose values get a row of panels each
    paper: str  # the paper's figure the report's figure redraws


PRESETS = {preset.name: preset for preset in (
    Preset("xu-guo-opsize", "operation size 1 B..1 MiB: unbuffered Java, JNI, C (Fig. 4.13)",
           (("-t", ("1", "8", "64", "512", "4KiB", "64KiB", "1MiB")),),
           ("-a", "raw-stream,raw-bytes,bulk-jni,c-posix", "--type", "byte", "--order", "sequential", *SHARED),
           "transfer_size", None, "Xu and Guo, Figure 4.13: sequential access for different operation sizes"),
    Preset("xu-guo-buffer", "buffer size 128 B..10 MiB at 1-byte operations (Figs. 4.5, 4.7)",
           (("--buffer-size", ("128", "512", "1KiB", "4KiB", "64KiB", "1MiB", "10MiB")),),
           ("-a", "buffered-stream,direct-buffering,c-stdio,raw-stream", "--type", "byte", "-t", "1",
            "--order", "sequential", *SHARED),
           "buffer_size", None, "Xu and Guo, Figures 4.5 and 4.7: buffering strategies and sequential access "
           "for direct buffering, at 1-byte operations"),
    Preset("xu-guo-random", "sequential vs random order at 1 B, 64 B, 4 KiB (Figs. 4.1, 4.3)",
           (("--order", ("sequential", "random")), ("-t", ("1", "64", "4KiB"))),
           ("-a", "raw-stream,raw-bytes,c-posix", "--type", "byte", *SHARED),
           "transfer_size", "order", "Xu and Guo, Figures 4.1 and 4.3 (raw I/O at 1-byte operations, sequential "
           "and random) and 4.13, 4.14 (operation sizes)"),
    Preset("xu-guo-jni", "a JNI call per operation vs C, 1 B..64 KiB (Fig. 4.15)",
           (("-t", ("1", "8", "64", "512", "4KiB", "64KiB")),),
           ("-a", "bulk-jni,c-posix,raw-bytes", "--type", "byte", "--order", "sequential", *SHARED),
           "transfer_size", None, "Xu and Guo, Figure 4.15: elapsed time of three implementations (JNI, Java, C)"),
)}


def option_name(word: str, java: str | None = None) -> str | None:
    """The option a runner word gives (`-b`, `--block-size=1GiB`, `-b1GiB` are `-b`), or None
    for a value."""
    if not word.startswith("-") or word == "-" or word[1:2].isdigit():
        return None
    if word.startswith("--"):
        return vocabulary.option_name(word.split("=", 1)[0], java)
    return word[:2]


def repetitions_counted(runner_args: list[str], java: str | None = None) -> bool:
    """Whether the user's runner options give -i a count rather than auto."""
    for at, word in enumerate(runner_args):
        if option_name(word, java) != "-i":
            continue
        if "=" in word:
            value = word.split("=", 1)[1]
        elif word.startswith("--") or word == "-i":
            value = runner_args[at + 1] if at + 1 < len(runner_args) else ""
        else:
            value = word[2:]
        return value != "auto"
    return False


def pairs(words: tuple[str, ...]) -> list[tuple[str, str]]:
    """A preset's runner options, all of which take a value, as (option, value)."""
    return list(zip(words[::2], words[1::2]))


def help_lines() -> str:
    width = max(map(len, PRESETS))
    return "\n".join(f"  {name:<{width}}  {preset.summary}" for name, preset in PRESETS.items())


def apply(name: str, vary: list[tuple[str, list[str]]], runner_args: list[str], java: str | None = None) \
        -> tuple[list[tuple[str, list[str]]], list[str], dict]:
    """The sweep's lists and runner options once the preset is filled in, and the manifest's
    record of the preset; `java` reads the runner's option names."""
    preset = PRESETS.get(name)
    if preset is None:
        raise UsageError(f"--preset {name}: no such preset ({', '.join(PRESETS)})")
    # By the runner's own names, so that `-- --block-size 64MiB` replaces a preset's `-b`.
    given = {vocabulary.option_name(option, java) for option, _ in vary}
    user_options = {option_name(word, java) for word in runner_args} - {None}
    if repetitions_counted(runner_args, java):
        user_options |= {vocabulary.option_name(option, java) for option in AUTO_ONLY}
    for option, _ in preset.vary:
        if option in user_options and option not in given:
            raise UsageError(f"{option}: the preset {name} varies it; --vary {option}=V1,V2,... gives its values")
    replaced = {vocabulary.option_name(option, java): (option, values) for option, values in vary}
    lists = [replaced.pop(option, (option, list(values))) for option, values in preset.vary]
    lists += list(replaced.values())
    kept = [word for option, value in pairs(preset.runner_args)
            if option not in user_options and option not in given for word in (option, value)]
    record = {"name": name, "x": preset.x, "split": preset.split, "paper": preset.paper}
    return lists, kept + runner_args, record
