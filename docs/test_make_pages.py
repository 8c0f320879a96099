#!/usr/bin/env python3
"""Tests of make_pages.py (ctest: docs.make_pages): on a made-up repository of two sections, the
page gets the code cut from the kernel (without the TODO markers, comments wrapped), the counts of
the run, the figure and the previous/next links; a README out of date is found (--check) and
refreshed (--update); a figure that was not drawn and an anchor that matches nothing are errors
with --strict. Then the tables and numbers generated from measurement CSVs (bench_table, bench_summary,
bench_value, roles_table, roles_value) on a tiny CSV; the numbers typed by hand (--typed); and the
questions every section page must have, each with its answer in a collapsible block (--questions),
and the figures with alt text and a link to the full-size image: run with python3 docs/test_make_pages.py."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run(root, gen, *args):
    return subprocess.run([sys.executable, os.path.join(HERE, "make_pages.py"), "--root", root]
                          + (["--generated", gen] if gen else []) + list(args), capture_output=True, text=True,
                          timeout=60)


HEAD = ("device,cuda_version,driver,sm_clock_mhz,mem_clock_mhz,date,algorithm,type,n,median_us,gbps,verified,reps,"
        "timing\n")


def bench_row(alg, type_, n, us, gbps=1.0):
    return f"GPU X,13.0,13.0,1980,2619,2026-01-01T00:00:00Z,{alg},{type_},{n},{us},{gbps},1,20,events_l2_flushed\n"


def measurements():
    """The gen kinds that read committed CSVs: bench_table (bold exactly where both targets are met),
    bench_summary, bench_value, roles_table, roles_value; a missing CSV or algorithm is one error line."""
    with tempfile.TemporaryDirectory(prefix="scanlab_csv_") as tmp:
        root, gen = os.path.join(tmp, "repo"), os.path.join(tmp, "gen")
        write(f"{root}/chapters/sections.txt", "11_1_first   First section\n")
        write(f"{root}/chapters/11_1_first/README.md", "# 11.1 First\n\n" + ANSWERED)
        os.makedirs(gen)
        # n = 1024: both targets met (1.2x the copy, 0.5x CUB); 2048: over the copy's (1.5x);
        # 4096: over CUB's (0.99x), which two decimals would show as 0.99 > 0.98; 8192: 1.30x and 0.98x
        # exactly (met: the targets are "at most").
        rows = [("k", 1024, 1.2), ("memcpy", 1024, 1.0), ("cub_inclusive_sum", 1024, 2.4),
                ("k", 2048, 3.0), ("memcpy", 2048, 2.0), ("cub_inclusive_sum", 2048, 6.0),
                ("k", 4096, 9.83), ("memcpy", 4096, 9.0), ("cub_inclusive_sum", 4096, 10.0),
                ("k", 8192, 13.0), ("memcpy", 8192, 10.0), ("cub_inclusive_sum", 8192, 13.0 / 0.98),
                ("other", 1024, 5.0)]
        # (GB/s of the bytes each job moves: "other" moves 3 of the copy's 4 bytes, in 5 us against 1)
        gbps = {("memcpy", 1024): 4.0, ("other", 1024): 0.6}
        write(f"{root}/data/b.csv", HEAD + "".join(bench_row(a, "int32", n, us, gbps.get((a, n), 1.0))
                                                  for a, n, us in rows))
        write(f"{root}/data/r.csv", "n,tiles,what,median_us,max_us\n1024,1,scan_start,1.000,1.1\n"
              "1024,1,stored,1.647,1.7\n4096,4,copy_started,1.300,1.4\n4096,4,scan_start,1.900,2.0\n"
              "4096,4,stored,3.100,3.3\n")
        page = f"{root}/docs/pages/p.md"
        write(page, "p {#p}\n===\n\n<!-- csv b = data/b.csv -->\n"
              "<!-- gen bench_table b k copy=1.30 cub=0.98 --><!-- /gen -->\n\n"
              "<!-- gen bench_summary b k copy=1.30 cub=0.98 at=1024 bandwidth=80% throughput=1.5 --><!-- /gen -->\n\n"
              "Took <!-- gen bench_value data/b.csv k int32 2048 --><!-- /gen --> us, "
              "<!-- gen bench_value b k int32 4096 cub_inclusive_sum --><!-- /gen --> CUB's time, "
              "<!-- gen bench_value b other int32 1024 memcpy moved --><!-- /gen --> a copy of its bytes, "
              "<!-- gen bench_value b k int32 2048 per=2^2 --><!-- /gen --> us a quarter.\n\n"
              "<!-- gen roles_table data/r.csv --><!-- /gen -->\n\n"
              "Stored at <!-- gen roles_value data/r.csv stored 1024..4096 --><!-- /gen --> us.\n")
        r = run(root, gen, "--check")
        check(r.returncode == 1 and "docs/pages/p.md" in r.stderr, "--check finds a page's CSV copies out of date")
        r = run(root, gen, "--update")
        check(r.returncode == 0, f"--update refreshes the page ({r.stderr.strip()})")
        text = open(page, encoding="utf-8").read()
        check("`data/b.csv`: GPU X, CUDA 13.0 (the driver's: 13.0), SM clock 1980 MHz, memory clock 2619 MHz, "
              "2026-01-01T00:00:00Z; each time the median of 20 launches (CUDA events, L2 emptied before each "
              "launch); every result verified against the CPU." in text, "the run's line from the CSV's columns")
        table = ["| n | int32 |", "| --- | --- |",
                 "| 2^10 | **1.20 / 1.00 / 2.40: 1.20x, 0.50x** |",
                 "| 2^11 | 3.00 / 2.00 / 6.00: 1.50x, 0.50x |",
                 "| 2^12 | 9.83 / 9.00 / 10.0: 1.09x, 0.983x |",
                 "| 2^13 | **13.0 / 10.0 / 13.3: 1.30x, 0.98x** |"]  # (times with 3 significant figures)
        check("\n".join(table) in text, "the table, bold exactly where both targets are met")
        check("- **n = 2^10: met.** int32 83.3% of the copy's bandwidth and 2.000x CUB's throughput. "
              "(Targets: 80% of the copy's bandwidth; 1.50x CUB's throughput.)" in text, "the summary at one n")
        check("within 1.30x the copy's time and 0.98x CUB's: not met** (2 of the 4 pairs of n and type met)" in text
              and "  - int32: met at 2^10 and 2^13. Not met at 2^11 and 2^12: 1.09 to 1.50x the copy's time (over "
              "the target at 2^11), 0.50 to 0.983x CUB's time (over the target at 2^12)." in text,
              "the summary counts the pairs met and says where and by how much the others miss")
        check("Took <!-- gen bench_value data/b.csv k int32 2048 -->3.00<!-- /gen --> us" in text
              and "-->0.983x<!-- /gen --> CUB's time" in text, "bench_value: a time and a ratio")
        check("-->6.667x<!-- /gen --> a copy of its bytes" in text, "bench_value: over a copy of the bytes moved")
        check("per=2^2 -->0.750<!-- /gen --> us a quarter" in text, "bench_value: a time per part (per=K)")
        check("| n | tiles | copy started | scan start | stored |" in text and "| 2^10 | 1 | - | 1.00 | 1.65 |" in text
              and "| 2^12 | 4 | 1.30 | 1.90 | 3.10 |" in text, "the roles table (the stamps the CSV has, in order)")
        check("-->1.65 to 3.10<!-- /gen --> us." in text, "roles_value over a range of n")
        r = run(root, gen, "--check")
        check(r.returncode == 0, "after --update, --check passes for the page")
        r = run(root, gen, "--committed", "--out", os.path.join(tmp, "out"))
        shown = open(os.path.join(tmp, "out", "p.md"), encoding="utf-8").read()
        check(r.returncode == 0 and "<!--" not in shown and "| 2^10 | **1.2" in shown,
              "the page shows the tables, without the comments")

        write(page, "p {#p}\n===\n\n<!-- gen bench_table data/gone.csv k --><!-- /gen -->\n")
        r = run(root, gen, "--check")
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        check(r.returncode == 1 and len(lines) == 1 and "error:" in lines[0] and "data/gone.csv" in lines[0],
              f"a missing CSV is one error line ({r.stderr.strip()})")
        write(page, "p {#p}\n===\n\n<!-- gen bench_table data/b.csv nope --><!-- /gen -->\n")
        r = run(root, gen, "--committed")
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        check(r.returncode == 1 and len(lines) == 1 and "error:" in lines[0] and "no algorithm 'nope'" in lines[0],
              f"a missing algorithm is one error line ({r.stderr.strip()})")


def typed_numbers():
    """--typed (and --check): a number with a unit typed on a page that matches a committed value within
    its rounding is an error; a target, a shape, a number the data does not have, and what a gen block
    makes are not; docs/typed_numbers.txt lists the ones still allowed, and may only shrink."""
    with tempfile.TemporaryDirectory(prefix="scanlab_typed_") as tmp:
        root = os.path.join(tmp, "repo")
        write(f"{root}/chapters/sections.txt", "11_1_first   First section\n")
        write(f"{root}/chapters/11_1_first/README.md", "# 11.1 First\n")
        write(f"{root}/plots/data/b.csv", HEAD + bench_row("k", "int32", 2048, 3.0, 1400.0)
              + bench_row("memcpy", "int32", 2048, 2.4, 1750.0))
        write(f"{root}/chapters/11_1_first/results/ncu.txt", "  void k<int>(int *) (64, 1, 1)x(128, 1, 1), CC 9.0\n"
              "    DRAM Throughput                   %        79.08\n")
        page = f"{root}/docs/pages/p.md"
        clean = ("p {#p}\n===\n\nTook <!-- gen bench_value plots/data/b.csv k int32 2048 -->3.00<!-- /gen --> us "
                 "(target 1.30x, at most 2.5 us), tiles of 8 x 32, 3.17 us elsewhere, `3.00 us` in code.\n\n"
                 "| lever | prediction | measured |\n| --- | --- | --- |\n"
                 "| a | predicted: 3.0 us, then 0.5 to 2.4 us less | <!-- gen bench_value plots/data/b.csv k int32 2048 -->3.00<!-- /gen --> us |\n")
        write(page, clean)
        r = run(root, "", "--typed")
        check(r.returncode == 0, f"--typed: generated, target, prediction, shape, code and a value the data lacks pass ({r.stderr})")
        cases = [("Took 3.00 us by hand.", "'3.00 us'"), ("The copy took 2.4us.", "'2.4us'"),
                 ("It reached 80% of the copy.", "'80%'"), ("1.25x the copy's time", "'1.25x'"),
                 ("at 1.4 TB/s", "'1.4 TB/s'"), ("DRAM at 79.1% of the peak", "'79.1%'"),
                 ("| b | guessed 3.0 us | x |", "'3.0 us'"), ("from 2.4 .. 3.0 us", "'2.4 .. 3.0 us'"),
                 ("<!-- figure fig_a The kernel at 80% of the copy. -->", "'80%'"),  # (a caption is on the page)
                 ("3.0 and 2.4 us", "'3.0 and 2.4 us'")]  # (last: the checks below keep it on the page)
        for text, expect in cases:
            write(page, clean + text + "\n")
            r = run(root, "", "--typed")
            check(r.returncode == 1 and expect in r.stderr and "docs/pages/p.md:9" in r.stderr,
                  f"--typed finds {expect} typed ({r.stderr.strip()[:160]})")
        os.makedirs(os.path.join(tmp, "gen"))
        r = run(root, os.path.join(tmp, "gen"), "--check")
        check(r.returncode == 1 and "'3.0 and 2.4 us' is typed" in r.stderr, f"--check finds it too ({r.stderr.strip()[:160]})")
        write(f"{root}/docs/typed_numbers.txt", "# still typed\ndocs/pages/p.md\t3.0 and 2.4 us\n")
        r = run(root, "", "--typed")
        check(r.returncode == 0, f"a number listed in docs/typed_numbers.txt passes ({r.stderr.strip()})")
        write(page, clean)
        r = run(root, "", "--typed")
        check(r.returncode == 1 and "no longer typed there" in r.stderr,
              f"a listed number no longer typed is an error: the list only shrinks ({r.stderr.strip()[:160]})")


ANSWERED = ("## Questions\n\n"
            "1. Why?\n\n   <details><summary>Answer</summary>\n\n   Because **of this**.\n\n   </details>\n\n"
            "2. How?\n\n   <details><summary>Answer</summary>\n\n   So.\n\n   Two paragraphs.\n\n   </details>\n\n"
            "10. What?\n\n    <details><summary>Answer</summary>\n\n    That.\n\n    </details>\n")


def questions():
    """Every section's page has 3 to 5 questions, each with its answer in a collapsible block
    (<details><summary>Answer</summary>, blank lines around the answer, indented into the item): a
    section without them fails --questions, --check and the page build; the page gets the tags as
    Doxygen \\htmlonly[block], the answer staying Markdown between them."""
    with tempfile.TemporaryDirectory(prefix="scanlab_questions_") as tmp:
        root, gen, out = (os.path.join(tmp, d) for d in ("repo", "gen", "out"))
        write(f"{root}/chapters/sections.txt", "11_1_first   First section\n")
        readme = f"{root}/chapters/11_1_first/README.md"
        os.makedirs(gen)
        write(readme, "# 11.1 First\n\nText.\n\n" + ANSWERED)
        r = run(root, "", "--questions")
        check(r.returncode == 0, f"--questions: three questions, each with its answer, pass ({r.stderr.strip()})")
        r = run(root, gen, "--committed", "--out", out)
        page = open(f"{out}/section_11_1_first.md", encoding="utf-8").read()
        check(r.returncode == 0 and "   \\htmlonly[block]<details><summary>Answer</summary>\\endhtmlonly\n\n"
              "   Because **of this**.\n\n   \\htmlonly[block]</details>\\endhtmlonly" in page
              and "<details>\n" not in page,
              f"the page gets the answers' tags as \\htmlonly[block], the answer in Markdown ({r.stderr.strip()})")
        bad = [("# 11.1 First\n\nNo questions.\n", "no '## Questions' list"),
               ("# 11.1 First\n\n" + ANSWERED.split("\n\n2.")[0] + "\n", "has 1 numbered questions"),
               ("# 11.1 First\n\n" + ANSWERED.replace("   <details><summary>Answer</summary>\n\n   So.", "   So."),
                "question 2 (line 13) has no answer"),
               ("# 11.1 First\n\n" + ANSWERED.replace("   </details>\n\n2.", "\n2."), "<details> lines against"),
               ("# 11.1 First\n\n" + ANSWERED.replace("Answer</summary>\n\n   Because", "Answer</summary>\n   Because"),
                "a blank line must follow <summary>"),
               ("# 11.1 First\n\n" + ANSWERED.replace("   Because **of this**.", "   "), "its answer is empty"),
               ("# 11.1 First\n\n" + ANSWERED.replace("<details><summary>Answer</summary>\n\n   So",
                                                         "<details><summary>Hint</summary>\n\n   So"), "must read 'Answer'"),
               ("# 11.1 First\n\n" + ANSWERED.replace("\n   <details><summary>Answer</summary>\n\n   Because",
                                                         "\n<details><summary>Answer</summary>\n\n   Because"),
                "must be indented 3 spaces"),
               ("# 11.1 First\n\n" + ANSWERED.replace("   Because **of this**.", "   Because\n   <!-- c -->of this."),
                "line 10 starts with '<!--'")]
        for text, expect in bad:
            write(readme, text)
            for args in (("--questions",), ("--check",), ("--committed", "--out", out)):
                r = run(root, "" if args == ("--questions",) else gen, *args)
                check(r.returncode == 1 and expect in r.stderr and "11_1_first/README.md" in r.stderr,
                      f"{' '.join(args)}: a page whose questions lack answers fails: {expect} ({r.stderr.strip().splitlines()[0][:160] if r.stderr.strip() else ''})")


def long_code():
    """A long code span in running text goes into a <span class="scanlab-long"> with the punctuation
    after it (so that on a phone the comma stays on the path's line); short spans and code blocks not."""
    sys.path.insert(0, HERE)
    import make_pages
    path = "results/h200x2_look_back_run_256_2026-11-27.csv"
    text = f"See `{path}`, then `short`.\n\n```sh\ncat `{path}`,\n```\n    `{path}`,\n"
    got = make_pages.long_code_for_doxygen(text)
    check(got.startswith(f'See <span class="scanlab-long">`{path}`,</span> then `short`.'),
          f"a long path in running text is wrapped with its comma ({got.splitlines()[0]})")
    check(got.split("\n")[2:] == text.split("\n")[2:], "code blocks (fenced, indented) are left alone")
    two = "A span `a + b` that\nruns `over two lines of a paragraph, long enough` too.\n"
    check(make_pages.long_code_for_doxygen(two) == "A span `a + b` that\nruns <span class=\"scanlab-long\">`over two "
          "lines of a paragraph, long enough`</span> too.\n" and
          make_pages.long_code_for_doxygen("`a`\n`b c d e f g h i j k l m n o p q r s t` x `y`") ==
          '`a`\n<span class="scanlab-long">`b c d e f g h i j k l m n o p q r s t`</span> x `y`',
          "spans are paired left to right, across a line break too")


def reports():
    """The grader's report (gen explain) on a page: a block whose lines wrap (scanlab-report), escaped, the
    text around it left alone."""
    sys.path.insert(0, HERE)
    import make_pages
    got = make_pages.report_html("\n`T` fails:\n\n```\nwhere x[1] < x[0]\n\n  got [1, 1]\n```\n")
    check(got.startswith("\n`T` fails:\n\n\\htmlonly[block]<div class=\"fragment scanlab-report\">") and
          '<div class="line">where x[1] &lt; x[0]</div><div class="line">&nbsp;</div>' in got and "```" not in got,
          f"the report is a block of wrapping lines, escaped ({got!r})")


def log_rows():
    """The Measurements page's table of test and sanitizer logs: every cell read from the log, and a cell the
    log has nothing for says so (a run cut short here); on the repository's own logs no cell is empty."""
    sys.path.insert(0, os.path.join(HERE, "measurements"))
    import measurements as m
    with tempfile.TemporaryDirectory(prefix="scanlab_logs_") as tmp:
        path = os.path.join(tmp, "h100_cut_2026-01-02.log")
        write(path, "Test project /tmp/b\n    Start 7: 11.8.sanitize.memcheck.int32\n"
              "    Start 8: 11.8.sanitize.racecheck.int32\n1/2 Test #7: 11.8.sanitize.memcheck.int32 ...   Passed    1.64 sec\n")
        row = m.log_row(path)
        check(row == "| 2026-01-02 | ctest, 2 tests: compute-sanitizer memcheck, racecheck on 11.8's programs | "
                     "NVIDIA H100 (from the log's file name) | ctest's summary is not in the log: it shows 2 tests "
                     "starting, 1 finishing, 1 of them passed | not in the log | "
                     '<span class="scanlab-file">`h100_cut_2026-01-02.log`</span> |',
              f"a cut log's row says what ran and what the log lacks ({row})")
    root = os.path.dirname(HERE)
    page = m.measurements_page(root)
    after = page.split("{#measurements_suites}")[1].splitlines()
    table = [line for line in after[:next(k for k, line in enumerate(after) if line.startswith("On a GPU"))]
             if line.startswith("| ")][1:]
    empty = [r for r in table if any(not cell.strip() for cell in r.strip().strip("|").split("|"))]
    check(table and not empty, f"no cell of the page's {len(table)} log rows is empty ({empty[:1]})")


def main():
    with tempfile.TemporaryDirectory(prefix="scanlab_pages_") as tmp:
        root, gen, out, figs = (os.path.join(tmp, d) for d in ("repo", "gen", "out", "figs"))
        write(f"{root}/chapters/sections.txt", "# comment\n11_1_first   First section\n11_2_second  Second one\n")
        write(f"{root}/solutions/11_2_second/k.cuh", "void f() {\n  for (int s = 1; s < 8; s *= 2) {\n"
              "    // TODO(student) begin: a hint\n    // that goes on\n    work(s);  " + "// " + "word " * 25 + "\n"
              "    // TODO(student) end\n  }\n}\n")
        write(f"{root}/chapters/11_1_first/README.md", "# 11.1 First\n\nText.\n\n" + ANSWERED)
        readme = f"{root}/chapters/11_2_second/README.md"
        write(readme, "# 11.2 Second\n\n<!-- gen nav --><!-- /gen -->\n\n<!-- gen code k.cuh \"for (int s = 1\" -->"
              "<!-- /gen -->\n\n<!-- gen counts 11.2 --><!-- /gen -->\n\nApplications: <!-- gen value 11.2 a ops -->"
              "<!-- /gen -->.\n\n<!-- figure fig_a What it shows. -->\n\nSee [the worksheet](../../solutions/11_2_second/ANSWERS.md)."
              "\n\n" + ANSWERED)
        write(f"{root}/solutions/11_2_second/ANSWERS.md", "# Answers\n")
        write(f"{gen}/counts_11.2.json", json.dumps([{"algorithm": "a", "n": 8, "launches": 1, "ops": 17,
                                                     "barrier_intervals": 7, "steps": 3}]))
        write(f"{figs}/fig_a.png", "png")
        write(f"{root}/docs/pages/p.md", "p {#p}\n===\n\n\\image html pic.png \"A picture with <code> words\"\n\n"
              "\\image html pic.png \"`x` & more\"\n")

        r = run(root, gen, "--check")
        check(r.returncode == 1 and "11_2_second/README.md" in r.stderr, "--check finds the README out of date")
        r = run(root, gen, "--update")
        check(r.returncode == 0, f"--update exits 0 ({r.stderr.strip()})")
        text = open(readme, encoding="utf-8").read()
        check("for (int s = 1; s < 8; s *= 2) {" in text and "TODO(student)" not in text,
              "the README's copy has the loop, without the TODO markers")
        check(all(len(line) <= 96 for line in text.splitlines() if not line.startswith("<!--")),
              "the long trailing comment is wrapped to 96 characters")
        check("| `a` | 8 | 1 | 17 | 7 | 3 |" in text and "Applications: <!-- gen value 11.2 a ops -->17" in text,
              "the counts and the value come from the run")
        check("[11.1 First section](../11_1_first/README.md)" in text, "the README links the previous section")
        r = run(root, gen, "--check")
        check(r.returncode == 0, "after --update, --check passes")

        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 0, f"the pages are made ({r.stderr.strip()})")
        page = open(f"{out}/section_11_2_second.md", encoding="utf-8").read()
        check(page.startswith("11.2 Second {#sec_11_2}") and "<!--" not in page, "the page has its label, no comments")
        check('\\htmlonly[block]<div class="image"><div class="scanlab-figure"><a href="fig_a.png"><img src="fig_a.png" '
              'alt="What it shows."/></a></div><div class="caption">What it shows. <a class="fullsize" href="fig_a.png">Full-size image</a></div></div>'
              '\\endhtmlonly' in page,
              "the figure is in the page: alt text (the README's caption), a link to the full-size image")
        check('\\ref sec_11_1 "11.1 First section"' in page, "the page links the previous section")
        # The page's code carries the file's line numbers in its margin (lines 3-4, the TODO markers, are
        # left out; the comment moved above its code has none), so a trace's "k.cuh:5" is the line marked 5.
        check('<span class="lineno">2</span><span class="keywordflow">for</span> (<span class="keywordtype">int</span> s'
              in page and '<span class="lineno">5</span>  work(s);' in page
              and '<span class="lineno">3</span>' not in page and '<span class="lineno">4</span>' not in page,
              "the page's code has the file's line numbers in its margin")
        check('See \\ref md_solutions_11_2_second_ANSWERS "the worksheet".' in page,
              "a link to a section's ANSWERS.md goes to its Doxygen page")
        other = open(f"{out}/p.md", encoding="utf-8").read()
        check('<img src="pic.png" alt="A picture with &lt;code&gt; words"/>' in other
              and "<code>x</code> &amp; more" in other and "\\image html" not in other,
              "an \\image html line of a page becomes a figure with alt text (escaped) and a link")
        first = open(f"{out}/section_11_1_first.md", encoding="utf-8").read()
        check('next: \\ref sec_11_2 "11.2 Second one"' in first, "a README without gen nav still gets the links")

        # The caption make_plots.py wrote from the run (fig_a.caption) follows the README's words; a typed
        # caption that names what the figure does not draw (Thrust here) is an error with --strict.
        write(f"{figs}/fig_a.caption", "One run, data/b.csv: GPU X. Drawn: every point the run has of k, memcpy.\n")
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        page = open(f"{out}/section_11_2_second.md", encoding="utf-8").read()
        check(r.returncode == 0 and '<img src="fig_a.png" alt="What it shows."/></a></div><div class="caption">What it shows. '
              'One run, data/b.csv: GPU X.' in page,
              f"the generated caption follows the README's ({r.stderr.strip()})")
        # make_plots.py's fig_a.size (the PNG's width, its smallest text in pixels): the page never shows the
        # figure so narrow that the text is under 10 px (1000 px with 20-px text: at least 500 px wide).
        write(f"{figs}/fig_a.size", '{"width_px": 1000, "smallest_text_px": 20}')
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        page = open(f"{out}/section_11_2_second.md", encoding="utf-8").read()
        check(r.returncode == 0 and '<img src="fig_a.png" alt="What it shows." style="min-width: 500px"/>' in page,
              f"the figure's min-width keeps its smallest text at 10 px ({r.stderr.strip()})")
        # With its narrow rendering (fig_a.narrow.png, 380 px with 19-px text: 200 px at the least), a phone's
        # screen shows that one (<picture>), and the page says how narrow it may be (check_site.py holds it
        # against a phone's column).
        write(f"{figs}/fig_a.narrow.png", "png")
        write(f"{figs}/fig_a.size", '{"width_px": 1000, "smallest_text_px": 20, '
                                    '"narrow": {"width_px": 380, "smallest_text_px": 19}}')
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        page = open(f"{out}/section_11_2_second.md", encoding="utf-8").read()
        check(r.returncode == 0 and '<a href="fig_a.png"><picture><source media="(max-width: 600px)" '
              'srcset="fig_a.narrow.png" data-min-width="200"/><img src="fig_a.png" alt="What it shows." '
              'style="min-width: 500px"/></picture></a>' in page,
              f"a phone's screen gets the narrow rendering ({r.stderr.strip()})")
        os.remove(f"{figs}/fig_a.narrow.png")
        os.remove(f"{figs}/fig_a.size")
        text = open(readme, encoding="utf-8").read()
        write(readme, text.replace("What it shows.", "What it shows, against Thrust and a copy."))
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 1 and "names Thrust, which the figure does not draw" in r.stderr,
              f"--strict: a caption naming a curve the figure does not draw is an error ({r.stderr.strip()})")
        write(readme, text)

        # Each figure once: a second page showing fig_a is an error with --strict. A link to a heading of
        # another section's README (README.md#slug, as a Git host makes the slug) goes to that heading's
        # id on its page; one to a heading the README lacks is an error.
        first_readme = f"{root}/chapters/11_1_first/README.md"
        first_text = open(first_readme, encoding="utf-8").read()
        write(first_readme, first_text.replace("Text.", "Text.\n\n<!-- figure fig_a Again. -->"))
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 1 and "figure fig_a is shown on chapters/11_1_first/README.md already" in r.stderr,
              f"--strict: a figure shown on two pages is an error ({r.stderr.strip()})")
        write(first_readme, first_text.replace("Text.", "See [the questions](../11_2_second/README.md#questions)."))
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        first = open(f"{out}/section_11_1_first.md", encoding="utf-8").read()
        second = open(f"{out}/section_11_2_second.md", encoding="utf-8").read()
        check(r.returncode == 0 and 'See \\ref sec_11_2_questions "the questions".' in first
              and "## Questions {#sec_11_2_questions}" in second,
              f"a link to a heading of another section lands on that heading's id ({r.stderr.strip()})")
        # A page of docs/pages/ that a README links: its own section's page (its name starts with the
        # section's id) nested under it in the tree (\subpage), any other (the lab notebook) only linked.
        write(f"{root}/docs/pages/11_1_more.md", "More on 11.1 {#more_11_1}\n===\n\nText.\n")
        write(f"{root}/docs/pages/notebook.md", "Notebook {#notebook}\n===\n\nText.\n")
        write(first_readme, first_text.replace("Text.", "See [more](../../docs/pages/11_1_more.md) and the "
                                                        "[notebook](../../docs/pages/notebook.md)."))
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        first = open(f"{out}/section_11_1_first.md", encoding="utf-8").read()
        check(r.returncode == 0 and '\\subpage more_11_1 "more"' in first and '\\ref notebook "notebook"' in first,
              f"a section's own page is its subpage, another page a link ({r.stderr.strip()})")
        os.remove(f"{root}/docs/pages/11_1_more.md")
        os.remove(f"{root}/docs/pages/notebook.md")
        write(first_readme, first_text.replace("Text.", "See [it](../11_2_second/README.md#nothing)."))
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 1 and "has no heading #nothing" in r.stderr, "--strict: a link to a missing heading is an error")
        write(first_readme, first_text)

        # A trace's rows name the barrier at which they were seen by FILE:LINE; the reader finds that line
        # in the page's snippets, so a line no snippet shows (k.cuh:8, after the loop) is an error.
        write(f"{gen}/trace_t.txt", "XY  after  k.cuh:5  [1 2]\n")
        write(readme, text.replace("<!-- gen counts", "<!-- gen trace t --><!-- /gen -->\n\n<!-- gen counts"))
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 0, f"a trace citing a line its page's snippet shows passes ({r.stderr.strip()})")
        write(f"{gen}/trace_t.txt", "XY  after  k.cuh:5  [1 2]\nXY  end  k.cuh:8  [1 3]\n")
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 1 and "a trace cites k.cuh:8, a line that no code snippet of the page shows" in r.stderr,
              f"--strict: a trace citing a line outside the page's snippets is an error ({r.stderr.strip()})")
        # A snippet of an earlier section's file (../FOLDER/FILE) shows the lines the trace names by the
        # file's name alone.
        write(f"{root}/solutions/11_1_first/j.cuh", "void g() {\n  sync();\n}\n")
        write(f"{gen}/trace_t.txt", "XY  after  k.cuh:5  [1 2]\nXY  after  j.cuh:2  [1 3]\n")
        write(readme, text.replace("<!-- gen counts", "<!-- gen trace t --><!-- /gen -->\n\n"
                                   "<!-- gen code ../11_1_first/j.cuh \"void g\" --><!-- /gen -->\n\n<!-- gen counts"))
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 0 and "solutions/11_1_first/j.cuh" in open(f"{out}/section_11_2_second.md").read(),
              f"a snippet of another section's file shows the lines a trace cites ({r.stderr.strip()})")
        write(readme, text)

        os.remove(f"{figs}/fig_a.png")
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 1 and "fig_a.png was not drawn" in r.stderr, "--strict: a missing figure is an error")
        write(f"{root}/solutions/11_2_second/k.cuh", "void f() {}\n")
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 1 and "no line holds" in r.stderr, "--strict: an anchor that matches nothing is an error")
    measurements()
    typed_numbers()
    questions()
    long_code()
    reports()
    log_rows()
    print(f"{len(failures)} check(s) failed" if failures else "all make_pages checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
