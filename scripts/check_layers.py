#!/usr/bin/env python3
"""Checks that every part links exactly the parts it includes.

The compiler enforces only half of the layer graph: a library gets the include roots of what it
links and of everything those link publicly, so an include of a layer it reaches only through
another one compiles, and a link it no longer uses costs nothing visible. This check closes both
gaps. For each part below it reads the part's xrpm link dependencies from its CMakeLists.txt (the
one statement of the graph: `xrpm_core_layer(NAME DEPS ...)` and `target_link_libraries(TARGET
...)`) and scans the part's sources for `#include "xrpm/<component>/..."`. It fails when
  - a file includes a component its part does not link directly (nor is), or
  - a part links an xrpm library whose component none of its files includes (a stale link).

Usage: scripts/check_layers.py [--root DIR]     (CTest: `ctest -L layers`)
       scripts/check_layers.py --self-test      the check on a copy of the parts with one include
                                                of an upper layer and one stale link added: both
                                                must be reported
Exit status 0 when the graph holds (or the self-test passes), 1 with one line per violation
(file:line: ...) otherwise. Python 3 standard library only.
"""

import argparse
import pathlib
import re
import shutil
import sys
import tempfile

# The parts checked: name -> (CMakeLists.txt, targets whose link dependencies are the part's,
# source folders, files or folders left out, own component). A part's files may include its own
# component and the components of the xrpm libraries its targets link.
PARTS = {
    "protocol": ("protocol/CMakeLists.txt", ["xrpm_protocol_lite"], ["protocol"], [], "protocol"),
    "device-agent": ("device-agent/CMakeLists.txt", ["xrpm_device_agent"],
                     ["device-agent/include", "device-agent/src"], [], "agent"),
    "model": ("host-monitor/core/model/CMakeLists.txt", ["xrpm_model"],
              ["host-monitor/core/model"], [], "model"),
    "formats": ("host-monitor/core/formats/CMakeLists.txt", ["xrpm_formats"],
                ["host-monitor/core/formats"], [], "formats"),
    "analysis": ("host-monitor/core/analysis/CMakeLists.txt", ["xrpm_analysis"],
                 ["host-monitor/core/analysis"], [], "analysis"),
    "client": ("host-monitor/core/client/CMakeLists.txt", ["xrpm_client"],
               ["host-monitor/core/client"], [], "client"),
    "app": ("host-monitor/core/app/CMakeLists.txt", ["xrpm_app"], ["host-monitor/core/app"], [],
            "app"),
    "cli": ("host-monitor/cli/CMakeLists.txt", ["xrpm"], ["host-monitor/cli"], [], None),
    "gui": ("host-monitor/gui/CMakeLists.txt", ["xrpm_monitor_ui", "xrpm-monitor"],
            ["host-monitor/gui"], [], None),
    "tests/support": ("tests/support/CMakeLists.txt", ["xrpm_test_support"], ["tests/support"], [],
                      None),
}

# The component (include folder xrpm/<component>/) of each xrpm library a part may link. A
# library not listed here and not named xrpm_<component> is not an include layer (an interface
# target for a third-party library, the GUI's own window contents) and is not checked.
COMPONENT_OF = {
    "xrpm_protocol": "protocol",
    "xrpm_protocol_lite": "protocol",
    "xrpm_device_agent": "agent",
    "xrpm_emulator_runtime": "emulator",
    "xrpm_model": "model",
    "xrpm_formats": "formats",
    "xrpm_analysis": "analysis",
    "xrpm_client": "client",
    "xrpm_app": "app",
}

SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](xrpm/([A-Za-z0-9_]+)/[^">]+)[">]')
CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)", re.S)
LINK_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "DEPS", "LINK_PUBLIC", "LINK_PRIVATE"}


def cmake_calls(text):
    """(command, [arguments]) of each call in a CMakeLists.txt, comments removed."""
    text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    for m in CALL.finditer(text):
        yield m.group(1).lower(), m.group(2).split()


