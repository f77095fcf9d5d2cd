"""Workload for the perfatlas sample data: Python-Markdown (PyPI `markdown`).

Usage: python bench.py BENCHMARK [ITERATIONS]

Benchmarks:
  convert-basic       markdown.markdown(TEXT) repeated ITERATIONS times
  convert-extensions  markdown.markdown(TEXT, extensions=EXTENSIONS) repeated
                      ITERATIONS times

TEXT is a fixed document generated below (no randomness), with headings,
paragraphs with emphasis / links / inline code, nested lists, block quotes,
indented and fenced code blocks, and tables.  The same text and the same
iteration counts are used for every version of the package, so the profiles
are comparable across versions.  The script only uses API that exists in
every Python-Markdown 3.x release.
"""

import sys

import markdown

# Fixed iteration counts (chosen so one run takes roughly 1-2 s on CPython
# 3.11 on the capture machine).
ITERATIONS = {
    "convert-basic": 30,
    "convert-extensions": 12,
}

# 'codehilite' is included because Pygments is NOT installed in the capture
# virtualenvs, so it takes its pure-Python fallback (no third-party code in
# the profile).
EXTENSIONS = ["extra", "toc", "codehilite", "tables", "fenced_code"]

WORDS = (
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod "
    "tempor incididunt ut labore et dolore magna aliqua ut enim ad minim "
    "veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea "
    "commodo consequat"
).split()


def words(start, count):
    return " ".join(WORDS[(start + i) % len(WORDS)] for i in range(count))


def paragraph(n):
    return (
        f"{words(n, 9).capitalize()} *{words(n + 3, 2)}* and **{words(n + 5, 3)}** "
        f"with `code_{n}()` and a [link {n}](https://example.org/page/{n} \"Title {n}\"). "
        f"{words(n + 7, 12)} &amp; <span>{words(n + 1, 2)}</span>, "
        f"see <https://example.org/{n}> or [ref {n}][r{n}].\n\n"
        f"{words(n + 2, 15)}  \n{words(n + 4, 10)}_{n}_ end.\n\n"
        f"[r{n}]: https://example.org/ref/{n}\n"
    )


def section(n):
    parts = [
        f"## Section {n}: {words(n, 3)}\n",
        paragraph(n),
        f"### Subsection {n}.1\n",
        "".join(f"- item {n}.{i} {words(n + i, 4)} *em*\n" for i in range(4)),
        "".join(f"    - nested {n}.{i} `x{i}`\n" for i in range(2)),
        "\n",
        "".join(f"{i}. step {i} of {n}: {words(n + i, 5)}\n" for i in range(1, 4)),
        "\n",
        f"> Quote {n}: {words(n + 6, 10)}\n> **bold** continuation line.\n\n",
        "    # indented code block\n"
        f"    def f{n}(x):\n"
        f"        return x * {n}\n\n",
        "```python\n"
        f"def g{n}(items):\n"
        "    return [i ** 2 for i in items if i % 2]\n"
        "```\n\n",
        "| Name | Value | Notes |\n"
        "|:-----|------:|:-----:|\n"
        + "".join(f"| row{i} | {i * n} | {words(n + i, 2)} |\n" for i in range(4))
        + "\n",
        "---\n\n",
    ]
    return "\n".join(parts)


TEXT = "# Sample document\n\n[TOC]\n\n" + "".join(section(n) for n in range(1, 41))


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ITERATIONS:
        sys.exit(f"usage: {sys.argv[0]} {{{'|'.join(ITERATIONS)}}} [ITERATIONS]")
    name = sys.argv[1]
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else ITERATIONS[name]
    html = ""
    if name == "convert-basic":
        for _ in range(iterations):
            html = markdown.markdown(TEXT)
    else:
        for _ in range(iterations):
            html = markdown.markdown(TEXT, extensions=EXTENSIONS)
    # Print a small fingerprint so a run can be sanity-checked.
    print(f"{name}: markdown {markdown.__version__}, {len(TEXT)} chars in, "
          f"{len(html)} chars out, {iterations} iterations")


if __name__ == "__main__":
    main()
