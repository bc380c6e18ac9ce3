"""What Python's import system does beside the import statements (breaker4's E6/E10, issue 12):
the closure rules of ``closure`` (``<loads>``) in both directions. Each ``changed`` pair is a
behavioural edit the hash must see; each ``equal`` pair is the ordinary code the rule must not
fire on (DESIGN §6: widen where the reach cannot be decided, never blindly).

E10: ``shop.b`` is an attribute of the package ``shop`` only once some import loaded the
submodule, so a flow that reads it so (``import shop.a`` then ``shop.b.f()``) without importing it
depends on which of the modules that run import it. E6: the same attribute set over a name the
package binds itself (``def tools()`` in ``shop/__init__.py`` beside ``shop/tools.py``): ``from
shop import tools`` is the function or the module. The adversarial pairs themselves are in
``fp2_cases_adversarial._breaker4_pairs``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fp2_cases_adversarial import C, E, ProjectPair, edit, flow, project
from pair_harness import assert_pair, assert_well_formed, fingerprint

B = "def f():\n    return 1\n"
ADD_IMPORT = ("shop/a.py", "X = 1\n", "X = 1\nimport shop.b\n")


def _submodule_attribute_pairs() -> list[ProjectPair]:
    out: list[ProjectPair] = []
    add = out.append
    k = "a submodule read as its package's attribute"
    # every spelling of the read, each with another module starting to import the submodule
    for name, body, head in (
            ("through-another-submodule-import", "return shop.b.f()", "import shop.a"),
            ("through-the-package-import", "return shop.b.f()", "import shop\nimport shop.a"),
            ("kept-in-a-name", "m = shop.b\nreturn m.f()", "import shop.a"),
            ("lazy-import-of-another-submodule", "import shop.a\nreturn shop.b.f()", ""),
            ("lazy-import-of-the-package", "import shop\nimport shop.a\nreturn shop.b.f()", ""),
            ("through-an-alias-of-the-package", "return s.b.f()", "import shop.a\nimport shop as s")):
        base = project(flow(body, head), a="X = 1\n", b=B)
        add(C(f"submodule-read-{name}-another-module-starts-importing-it", k, base, edit(base, *ADD_IMPORT)))
    # a nested package: each step is an attribute read
    base = {**project(flow("return shop.sub.b.f()", "import shop.a"), a="import shop.sub\n", sub__b=B),
            "shop/sub/__init__.py": ""}
    add(C("nested-submodule-read-another-module-starts-importing-it", k, base,
          edit(base, "shop/a.py", "import shop.sub\n", "import shop.sub\nimport shop.sub.b\n")))
    # the import moved into a function nothing calls: no longer loaded
    base = project(flow("return shop.b.f()", "import shop.a"), a="import shop.b\n", b=B)
    add(C("the-other-modules-import-moved-into-a-function", k, base,
          edit(base, "shop/a.py", "import shop.b\n", "def load():\n    import shop.b\n")))
    add(C("the-submodules-own-code-edited", k, base, edit(base, "shop/b.py", "return 1", "return 2")))
    # ordinary code: the submodule is certainly loaded, whoever else imports it
    for name, body, head, files in (
            ("the-flow-module-imports-it", "return shop.b.f()", "import shop.b", {}),
            ("a-from-import-of-it", "return f()", "from shop.b import f", {}),
            ("a-from-import-of-the-submodule", "return b.f()", "from shop import b", {}),
            ("an-import-as", "return m.f()", "import shop.b as m", {}),
            ("a-lazy-import-of-it", "import shop.b\nreturn shop.b.f()", "", {}),
            ("a-lazy-from-import", "from shop.b import f\nreturn f()", "", {}),
            ("the-package-imports-it", "return shop.b.f()", "import shop", {"init": "import shop.b\n"}),
            ("the-package-from-imports-it", "return shop.b.f()", "import shop", {"init": "from . import b\n"}),
            ("the-package-imports-a-name-of-it", "return shop.b.f()", "import shop",
             {"init": "from .b import f\n"})):
        # the flow runs shop.a (so its new import runs too)
        base = project(flow(body, head + "\nimport shop.a"), a="X = 1\n", b=B, **files)
        add(E(f"submodule-certainly-loaded-{name}-another-module-starts-importing-it", k, base, edit(base, *ADD_IMPORT)))
    # a flow that reads no submodule so: another module's imports are none of its business
    base = project(flow("return shop.a.X", "import shop.a"), a="X = 1\n", b=B)
    add(E("no-submodule-read-another-module-starts-importing-one", k, base, edit(base, *ADD_IMPORT)))
    return out


def _rebound_attribute_pairs() -> list[ProjectPair]:
    out: list[ProjectPair] = []
    add = out.append
    k = "a submodule import rebinds the package's attribute"
    init = "def tools():\n    return 'fn'\n"
    for name, body, head in (
            ("from-import", "return tools()", "from shop import tools"),
            ("lazy-from-import", "from shop import tools\nreturn tools()", ""),
            ("package-attribute", "return shop.tools()", "import shop"),
            ("package-attribute-lazily", "import shop\nreturn shop.tools()", "")):
        base = {**project(flow(body, head + "\nimport shop.loader"), init=init, tools="V = 1\n", loader="X = 1\n")}
        add(C(f"package-function-named-like-a-submodule-{name}-another-module-starts-importing-it", k, base,
              edit(base, "shop/loader.py", "X = 1\n", "import shop.tools\n")))
    # once it is the module, its content is what the flow runs
    base = project(flow("return tools.V", "from shop import tools\nimport shop.loader"), init=init, tools="V = 1\n",
                   loader="import shop.tools\n")
    add(C("package-function-rebound-to-the-submodule-its-content-edited", k, base,
          edit(base, "shop/tools.py", "V = 1", "V = 2")))
    # the package's own order decides: its binding after its import of the submodule wins
    base = project(flow("return tools()", "from shop import tools"), init="import shop.tools\n\n\n" + init,
                   tools="V = 1\n")
    add(C("the-package-binds-the-name-before-importing-the-submodule", k, base,
          edit(base, "shop/__init__.py", "import shop.tools\n\n\n" + init, init + "\n\nimport shop.tools\n")))
    # ordinary code: no submodule of that name, or the package binds the name to the submodule itself
    base = project(flow("return tools()", "from shop import tools\nimport shop.loader"), init=init, other="V = 1\n",
                   loader="X = 1\n")
    add(E("package-function-with-no-submodule-of-its-name-another-module-starts-importing-one", k, base,
          edit(base, "shop/loader.py", "X = 1\n", "import shop.other\n")))
    base = project(flow("return tools.V", "from shop import tools\nimport shop.loader"), init="from . import tools\n",
                   tools="V = 1\n", loader="X = 1\n")
    add(E("package-binding-the-submodule-itself-another-module-starts-importing-it", k, base,
          edit(base, "shop/loader.py", "X = 1\n", "import shop.tools\n")))
    return out


VENDOR = "def f():\n    return 1\n"
JOIN = "os.path.join(os.path.dirname(__file__), 'vendor')"


def _search_path_pairs() -> list[ProjectPair]:
    """E9: a directory the package puts on ``sys.path`` or its ``__path__`` is where an import
    finds its file, for every spelling of a path the compiler can decide."""
    out: list[ProjectPair] = []
    add = out.append
    k = "module lookup through sys.path and __path__"
    for name, init in (
            ("os-path-join-insert", f"import os\nimport sys\n\nsys.path.insert(0, {JOIN})\n"),
            ("os-path-join-append", f"import os\nimport sys\n\nsys.path.append({JOIN})\n"),
            ("abspath-of-dirname", "import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname("
                                   "os.path.abspath(__file__)), 'vendor'))\n"),
            ("realpath-through-a-constant", "import os\nimport sys\n\nHERE = os.path.dirname(os.path.realpath(__file__))"
                                            "\nsys.path.insert(0, os.path.join(HERE, 'vendor'))\n"),
            ("pathlib-parent-divided", "import sys\nfrom pathlib import Path\n\nsys.path.insert(0, str(Path(__file__)"
                                       ".parent / 'vendor'))\n"),
            ("pathlib-resolve-joinpath", "import sys\nimport pathlib\n\nsys.path.insert(0, str(pathlib.Path(__file__)"
                                         ".resolve().parent.joinpath('vendor')))\n"),
            ("from-imported-join", "from os.path import dirname, join\nfrom sys import path\n\n"
                                   "path.insert(0, join(dirname(__file__), 'vendor'))\n"),
            ("extend-with-a-list", f"import os\nimport sys\n\nsys.path.extend([{JOIN}])\n"),
            ("slice-assignment", f"import os\nimport sys\n\nsys.path[0:0] = [{JOIN}]\n")):
        base = {**project(flow("import helper\nreturn helper.f()"), init=init), "shop/vendor/helper.py": VENDOR}
        add(C(f"sys-path-{name}-module-edited", k, base, edit(base, "shop/vendor/helper.py", "return 1", "return 2")))
    base = {**project(flow("return helper.f()", "import helper"),
                      init=f"import os\nimport sys\n\nsys.path.insert(0, {JOIN})\n"), "shop/vendor/helper.py": VENDOR}
    add(C("sys-path-module-imported-at-module-level-edited", k, base,
          edit(base, "shop/vendor/helper.py", "return 1", "return 2")))
    # a directory above the package (``..``), still in the project
    base = {**project(flow("import helper\nreturn helper.f()"),
                      init="import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', "
                           "'libs'))\n"), "libs/helper.py": VENDOR}
    add(C("sys-path-directory-above-the-package-edited", k, base, edit(base, "libs/helper.py", "return 1", "return 2")))
    for name, init in (
            ("append", "import os\n\n__path__.append(os.path.join(os.path.dirname(__file__), 'extra'))\n"),
            ("insert", "import os\n\n__path__.insert(0, os.path.join(os.path.dirname(__file__), 'extra'))\n"),
            ("augmented", "import os\n\n__path__ += [os.path.join(os.path.dirname(__file__), 'extra')]\n")):
        base = {**project(flow("from shop.plug import f\nreturn f()"), init=init), "shop/extra/plug.py": VENDOR}
        add(C(f"package-path-{name}-module-edited", k, base, edit(base, "shop/extra/plug.py", "return 1", "return 2")))
    # Python's order: ``insert(0, d)`` puts d before the package's own directory
    base = {**project(flow("from shop.plug import f\nreturn f()"),
                      init="import os\n\n__path__.append(os.path.join(os.path.dirname(__file__), 'extra'))\n",
                      plug="def f():\n    return 0\n"), "shop/extra/plug.py": VENDOR}
    add(C("package-path-appended-then-inserted-first", k, base,
          edit(base, "shop/__init__.py", "__path__.append(os.path", "__path__.insert(0, os.path")))
    add(C("package-path-appended-its-own-module-wins-edited", k, base, edit(base, "shop/plug.py", "return 0", "return 5")))
    add(E("package-path-appended-the-shadowed-module-edited", k, base,
          edit(base, "shop/extra/plug.py", "return 1", "return 2")))
    # F9: the rest of the family: several directories in one statement, a list assigned over the
    # whole path, values built through names, site.addsitedir; each with the module in the last one
    two = "os.path.join(os.path.dirname(__file__), 'a'), os.path.join(os.path.dirname(__file__), 'vendor')"
    for name, init in (
            ("slice-assignment-of-two", f"import os\nimport sys\n\nsys.path[0:0] = [{two}]\n"),
            ("extend-with-two", f"import os\nimport sys\n\nsys.path.extend([{two}])\n"),
            ("extend-with-a-tuple", f"import os\nimport sys\n\nsys.path.extend(({two}))\n"),
            ("assigned-over-the-whole-path", f"import os\nimport sys\n\nsys.path = [{two}]\n"),
            ("through-two-names", "import os\nimport sys\n\nHERE = os.path.dirname(__file__)\n"
                                  "VENDOR = os.path.join(HERE, 'vendor')\nsys.path.insert(0, VENDOR)\n"),
            ("in-a-function-through-local-names", "import os\nimport sys\n\n\ndef setup():\n"
             "    here = os.path.dirname(__file__)\n    vendor = os.path.join(here, 'vendor')\n"
             "    sys.path.insert(0, vendor)\n\n\nsetup()\n"),
            ("site-addsitedir", f"import os\nimport site\n\nsite.addsitedir({JOIN})\n"),
            ("from-site-import-addsitedir", f"import os\nfrom site import addsitedir\n\naddsitedir(sitedir={JOIN})\n")):
        base = {**project(flow("import helper\nreturn helper.f()"), init=init), "shop/vendor/helper.py": VENDOR}
        add(C(f"sys-path-{name}-module-edited", k, base, edit(base, "shop/vendor/helper.py", "return 1", "return 2")))
    # Python's order between two directories holding the module: the one inserted last wins
    base = {**project(flow("import helper\nreturn helper.f()"),
                      init="import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'a'))\n"
                           f"sys.path.insert(0, {JOIN})\n"),
            "shop/vendor/helper.py": VENDOR, "shop/a/helper.py": "def f():\n    return 0\n"}
    add(C("sys-path-two-inserts-first-the-later-one-edited", k, base,
          edit(base, "shop/vendor/helper.py", "return 1", "return 2")))
    add(E("sys-path-two-inserts-first-the-shadowed-one-edited", k, base,
          edit(base, "shop/a/helper.py", "return 0", "return 5")))
    # a ``__path__`` assigned a list: searched in the list's order; without the package's own
    # directory, its own module of that name is never imported
    own = "os.path.dirname(__file__)"
    extra = "os.path.join(os.path.dirname(__file__), 'extra')"
    for name, listed in (("own-directory-first", f"[{own}, {extra}]"), ("extra-only", f"[{extra}]"),
                         ("a-tuple", f"({own}, {extra})")):
        base = {**project(flow("from shop.plug import f\nreturn f()"), init=f"import os\n\n__path__ = {listed}\n"),
                "shop/extra/plug.py": VENDOR}
        add(C(f"package-path-assigned-{name}-module-edited", k, base, edit(base, "shop/extra/plug.py", "return 1", "return 2")))
    base = {**project(flow("from shop.plug import f\nreturn f()"), init=f"import os\n\n__path__ = [{extra}, {own}]\n",
                      plug="def f():\n    return 0\n"), "shop/extra/plug.py": VENDOR}
    add(C("package-path-assigned-extra-before-own-the-extra-module-edited", k, base,
          edit(base, "shop/extra/plug.py", "return 1", "return 2")))
    base = {**project(flow("from shop.plug import f\nreturn f()"), init=f"import os\n\n__path__ = [{own}, {extra}]\n",
                      plug="def f():\n    return 0\n"), "shop/extra/plug.py": VENDOR}
    add(C("package-path-assigned-own-before-extra-the-own-module-edited", k, base,
          edit(base, "shop/plug.py", "return 0", "return 5")))
    add(E("package-path-assigned-own-before-extra-the-shadowed-module-edited", k, base,
          edit(base, "shop/extra/plug.py", "return 1", "return 2")))
    # ordinary code: a site directory nothing imports from
    base = {**project(flow("return 1"), init=f"import os\nimport site\n\nsite.addsitedir({JOIN})\n"),
            "shop/vendor/helper.py": VENDOR}
    add(E("site-dir-nothing-imports-from-edited", k, base, edit(base, "shop/vendor/helper.py", "return 1", "return 2")))
    # ordinary code: a third-party directory on sys.path, a module found first-party anyway
    base = project(flow("import json\nreturn json.dumps(o)"),
                   init="import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'vendor'))\n",
                   pricing="RATE = 1\n")
    base = {**base, "shop/vendor/other.py": VENDOR}
    add(E("sys-path-entry-a-module-of-it-the-flow-does-not-import-edited", k, base,
          edit(base, "shop/vendor/other.py", "return 1", "return 2")))
    base = {**project(flow("import helper\nreturn helper.f()"),
                      init="import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'vendor'))\n"),
            "shop/vendor/helper.py": VENDOR}
    add(E("sys-path-entry-another-package-statement-edited", k, base, edit(base, "shop/__init__.py", "import os\n",
                                                                          "import os\n\nX = 1\n")))
    return out


def _loaded_by_path_pairs() -> list[ProjectPair]:
    """L2: first-party code loaded by a path the compiler can decide is code the flow reaches."""
    out: list[ProjectPair] = []
    add = out.append
    k = "code loaded by path"
    path = "os.path.join(os.path.dirname(__file__), 'plug.py')"
    for name, body in (
            ("spec-from-file-location", f"spec = importlib.util.spec_from_file_location('plug', {path})\n"
                                        "    mod = importlib.util.module_from_spec(spec)\n    spec.loader.exec_module(mod)\n"
                                        "    return mod.V"),
            ("spec-from-file-location-keyword", f"spec = importlib.util.spec_from_file_location('plug', location={path})\n"
                                                "    mod = importlib.util.module_from_spec(spec)\n"
                                                "    spec.loader.exec_module(mod)\n    return mod.V"),
            ("run-path", f"return runpy.run_path({path})['V']"),
            ("source-file-loader", f"return importlib.machinery.SourceFileLoader('plug', {path}).load_module().V"),
            ("exec-of-open-read", f"ns = {{}}\n    exec(open({path}).read(), ns)\n    return ns['V']"),
            ("exec-of-path-read-text", "ns = {}\n    exec((Path(__file__).parent / 'plug.py').read_text(), ns)\n"
                                       "    return ns['V']"),
            ("a-local-path-name", f"p = {path}\n    return runpy.run_path(p)['V']"),
            ("a-module-constant", "return runpy.run_path(PLUG)['V']")):
        loader = ("import importlib.machinery\nimport importlib.util\nimport os\nimport runpy\nfrom pathlib import Path\n\n"
                  f"PLUG = {path}\n\n\ndef load():\n    {body}\n")
        base = project(flow("return load()", "from shop.load import load"), load=loader, plug="V = 1\n")
        add(C(f"loaded-by-path-{name}-module-edited", k, base, edit(base, "shop/plug.py", "V = 1", "V = 2")))
    # in the flow itself
    base = project(flow(f"return runpy.run_path({path})['V']", "import os\nimport runpy"), plug="V = 1\n")
    add(C("loaded-by-path-in-the-flow-module-edited", k, base, edit(base, "shop/plug.py", "V = 1", "V = 2")))
    # F10: code run from a project file that is no module (``.txt``, ``.cfg``, no suffix): its bytes
    for name, file, body in (
            ("exec-of-open-read", "shop/plug.txt", "ns = {}\n    exec(open(os.path.join(os.path.dirname(__file__), "
                                                   "'plug.txt')).read(), ns)\n    return ns['V']"),
            ("exec-of-compile-of-read-text", "shop/rules.cfg", "ns = {}\n    p = Path(__file__).parent / 'rules.cfg'\n"
                                                                 "    exec(compile(p.read_text(), str(p), 'exec'), ns)\n"
                                                                 "    return ns['V']"),
            ("run-path-of-a-file-without-suffix", "shop/plug", "return runpy.run_path(os.path.join("
                                                               "os.path.dirname(__file__), 'plug'))['V']"),
            ("run-path-of-a-py-file-above-the-package", "tools/plug.py",
             "return runpy.run_path(os.path.join(os.path.dirname(__file__), '..', 'tools', 'plug.py'))['V']")):
        loader = f"import os\nimport runpy\nfrom pathlib import Path\n\n\ndef load():\n    {body}\n"
        base = {**project(flow("return load()", "from shop.load import load"), load=loader), file: "V = 1\n"}
        add(C(f"code-run-from-a-file-{name}-edited", k, base, edit(base, file, "V = 1", "V = 2")))
        add(C(f"code-run-from-a-file-{name}-deleted", k, base, {p: t for p, t in base.items() if p != file}))
    # ordinary code: the same file only read as data, or exec'd by a loader nothing the flow runs calls
    base = {**project(flow("return load()", "from shop.load import load"),
                      load="import os\n\n\ndef load():\n    return open(os.path.join(os.path.dirname(__file__), "
                           "'plug.txt')).read()\n\n\ndef other():\n    exec(open(os.path.join(os.path.dirname("
                           "__file__), 'other.txt')).read(), {})\n"), "shop/plug.txt": "V = 1\n", "shop/other.txt": "V = 1\n"}
    add(E("a-data-file-only-read-edited", k, base, edit(base, "shop/plug.txt", "V = 1", "V = 2")))
    add(E("a-file-executed-by-a-function-the-flow-does-not-call-edited", k, base,
          edit(base, "shop/other.txt", "V = 1", "V = 2")))
    # ordinary code: a data file opened by path is no code; a loader nothing the flow runs calls
    base = project(flow("return load()", "from shop.load import load"),
                   load=f"import os\n\n\ndef load():\n    return open({path}).read()\n", plug="V = 1\n")
    add(E("a-file-only-read-edited", k, base, edit(base, "shop/plug.py", "V = 1", "V = 2")))
    base = project(flow("return 1", "from shop import load"),
                   load=f"import os\nimport runpy\n\n\ndef load():\n    return runpy.run_path({path})\n", plug="V = 1\n")
    add(E("a-loader-the-flow-does-not-call-edited", k, base, edit(base, "shop/plug.py", "V = 1", "V = 2")))
    return out


PAIRS = tuple(_submodule_attribute_pairs() + _rebound_attribute_pairs() + _search_path_pairs() + _loaded_by_path_pairs())


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)


def test_the_loads_member_names_the_modules_that_import_the_submodule(tmp_path: Path) -> None:
    """``loom fingerprint --explain`` shows why: the member ``<flow module>#loads`` lists, per
    submodule read, the modules that run and import it, with their import statements."""
    files = project(flow("return shop.b.f()", "import shop.a"), a="import shop.b\n", b=B)
    pair = ProjectPair("x", "changed", "", files, files)
    fp = fingerprint(tmp_path, pair, files)
    (loads,) = [m for m in fp.closure if m.qualname == "shop.flows#loads"]
    assert "(loads shop.b)" in loads.canonical and "(module shop.a shop.b)" in loads.canonical
    assert "which modules that run import a submodule" in loads.reason


def _warnings(tmp_path: Path, files: dict[str, str]) -> list[str]:
    pair = ProjectPair("x", "changed", "", files, files)
    fp = fingerprint(tmp_path, pair, files)
    return [f"{w.path}:{w.line}:{w.column}:{w.code}" for w in fp.warnings]


def test_an_undecidable_sys_path_entry_of_a_module_that_runs_is_warned_at_its_position(tmp_path: Path) -> None:
    files = project(flow("return 1"), init="import os\nimport sys\n\nsys.path.insert(0, os.environ['LIBS'])\n")
    assert _warnings(tmp_path / "a", files) == ["shop/__init__.py:4:1:path-undecidable"]
    files = project(flow("return 1"), init="__path__.append(where())\n")
    assert _warnings(tmp_path / "b", files) == ["shop/__init__.py:1:1:path-undecidable"]
    # a working-directory relative entry depends on where the process starts
    files = project(flow("return 1"), init="import sys\n\nsys.path.append('vendor')\n")
    assert _warnings(tmp_path / "c", files) == ["shop/__init__.py:3:1:path-undecidable"]


def test_decided_and_namespace_package_path_changes_are_not_warned(tmp_path: Path) -> None:
    files = project(flow("return 1"), init=f"import os\nimport sys\n\nsys.path.insert(0, {JOIN})\n"
                                           "__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n")
    assert _warnings(tmp_path / "a", files) == []
    # a module that does not run for the flow is none of its business
    files = project(flow("return 1"), other="import os\nimport sys\n\nsys.path.insert(0, os.environ['LIBS'])\n")
    assert _warnings(tmp_path / "b", files) == []


def test_an_undecidable_load_by_path_in_reached_code_is_warned_at_its_position(tmp_path: Path) -> None:
    load = "import runpy\n\n\ndef load(name):\n    return runpy.run_path(name)\n\n\ndef other(name):\n    return runpy.run_path(name)\n"
    files = project(flow("return load(o)", "from shop.load import load"), load=load)
    assert _warnings(tmp_path / "a", files) == ["shop/load.py:5:12:path-undecidable"]
    # a path decided to a file that is not there: the code run there is unknown, said so where it is loaded
    files = project(flow("return load()", "from shop.load import load"),
                    load="import os\nimport runpy\n\n\ndef load():\n    return runpy.run_path(os.path.join("
                         "os.path.dirname(__file__), 'plug.txt'))\n")
    (warning,) = fingerprint(tmp_path / "b", ProjectPair("x", "changed", "", files, files), files).warnings
    assert "`shop/plug.txt`, which the fingerprint cannot read (absent)" in warning.message
    assert (warning.path, warning.line, warning.column, warning.code) == ("shop/load.py", 6, 12, "path-undecidable")
    # there: hashed by its bytes, no warning; unless its code imports (what it imports is not followed)
    assert fingerprint(tmp_path / "c", ProjectPair("x", "changed", "", files, files),
                       {**files, "shop/plug.txt": "V = 1\n"}).warnings == ()
    (warning,) = fingerprint(tmp_path / "d", ProjectPair("x", "changed", "", files, files),
                             {**files, "shop/plug.txt": "from shop.pricing import V\n"}).warnings
    assert "imports: the fingerprint hashes the file's bytes" in warning.message and warning.line == 6


def test_the_cli_prints_the_warning_and_succeeds(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from helpers.project_files import write_files
    from loom_compiler.cli import main

    write_files(tmp_path, project(flow("return 1"), init="import os\nimport sys\n\nsys.path.insert(0, os.getcwd())\n"))
    (tmp_path / "pyproject.toml").write_text("[tool.loom]\npackages = ['shop']\n", encoding="utf-8")
    run = CliRunner().invoke(main, ["fingerprint", str(tmp_path), "--root", str(tmp_path)])
    assert run.exit_code == 0, run.output
    assert "warning: shop/__init__.py:4:1: `sys.path.insert` adds a directory the compiler cannot decide" in run.stderr


CHUNK_RUN = """
import sys
from loom_runtime.registry import Registry

