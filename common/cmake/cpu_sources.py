"""The kernel files of a cpu kernel library, as the host compiler can take them.

    python3 cpu_sources.py OUT_DIR FILE...

writes OUT_DIR/<name of FILE> for each FILE, the same text with one construct of CUDA that C++ cannot express rewritten in place, on the
same line, and a `#line 1 "FILE"` first, so every message and __FILE__ still names the student's file
and line:

    extern __shared__ float XY[];            ->  float* XY = ::scanlab::dynamic_shared<float>("XY");
    extern __shared__ __align__(16) unsigned char buf[];   (the same: the buffer is 16-byte aligned)

    __shared__ float XY[SECTION];   ->  static constexpr ::scanlab::emu::detail::StaticSharedSite
                                         scanlab_site_XY{"XY", __FILE__, __LINE__};
                                         float (&XY)[SECTION] = ::scanlab::emu::detail::static_shared<float[SECTION], 0>(scanlab_site_XY);
                                        (on one line)

A static array in a function becomes a reference to the block's instance of it, which the emulator
keeps between guard pages: a read or write past either end is a memory error naming the array
(C++ has no way to put a thread_local array there). Scalars, objects, several names in one
declaration and arrays at namespace scope keep the shim's `__shared__` (a thread_local with guard zones).

In a function (a kernel or a device function), an extern declaration becomes a pointer to the block's dynamic
shared memory: every such array of a launch starts at the same address, as on a GPU. At file or
namespace scope (CUDA allows it there too) it becomes a macro for that pointer, when the declaration
is alone on its line. Anything else is left as written; the shim's __shared__ then makes the build
error name the construct (common/include/scanlab/emu/cuda_shim.hpp).
"""
import os
import re
import sys

# One line, without "/": a comment that mentions "extern __shared__" never reaches into the code after it
# (a declaration written over several lines is left for the compiler to name).
DECLARATION = re.compile(
    r"\bextern\s+__shared__\s+(?P<type>[^;\[\]{}()/\n]*?(?:__align__\s*\(\s*\d+\s*\)[^;\[\]{}()/\n]*?)?)"
    r"\s*\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;")
# `[static] __shared__ [__align__(n)] TYPE NAME[DIM]...;` on one line (a DIM may divide, not hold a comment);
# TYPE without commas, parentheses or brackets (a template type with several arguments keeps the shim's __shared__).
STATIC_ARRAY = re.compile(
    r"(?<![\w.])(?:static\s+)?__shared__\s+(?P<type>[^;\[\]{}()/\n=,]*?(?:__align__\s*\(\s*(?P<align>\d+)\s*\)[^;\[\]{}()/\n=,]*?)?)"
    r"\s*\b(?P<name>[A-Za-z_]\w*)\s*(?P<dims>(?:\[(?:[^\[\];{}/\n]|/(?![/*]))+\]\s*)+);")
ALIGN = re.compile(r"__align__\s*\(\s*\d+\s*\)")
TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[{}]|\bnamespace\b|\bextern\s*"C"',
                    re.DOTALL)


def code_scopes(text):
    """[(offset, in a function)] at each brace, and the offsets inside comments and literals."""
    marks, stack, skip, opener = [], [], [], None
    for m in TOKENS.finditer(text):
        tok = m.group(0)
        if tok.startswith(("//", "/*", '"', "'")):
            skip.append((m.start(), m.end()))
        elif tok == "namespace" or tok.startswith("extern"):
            opener = "scope"
        elif tok == "{":
            stack.append(opener or "code")
            opener = None
            marks.append((m.start(), "code" in stack))
        else:  # "}"
            if stack:
                stack.pop()
            marks.append((m.start(), "code" in stack))
    return marks, skip


def rewrite(text):
    marks, skip = code_scopes(text)

    def in_function(at):
        inside = False
        for offset, state in marks:
            if offset >= at:
                break
            inside = state
        return inside

    def replace(m):
        if any(a <= m.start() < b for a, b in skip):
            return m.group(0)
        ctype = " ".join(ALIGN.sub(" ", m.group("type")).split())
        name = m.group("name")
        if not ctype:
            return m.group(0)
        if in_function(m.start()):
            return f"{ctype}* {name} = ::scanlab::dynamic_shared<{ctype}>(\"{name}\");"
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        if text[line_start:m.start()].strip() or text[m.end():line_end].strip():
            return m.group(0)  # shares its line: left for the compiler to name
        return f"#define {name} (::scanlab::dynamic_shared<{ctype}>(\"{name}\"))"

    def replace_static(m):
        if any(a <= m.start() < b for a, b in skip) or not in_function(m.start()):
            return m.group(0)
        ctype = " ".join(ALIGN.sub(" ", m.group("type")).split())
        if not ctype or ctype in ("static", "extern") or ctype.startswith("extern "):
            return m.group(0)
        name, dims, align = m.group("name"), " ".join(m.group("dims").split()), m.group("align") or "0"
        site = f"scanlab_site_{name}"
        return (f"static constexpr ::scanlab::emu::detail::StaticSharedSite {site}{{\"{name}\", __FILE__, __LINE__}}; "
                f"{ctype} (&{name}){dims} = ::scanlab::emu::detail::static_shared<{ctype}{dims}, {align}>({site});")

    text = DECLARATION.sub(replace, text)
    # Offsets changed: find the scopes again.
    marks, skip = code_scopes(text)
    return STATIC_ARRAY.sub(replace_static, text)


def main(argv):
    out_dir, files = argv[0], argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    for path in files:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        quoted = path.replace("\\", "\\\\").replace('"', '\\"')
        new = f'#line 1 "{quoted}"\n' + rewrite(text)
        # Always written: the build runs this when a FILE is newer than its copy, and a copy left
        # older would make it run (and recompile the library) on every build.
        with open(os.path.join(out_dir, os.path.basename(path)), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
