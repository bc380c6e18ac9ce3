"""``static_paths``: the evaluator of paths a module computes from its ``__file__`` (E9, L2), and
the finder of ``sys.path``/``__path__`` additions and loads of a file by path."""

from __future__ import annotations

import libcst as cst
import pytest

from loom_compiler.static_paths import evaluate, path_uses

FILE = "shop/sub/__init__.py"
IMPORTS = {"os": "os", "osp": "os.path", "join": "os.path.join", "dirname": "os.path.dirname", "Path": "pathlib.Path",
           "pathlib": "pathlib", "sys": "sys", "runpy": "runpy", "importlib": "importlib", "path": "sys.path",
           "site": "site", "glob": "glob", "pkgutil": "pkgutil", "textwrap": "textwrap"}


def _resolve(chain: str) -> str | None:
    root, _, rest = chain.partition(".")
    if root in IMPORTS:
        return IMPORTS[root] + ("." + rest if rest else "")
    return chain  # a builtin


def _eval(source: str, names: dict[str, str] | None = None) -> str | None:
    values = {k: cst.parse_expression(v) for k, v in (names or {}).items()}
    return evaluate(cst.parse_expression(source), FILE, _resolve, values.get, _package_dir)


def _package_dir(dotted: str) -> str:
    return dotted.replace(".", "/")


@pytest.mark.parametrize("source, expected", [
    ("__file__", FILE),
    ("os.path.dirname(__file__)", "shop/sub"),
    ("os.path.join(os.path.dirname(__file__), 'vendor')", "shop/sub/vendor"),
    ("os.path.join(os.path.dirname(os.path.abspath(__file__)), 'a', 'b.py')", "shop/sub/a/b.py"),
    ("os.path.realpath(os.path.join(os.path.dirname(__file__), '..', 'lib'))", "shop/lib"),
    ("os.path.normpath(os.path.join(dirname(__file__), '.', 'x'))", "shop/sub/x"),
    ("osp.join(osp.dirname(__file__), 'x')", "shop/sub/x"),
    ("join(dirname(dirname(__file__)), 'x')", "shop/x"),
    ("str(Path(__file__).parent / 'vendor')", "shop/sub/vendor"),
    ("Path(__file__).resolve().parent.parent / 'x' / 'y'", "shop/x/y"),
    ("pathlib.Path(__file__).parents[1].joinpath('x', 'y')", "shop/x/y"),
    ("os.fspath(Path(__file__).absolute().parent)", "shop/sub"),
    ("os.path.join(os.path.dirname(__file__), '..', '..')", ""),
    ("os.path.join(HERE, 'vendor')", "shop/sub/vendor"),
    # G9: string arithmetic and formatting of an anchored path, as Python computes the string
    ("os.path.dirname(__file__) + '/plug.txt'", "shop/sub/plug.txt"),
    ("os.path.dirname(__file__) + 'plug.txt'", "shop/subplug.txt"),  # no separator: a sibling name
    ("HERE + '/' + 'a' '/b.txt'", "shop/sub/a/b.txt"),
    ("f'{os.path.dirname(__file__)}/plug.txt'", "shop/sub/plug.txt"),
    ("f'{HERE!s}/a\\x2fb.txt'", "shop/sub/a/b.txt"),  # an escape in the text part, as Python reads it
    ("'%s/plug.txt' % HERE", "shop/sub/plug.txt"),
    ("'{}/{}'.format(HERE, 'plug.txt')", "shop/sub/plug.txt"),
    ("Path(__file__).with_name('plug.txt')", "shop/sub/plug.txt"),
    ("Path(__file__).with_suffix('.txt')", "shop/sub/__init__.txt"),
    ("Path(__file__).with_stem('x')", "shop/sub/x.py"),
    ("importlib.resources.files('shop').joinpath('data', 'plug.txt')", "shop/data/plug.txt"),
    ("importlib.resources.files(__name__) / 'plug.txt'", "shop/sub/plug.txt"),
    ("importlib.resources.path('shop.sub', 'plug.txt')", "shop/sub/plug.txt"),
    # a glob: the listing of what it matches in one directory
    ("glob.glob(os.path.join(HERE, 'plugins', '*.txt'))", "shop/sub/plugins//*.txt"),
    ("Path(HERE).glob('p?.py')", "shop/sub//p?.py"),
    ("glob.glob(os.path.join(HERE, 'plug.txt'))", "shop/sub/plug.txt"),  # no wildcard: that file
])
def test_decided(source: str, expected: str) -> None:
    assert _eval(source, {"HERE": "os.path.dirname(__file__)"}) == expected