def link_deps(cmake_file, targets):
    """The libraries the targets link, from target_link_libraries and xrpm_core_layer calls."""
    deps = []
    for command, args in cmake_calls(cmake_file.read_text()):
        if not args:
            continue
        if command == "target_link_libraries" and args[0] in targets:
            deps += [a for a in args[1:] if a not in LINK_KEYWORDS]
        elif command == "xrpm_core_layer" and "xrpm_" + args[0] in targets:
            deps += [a for a in args[1:] if a not in LINK_KEYWORDS]
    return [d for d in dict.fromkeys(deps) if d not in targets]


def component_of(lib):
    return COMPONENT_OF.get(lib)


def library_of(component):
    """The library to link for a component (the first one COMPONENT_OF names)."""
    return next((lib for lib, c in COMPONENT_OF.items() if c == component), "xrpm_" + component)


def sources(root, folders, excluded):
    skip = {root / e for e in excluded}
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                if not any(s == path or s in path.parents for s in skip):
                    yield path


def check(root):
    problems = []
    for part, (cmake, targets, folders, excluded, own) in PARTS.items():
        cmake_file = root / cmake
        deps = link_deps(cmake_file, targets)
        allowed = {}  # component -> the library that gives it
        for lib in deps:
            c = component_of(lib)
            if c:
                allowed.setdefault(c, lib)
        may = sorted(set(allowed) | ({own} if own else set()))
        may_text = ", ".join("xrpm/%s/" % c for c in may) or "no xrpm/ headers"
        used = set()
        for path in sources(root, folders, excluded):
            rel = path.relative_to(root)
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                header, c = m.group(1), m.group(2)
                if c == own:
                    continue
                used.add(c)
                if c not in allowed:
                    problems.append(
                        '%s:%d: #include "%s": %s (%s) does not link %s; it may include %s'
                        " (link %s in %s, or drop the include)"
                        % (rel, n, header, part, " ".join(targets), library_of(c), may_text,
                           library_of(c), cmake))
        for c, lib in sorted(allowed.items()):
            if c != own and c not in used:
                problems.append(
                    "%s: %s (%s) links %s but none of its files includes xrpm/%s/: a stale"
                    " dependency, drop it" % (cmake, part, " ".join(targets), lib, c))
    return problems


def self_test(root):
    """The check must catch what the compiler lets through: analysis including the app (which it
    does not link) and analysis linking the client (whose headers it never includes)."""
    with tempfile.TemporaryDirectory(prefix="check_layers.") as tmp:
        copy = pathlib.Path(tmp)
        for cmake, _, folders, _, _ in PARTS.values():
            (copy / cmake).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(root / cmake, copy / cmake)
            for folder in folders:
                shutil.copytree(root / folder, copy / folder, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("*.proto", "*.md"))
        if check(copy):
            print("self-test: the unchanged copy already fails")
            return 1
        site = copy / "host-monitor/core/analysis/src/site_stats.cpp"
        lines = site.read_text().splitlines(keepends=True)
        lines.insert(1, '#include "xrpm/app/app_session.h"\n')
        site.write_text("".join(lines))
        cm = copy / "host-monitor/core/analysis/CMakeLists.txt"
        cm.write_text(cm.read_text().replace("xrpm_core_layer(analysis DEPS",
                                             "xrpm_core_layer(analysis DEPS xrpm_client"))
        problems = check(copy)
        for p in problems:
            print("self-test found: " + p)
        want = ['host-monitor/core/analysis/src/site_stats.cpp:2: #include "xrpm/app/app_session.h"',
                "links xrpm_client but none of its files includes xrpm/client/"]
        missing = [w for w in want if not any(w in p for p in problems)]
        if missing or len(problems) != len(want):
            print("self-test: expected exactly one report containing each of %s" % want)
            return 1
    print("check_layers self-test: an upper-layer include and a stale link are both reported")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent,
                    type=pathlib.Path, help="the repository (default: this script's)")
    ap.add_argument("--self-test", action="store_true",
                    help="check that a bad include and a stale link are reported")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.root.resolve())
    problems = check(args.root.resolve())
    for p in problems:
        print(p)
    if problems:
        print("check_layers: %d problem(s); the graph is each part's link dependencies in its"
              " CMakeLists.txt (docs/ARCHITECTURE.md)" % len(problems), file=sys.stderr)
        return 1
    print("check_layers: %d parts, each includes exactly the layers it links" % len(PARTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
