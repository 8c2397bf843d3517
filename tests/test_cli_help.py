"""``--help`` of every command that runs a method says what a run uses when an option is not
given: the flags' help names each method's default, and the help ends with every ``--option``
name of each method and its default. The expected values are read from the config classes here,
so a help that drifts from them (a number copied into a help string) fails."""

import dataclasses
import json
import re

import pytest

from neardup.cli import main
from neardup.methods.auto import AutoConfig
from neardup.methods.ngram import NgramConfig
from neardup.methods.paragraph import ParagraphConfig
from neardup.methods.simhash import SimhashConfig

CONFIGS = {
    "auto": AutoConfig,
    "simhash": SimhashConfig,
    "ngram": NgramConfig,
    "paragraph": ParagraphConfig,
}
BATCH = [["dedup"], ["compare"], ["spark-dedup"]]  # dedup's method flags
ONLINE = [["serve"], ["index", "add"], ["index", "query"], ["index", "remove"]]
COMMANDS = [*BATCH, ["eval"], *ONLINE]


def help_text(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([*command, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


def typed(value):
    """A default as ``--option NAME=VALUE`` takes it: a word bare, else JSON."""
    if isinstance(value, str):
        return value
    if dataclasses.is_dataclass(value):
        value = dataclasses.asdict(value)
    return json.dumps(value)


def defaults(method):
    config = CONFIGS[method]()
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def method_lines(text):
    """The text after each label of the defaults list (``auto:`` ... ``every method:``), its
    lines joined, as ``, item, item,`` for whole-item lookups."""
    tail = " ".join(text.split("method option defaults", 1)[1].split())
    parts = re.split(r"(?:^| )(auto|simhash|ngram|paragraph|every method): ", tail)
    return {
        label: f", {body.strip()}," for label, body in zip(parts[1::2], parts[2::2], strict=True)
    }


def option_help(text, flag):
    """The help of ``flag``, its lines joined."""
    block = re.search(rf"^  {flag}\b.*?(?=^  -|^\S|\Z)", text, re.M | re.S)
    assert block, f"{flag} not in the help"
    return " ".join(block.group().split())


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_the_help_lists_every_method_option_with_its_default(capsys, command):
    lines = method_lines(help_text(capsys, command))
    assert set(lines) >= set(CONFIGS)
    for method in CONFIGS:
        for name, value in defaults(method).items():
            item = f", {name}={typed(value)},"
            if name == "partial" and command != ["dedup"]:  # batch runs only: not offered
                assert f", {name}=" not in lines[method]
                continue
            assert item in lines[method] or item in lines.get("every method", ""), (method, item)


@pytest.mark.parametrize("command", BATCH, ids=" ".join)
def test_the_method_flags_say_each_methods_default(capsys, command):
    text = help_text(capsys, command)
    auto, simhash, ngram, paragraph = (
        AutoConfig(),
        SimhashConfig(),
        NgramConfig(),
        ParagraphConfig(),
    )
    threshold = option_help(text, "--threshold")
    assert f"auto {auto.text_threshold} if match=text" in threshold
    assert f"simhash {simhash.min_similarity} if verify is set" in threshold
    assert (
        f"ngram {ngram.threshold}" in threshold and f"paragraph {paragraph.threshold}" in threshold
    )
    distance = option_help(text, "--max-distance")
    assert f"simhash {simhash.max_distance}" in distance
    assert f"paragraph {paragraph.max_distance} if evidence=topic" in distance
    assert f"ngram {ngram.key_length}" in option_help(text, "--key-length")
    assert f"auto {auto.match}" in option_help(text, "--match")
    assert f"ngram {ngram.measure}" in option_help(text, "--verify")
    assert f"simhash {simhash.ngram}, ngram {ngram.ngram}" in option_help(text, "--ngram")
    assert f"simhash {simhash.weights}" in option_help(text, "--weights")


@pytest.mark.parametrize("command", ONLINE, ids=" ".join)
def test_the_detector_flags_say_each_methods_default(capsys, command):
    text = help_text(capsys, command)
    threshold = option_help(text, "--threshold")  # sets the field `threshold` alone
    assert f"default: ngram {NgramConfig().threshold}, paragraph {ParagraphConfig().threshold}" in (
        threshold
    )
    distance = option_help(text, "--max-distance")
    assert f"simhash {SimhashConfig().max_distance}" in distance
    assert f"paragraph {ParagraphConfig().max_distance} if evidence=topic" in distance


def test_a_usage_error_does_not_list_the_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["dedup", "in.jsonl", "-o", "out", "--threshold", "x"])
    err = capsys.readouterr().err
    assert "--threshold: invalid float value" in err and "defaults" not in err


@pytest.mark.parametrize(
    "command",
    [["dedup"], ["index", "add"], ["index", "query"], ["eval"], ["spark-dedup"]],
    ids=" ".join,
)
def test_the_help_says_what_a_bad_record_does_by_default(capsys, command):
    """``--on-error`` said "fail ... or skip" and not which one a run takes."""
    from neardup.cli import build_parser

    parser = build_parser()
    for name in command:  # the (sub)command's own parser, for its default
        parser = next(a for a in parser._subparsers._group_actions).choices[name]
    default = next(a.default for a in parser._actions if a.dest == "on_error")
    assert f"default: {default}" in option_help(help_text(capsys, command), "--on-error")


def test_compare_help_says_what_the_paragraph_indices_count(capsys):
    """``compare --method paragraph`` prints ``matched_paragraphs`` as ``[[i, j], ...]`` and the
    help never said which document each index is of, or that they are 0-based over the
    paragraphs as the method splits them (not the file's line numbers)."""
    text = " ".join(help_text(capsys, ["compare"]).split())
    assert "matched_paragraphs" in text and "0-based" in text and "blank lines" in text