@pytest.mark.parametrize("source", [
    "'vendor'",  # relative to the working directory
    "os.getcwd()",
    "os.environ['LIBS']",
    "os.path.join(os.path.dirname(__file__), name)",  # a name bound otherwise
    "os.path.join(os.path.dirname(__file__), '/abs')",  # an absolute part replaces the base
    "os.path.join(os.path.dirname(__file__), '..', '..', '..')",  # leaves the project
    "Path(__file__).parents[5]",
    "'/x' + os.path.dirname(__file__)",  # the anchored path not first
    "os.path.dirname(os.path.dirname(os.path.dirname(__file__))) + 'x'",  # beside the project root
    "f'{os.path.dirname(__file__)!r}/x'",  # a conversion: no path
    "f'{os.path.dirname(__file__):>9}/x'",  # a format spec: no path
    "'%s/%s' % HERE",  # fields and values do not match
    "'{0}/x'.format(os.path.dirname(__file__))",  # a numbered field
    "Path(__file__).with_name('a/b')",  # pathlib refuses it
    "glob.glob(os.path.join(os.path.dirname(__file__), '*', 'x.txt'))",  # a wildcard directory
    "glob.glob(os.path.join(os.path.dirname(__file__), '**.txt'))",  # recursive
    "importlib.resources.files(name)",
    "os.path.join(HERE, 'x')",  # HERE bound to itself
    "os.path.join(os.path.dirname(__file__), 'x', sep='/')",
])
def test_undecided(source: str) -> None:
    assert _eval(source, {"HERE": "HERE"}) is None


def _uses(source: str) -> list[tuple[str, str | None, int, int, bool]]:
    module = cst.parse_module(source)
    wrapper = cst.metadata.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)

    def position(node: cst.CSTNode) -> tuple[int, int]:
        start = positions[node].start
        return start.line, start.column + 1

    out = []
    for stmt in module.body:
        out += [(u.kind, u.path, u.line, u.column, u.first)
                for u in path_uses(stmt, FILE, _resolve, lambda name: None, position)]
    return out


def test_sys_path_and_package_path_additions_in_order() -> None:
    source = ("sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'a'))\n"
              "sys.path.append(os.path.join(os.path.dirname(__file__), 'b'))\n"
              "path.insert(1, os.path.join(os.path.dirname(__file__), 'c'))\n"
              "__path__.append(os.path.join(os.path.dirname(__file__), 'd'))\n"
              "__path__ += [os.path.join(os.path.dirname(__file__), 'e')]\n"
              "if True:\n    sys.path[0:0] = [os.environ['X']]\n"
              "__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n"
              "other.path.append('x')\n")
    assert _uses(source) == [
        ("sys", "shop/sub/a", 1, 1, True), ("sys", "shop/sub/b", 2, 1, False), ("sys", "shop/sub/c", 3, 1, False),
        ("pkg", "shop/sub/d", 4, 1, False), ("pkg", "shop/sub/e", 5, 1, False), ("sys", None, 7, 5, True)]


def test_loads_by_path_with_a_functions_own_names() -> None:
    source = ("def load(name):\n"
              "    p = os.path.join(os.path.dirname(__file__), 'plug.py')\n"
              "    importlib.util.spec_from_file_location('plug', p)\n"
              "    runpy.run_path(path_name=p)\n"
              "    exec(open(p).read())\n"
              "    exec(compile(Path(p).read_text(), p, 'exec'))\n"
              "    importlib.machinery.SourceFileLoader('x', name).load_module()\n"
              "    exec('x = 1')\n"
              "    q = 1\n"
              "    q = os.path.join(os.path.dirname(__file__), 'plug.py')\n"
              "    runpy.run_path(q)\n")
    plug = "shop/sub/plug.py"
    assert _uses(source) == [("load", plug, 3, 5, False), ("load", plug, 4, 5, False), ("load", plug, 5, 5, False),
                             ("load", plug, 6, 5, False), ("load", None, 7, 5, False), ("load", None, 11, 5, False)]