sys.path.insert(0, sys.argv[1])
(version,) = Registry.from_manifest(sys.argv[1] + '/build/loom/manifest.json').versions('checkout')
try:
    print(version.runner()(None, 0))
except Exception as exc:
    print(type(exc).__name__, exc)
"""


@pytest.mark.parametrize("load", ["ns = {}\n    exec(open(P).read(), ns)\n    return ns['V']", "return runpy.run_path(P)['V']"])
def test_a_chunk_runs_code_loaded_by_path_only_while_the_file_is_as_built(tmp_path: Path, load: str) -> None:
    """L2 in a chunk: the code a flow loads by path runs from the file next to the live module (not
    bundled), so the chunk's header pins the file's digest and the loader refuses the chunk once
    the file no longer holds those bytes (an old execution would run new code), naming the file."""
    import subprocess
    import sys

    from helpers.project_files import write_files
    from loom_compiler import LoomConfig
    from loom_compiler.bundle.build import build_project

    plug = "shop/plug.txt" if "exec" in load else "shop/plug.py"
    files = project(flow("return load()", "from shop.load import load"),
                    load=f"import os\nimport runpy\n\nP = os.path.join(os.path.dirname(__file__), '{plug[5:]}')\n\n\n"
                         f"def load():\n    {load}\n")
    write_files(tmp_path, {**files, plug: "V = 1\n"})
    report = build_project(LoomConfig(root=tmp_path, packages=("shop",)))
    assert report.ok, report.errors
    (chunk,) = (tmp_path / "build/loom/chunks/checkout").iterdir()
    assert f" {plug}\n" in chunk.read_text() and "# file: sha256:" in chunk.read_text()

    def served() -> str:
        return subprocess.run([sys.executable, "-c", CHUNK_RUN, str(tmp_path)], capture_output=True, text=True,
                              check=True).stdout.strip()

    assert served() == "1"
    (tmp_path / plug).write_text("V = 2\n")
    refused = served()
    assert refused.startswith("ManifestError ") and f"load by path from `{plug}`, and it is changed" in refused
    (tmp_path / plug).unlink()
    assert "and it is gone since" in served()
    (tmp_path / plug).write_text("V = 1\n")
    assert served() == "1"


def test_text_of_undecidable_origin_run_by_reached_code_is_warned_at_its_position(tmp_path: Path) -> None:
    """G9: ``exec``/``eval`` of text the compiler cannot trace (a parameter, a call it does not
    know, a read of a path it cannot decide) is a ``path-undecidable`` warning where it runs;
    text the code spells (a literal, a constant, an f-string of those) is none."""
    load = ("CODE = 'y = 2'\n\n\ndef load(code):\n    exec(code)\n    exec('x = 1')\n    exec(CODE)\n"
            "    exec(f'z = {1 + 1}')\n    return eval(fetch())\n\n\ndef fetch():\n    return '1'\n")
    files = project(flow("return load(o)", "from shop.load import load"), load=load)
    assert _warnings(tmp_path / "a", files) == ["shop/load.py:5:5:path-undecidable", "shop/load.py:9:12:path-undecidable"]
    (first, _) = fingerprint(tmp_path / "b", ProjectPair("x", "changed", "", files, files), files).warnings
    assert first.message.startswith("`exec` runs text whose origin the compiler cannot decide")
    # a function the flow does not reach is none of its business
    files = project(flow("return 1", "from shop.load import other"), load=load + "\n\ndef other():\n    return 1\n")
    assert _warnings(tmp_path / "c", files) == []


def test_a_pth_file_is_read_as_site_reads_it_and_what_it_cannot_follow_is_warned(tmp_path: Path) -> None:
    """G9: ``site.addsitedir`` runs the ``.pth`` files of its directory: a line naming a
    directory outside the project is warned at the ``addsitedir`` call (an import found through
    it is hashed by name only), an ``import`` line is hashed with its file and warned as code
    loaded by path that imports; a comment, a blank line and a directory of the project are not."""
    init = f"import os\nimport site\n\nsite.addsitedir({JOIN})\n"
    files = {**project(flow("return 1"), init=init), "shop/vendor/a.pth": "# c\n\nextra\n"}
    assert _warnings(tmp_path / "a", files) == []
    files = {**files, "shop/vendor/b.pth": "/opt/lib\n"}
    (warning,) = fingerprint(tmp_path / "b", ProjectPair("x", "changed", "", files, files), files).warnings
    assert (warning.path, warning.line, warning.column, warning.code) == ("shop/__init__.py", 4, 1, "path-undecidable")
    assert "`shop/vendor/b.pth`, and its line `/opt/lib` names a directory the fingerprint does not search" in warning.message
    files = {**project(flow("return 1"), init=init), "shop/vendor/c.pth": "import builtins; builtins.PV = 1\n"}
    (warning,) = fingerprint(tmp_path / "c", ProjectPair("x", "changed", "", files, files), files).warnings
    assert "code loaded by path from `shop/vendor/c.pth` imports" in warning.message
    assert (warning.path, warning.line) == ("shop/__init__.py", 4)


def test_a_chunk_runs_a_plugin_glob_only_while_its_matches_are_as_built(tmp_path: Path) -> None:
    """G9 in a chunk: a glob's listing (``shop/plugins//*.txt``) and each match are ``# file:``
    lines; the loader refuses the chunk once a match is added or edited, naming what moved, and
    ``loom deploy-check`` reports the execution pinned to it as stranded with that reason."""
    import subprocess
    import sys

    from helpers.project_files import write_files
    from loom_compiler import LoomConfig
    from loom_compiler.bundle.build import build_project
    from loom_compiler.ops import deploy_check
    from loom_runtime.journal.events import NewEvent
    from loom_runtime.journal.sqlite import SqliteJournal

    files = project(flow("return load()", "from shop.load import load"),
                    load="import glob\nimport os\n\n\ndef load():\n    ns = {}\n"
                         "    for p in sorted(glob.glob(os.path.join(os.path.dirname(__file__), 'plugins', '*.txt'))):\n"
                         "        exec(open(p).read(), ns)\n    return ns['V']\n")
    write_files(tmp_path, {**files, "shop/plugins/a.txt": "V = 1\n", "shop/plugins/notes.md": "x\n"})
    config = LoomConfig(root=tmp_path, packages=("shop",))
    report = build_project(config)
    assert report.ok, report.errors
    (chunk,) = (tmp_path / "build/loom/chunks/checkout").iterdir()
    header = chunk.read_text()
    assert " shop/plugins//*.txt\n" in header and " shop/plugins/a.txt\n" in header and "notes.md" not in header
    v1 = report.manifest.flows["checkout"].current

    def served() -> str:
        return subprocess.run([sys.executable, "-c", CHUNK_RUN, str(tmp_path)], capture_output=True, text=True,
                              check=True).stdout.strip()

    assert served() == "1"
    (tmp_path / "shop/plugins/notes2.md").write_text("y\n")  # matched by nothing: the chunk still serves
    assert served() == "1"
    (tmp_path / "shop/plugins/b.txt").write_text("V = 2\n")
    refused = served()
    assert refused.startswith("ManifestError ") and "load by path from `shop/plugins//*.txt`, and it is changed" in refused
    (tmp_path / "shop/plugins/b.txt").unlink()
    (tmp_path / "shop/plugins/a.txt").write_text("V = 3\n")
    assert "load by path from `shop/plugins/a.txt`, and it is changed" in served()

    # deploy-check: an execution started on v1, the project rebuilt after the edit (a new version)
    report = build_project(config)
    assert report.ok and report.manifest.flows["checkout"].current != v1
    manifest = tmp_path / "build/loom/manifest.json"
    entry = report.manifest.flows["checkout"].versions[v1]
    journal = SqliteJournal(tmp_path / "journal.db")
    journal.create("e-old", NewEvent("EXECUTION_STARTED", {"flowId": "checkout", "flowHash": entry.flow_hash,
                                                            "codeHash": v1, "input": None}))
    journal.close()
    checked = deploy_check(f"sqlite:///{tmp_path / 'journal.db'}", manifest, import_paths=[tmp_path], replay=False)
    (stranded,) = checked.stranded
    assert stranded.execution_id == "e-old" and "shop/plugins/a.txt" in stranded.reason, stranded.reason