def test_other_statements_are_no_uses() -> None:
    assert _uses("total -= 1\nsys.path -= 1\nx = [1]\nx[0:0] = [2]\nsys.path.remove('x')\n__path__.sort()\n") == []


def _modes(source: str) -> list[tuple[str, str | None, str]]:
    module = cst.parse_module(source)
    out = []
    for stmt in module.body:
        out += [(u.kind, u.path, u.mode) for u in path_uses(stmt, FILE, _resolve, lambda name: None, lambda n: (1, 1))]
    return out


def test_lists_of_directories_and_whole_path_assignments() -> None:
    """F9: each item of a literal list is a use, in the order the search meets it; an assignment
    over the whole path starts it again (the package's own directory only if listed)."""
    d = "os.path.dirname(__file__)"
    a, b = f"os.path.join({d}, 'a')", f"os.path.join({d}, 'b')"
    assert _modes(f"__path__ = [{d}, {a}]\n") == [("pkg", "shop/sub", "reset"), ("pkg", "shop/sub/a", "last")]
    assert _modes(f"sys.path = ({a}, {b})\n") == [("sys", "shop/sub/a", "reset"), ("sys", "shop/sub/b", "last")]
    # ``[0:0] = [a, b]`` puts a before b before the rest: as inserting b first, then a
    assert _modes(f"sys.path[0:0] = [{a}, {b}]\n") == [("sys", "shop/sub/b", "first"), ("sys", "shop/sub/a", "first")]
    assert _modes(f"sys.path[:0] = [{a}]\nsys.path[5:] = [{b}]\n") == [("sys", "shop/sub/a", "first"),
                                                                     ("sys", "shop/sub/b", "last")]
    assert _modes(f"sys.path.extend([{a}, {b}])\n__path__ += [{a}, {b}]\n") == [
        ("sys", "shop/sub/a", "last"), ("sys", "shop/sub/b", "last"), ("pkg", "shop/sub/a", "last"),
        ("pkg", "shop/sub/b", "last")]
    # a value that is no literal list: one use, undecidable (the caller warns)
    assert _modes(f"__path__ = [p for p in ({a},)]\nsys.path.extend(DIRS)\nsys.path.extend([*DIRS])\n") == [
        ("pkg", None, "reset"), ("sys", None, "last"), ("sys", None, "last")]


def test_site_addsitedir_appends_its_directory() -> None:
    """Mode "site": appended, then its ``.pth`` files read (``closure.site_packages``)."""
    d = "os.path.join(os.path.dirname(__file__), 'vendor')"
    assert _modes(f"site.addsitedir({d})\nsite.addsitedir(sitedir={d})\nsite.addsitedir(os.getcwd())\n") == [
        ("sys", "shop/sub/vendor", "site"), ("sys", "shop/sub/vendor", "site"), ("sys", None, "site")]


def _loads(source: str) -> list[tuple[str | None, int, str]]:
    module = cst.parse_module(source)
    wrapper = cst.metadata.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    out = []
    for stmt in module.body:
        out += [(u.path, positions[n].start.line if False else u.line, u.spelled)
                for n in [stmt] for u in path_uses(stmt, FILE, _resolve, lambda name: None,
                                                   lambda node: (positions[node].start.line, 1), _package_dir)
                if u.kind == "load"]
    return out


def test_text_code_runs_traced_to_the_file_it_was_read_from() -> None:
    """G9: the text ``exec``/``eval`` run, followed back through a function's names (a ``with``
    target, a local bound to a read), ``compile``, ``strip``/``decode``/``dedent``, to the file
    read; text the code spells is no load; text of unknown origin is an undecidable load."""
    here = "os.path.dirname(__file__)"
    plug = "shop/sub/plug.txt"
    source = ("def load(code, ns):\n"
              f"    with open(os.path.join({here}, 'plug.txt')) as fh:\n"
              "        src = fh.read()\n"
              "    exec(src, ns)\n"  # 4
              f"    eval(open({here} + '/plug.txt').read())\n"  # 5
              "    exec(pkgutil.get_data('shop.sub', 'plug.txt'), ns)\n"  # 6
              "    exec(importlib.resources.files('shop.sub').joinpath('plug.txt').read_text(), ns)\n"  # 7
              "    exec(importlib.resources.read_text('shop.sub', 'plug.txt'))\n"  # 8
              f"    exec(compile(textwrap.dedent(Path({here}, 'plug.txt').open().read()).strip(), 'p', 'exec'))\n"  # 9
              "    exec('x = 1')\n"  # 10: spelled in the code
              "    exec(f'y = {1 + 1}' + 'z' % ())\n"  # 11
              "    exec(code)\n"  # 12: a parameter
              "    exec(compile(code, 'p', 'exec'))\n"  # 13
              "    exec(open(code).read())\n"  # 14: a read of a path not decided
              "    exec(fetch())\n"  # 15
              f"    for p in sorted(glob.glob(os.path.join({here}, 'plugins', '*.txt'))):\n"
              "        exec(open(p).read(), ns)\n")  # 17
    assert _loads(source) == [(plug, 4, "exec"), (plug, 5, "eval"), (plug, 6, "exec"), (plug, 7, "exec"),
                              (plug, 8, "exec"), (plug, 9, "exec"), (None, 12, "exec"), (None, 13, "exec"),
                              (None, 14, "exec"), (None, 15, "exec"), ("shop/sub/plugins//*.txt", 17, "exec")]


def test_a_parameter_is_never_the_module_name_it_shadows() -> None:
    """``p`` a parameter: what the caller passes, not the module's ``p`` (nor its body's one binding)."""
    here = "os.path.dirname(__file__)"
    module = cst.parse_module(f"def load(p):\n    exec(open(p).read())\n\n\ndef run(q):\n    q = {here} + '/a'\n    exec(open(q).read())\n")
    glob_p = cst.parse_expression(f"{here} + '/plug.txt'")
    uses = [u.path for stmt in module.body for u in path_uses(stmt, FILE, _resolve, {"p": glob_p, "q": glob_p}.get,
                                                              lambda n: (1, 1), _package_dir)]
    assert uses == [None, None]


def test_a_module_level_glob_loop_and_a_name_bound_twice() -> None:
    here = "os.path.dirname(__file__)"
    assert _loads(f"for p in glob.iglob({here} + '/*.cfg'):\n    exec(open(p).read())\n") == [
        ("shop/sub//*.cfg", 2, "exec")]
    # ``src`` bound twice: its origin is not one read
    assert _loads(f"def f():\n    src = open({here} + '/a').read()\n    src = input()\n    exec(src)\n") == [
        (None, 4, "exec")]


def test_a_runner_called_through_a_name_bound_to_it() -> None:
    """``run = exec`` (module level or in the function), then ``run(src)``: a code runner; the
    text test finds ``exec`` as a word, never inside ``execute_activity``."""
    from loom_compiler.static_paths import might_use_paths, runner_aliases

    assert might_use_paths("run = exec") and might_use_paths("x = eval(s)") and might_use_paths("exec (s)")
    assert not might_use_paths("workflow.execute_activity(a)\nevaluate(x)")
    assert might_use_paths("run(src)", frozenset({"run"})) and not might_use_paths("rerun(src)", frozenset({"run"}))
    values = {"run": cst.parse_expression("exec"), "ev": cst.parse_expression("builtins.eval"), "x": cst.parse_expression("len")}
    assert runner_aliases(values.get, ["run", "ev", "x", "y"], _resolve) == {"run", "ev"}
    here = "os.path.dirname(__file__)"
    assert _loads(f"def f():\n    r = exec\n    r(open({here} + '/plug.txt').read())\n") == [("shop/sub/plug.txt", 3, "exec")]
