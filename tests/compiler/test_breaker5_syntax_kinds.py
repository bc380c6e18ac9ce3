"""Every expression and statement kind moves the hash when something inside it changes (breaker5,
session 6): the guard for walks that dispatch on libcst's node types (perfA's exact-type tests in
``scopes``/``canonical``/``analysis``): a concrete class left out of one set would make a
semantic edit inside that kind of node a silent false-equal.

Two directions per site: ``test_an_edit_inside_the_construct_moves_the_hash`` (the construct's own
text: a constant, an operator, a name, a prefix, ``async``) and
``test_a_global_read_inside_the_construct_is_a_reference`` (the same slot reading a module
constant ``G``: editing ``G = 1`` must move the function's hash, so the reference inside that
construct was found). Functions are fingerprinted with ``all_functions`` (each one a flow), one
small module per side. Held when written: no finding here."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.project_files import write_files

from loom_compiler import LoomConfig, fingerprint_project

#: (name, function text with one mutation site ``§``, the base spelling, the edited one)
SITES: tuple[tuple[str, str, str, str], ...] = (
    ('fstr_expr', "def F(x):\n    return f'{x + §}'\n", '1', '2'),
    ('fstr_spec', "def F(x):\n    return f'{x:>{§}}'\n", '1', '2'),
    ('fstr_spec_text', "def F(x):\n    return f'{x:§}'\n", '>5', '<5'),
    ('fstr_conv', "def F(x):\n    return f'{x!§}'\n", 'r', 's'),
    ('fstr_text', "def F(x):\n    return f'§{x}'\n", 'a', 'b'),
    ('fstr_nested', 'def F(x):\n    return f\'{f"{x}§"}\'\n', 'a', 'b'),
    ('fstr_eq', "def F(x):\n    return f'{x§}'\n", '=', ' '),
    ('concat_str', "def F(x):\n    return 'a' '§'\n", 'b', 'c'),
    ('concat_fstr', "def F(x):\n    return 'a' f'{x}§'\n", 'b', 'c'),
    ('concat_three', "def F(x):\n    return ('a'\n            'b'\n            f'{x}' '§')\n", 'b', 'c'),
    ('bytes', "def F(x):\n    return b'§'\n", 'a', 'b'),
    ('raw', "def F(x):\n    return r'\\§'\n", 'd', 'w'),
    ('walrus_if', 'def F(x):\n    if (y := x + §) > 0:\n        return y\n', '1', '2'),
    ('walrus_name', 'def F(x):\n    if (§ := x) > 0:\n        return y\n', 'y', 'z'),
    ('walrus_comp', 'def F(x):\n    return [z := i + § for i in x], z\n', '1', '2'),
    ('walrus_while', 'def F(x):\n    while (n := len(x)) > §:\n        x.pop()\n    return n\n', '1', '2'),
    ('match_value', "def F(x):\n    match x:\n        case §:\n            return 'one'\n    return 'other'\n", '1', '2'),
    ('match_seq', 'def F(x):\n    match x:\n        case [a, *rest] if a > §:\n            return rest\n    return None\n', '1', '2'),
    ('match_star_name', 'def F(x):\n    match x:\n        case [a, *§]:\n            return rest\n    return None\n', 'rest', 'other'),
    ('match_map', "def F(x):\n    match x:\n        case {'k': §}:\n            return 1\n    return 0\n", '1', '2'),
    ('match_map_rest', "def F(x):\n    match x:\n        case {'k': 1, **§}:\n            return kw\n    return 0\n", 'kw', 'other'),
    ('match_class', 'def F(x):\n    match x:\n        case complex(real=§):\n            return 1\n    return 0\n', '1', '2'),
    ('match_class_pos', 'def F(x):\n    match x:\n        case int(§):\n            return 1\n    return 0\n', '1', '2'),
    ('match_or', 'def F(x):\n    match x:\n        case 1 | §:\n            return 1\n    return 0\n', '2', '3'),
    ('match_as', 'def F(x):\n    match x:\n        case [1] as §:\n            return y\n    return 0\n', 'y', 'z'),
    ('match_capture', 'def F(x):\n    match x:\n        case [§]:\n            return a\n    return 0\n', 'a', 'b'),
    ('match_wild_vs_name', 'def F(x):\n    match x:\n        case §:\n            return 1\n', '_', 'q'),
    ('match_value_attr', 'import math\n\n\ndef F(x):\n    match x:\n        case math.§:\n            return 1\n    return 0\n', 'pi', 'e'),
    ('match_singleton', 'def F(x):\n    match x:\n        case §:\n            return 1\n    return 0\n', 'None', 'True'),
    ('match_neg', 'def F(x):\n    match x:\n        case -§:\n            return 1\n    return 0\n', '1', '2'),
    ('match_complex', 'def F(x):\n    match x:\n        case 1 + §j:\n            return 1\n    return 0\n', '2', '3'),
    ('match_guard_order', 'def F(x):\n    match x:\n        case [1, 2]:\n            return §\n        case _:\n            return 0\n', '1', '2'),
    ('match_tuple_pat', 'def F(x):\n    match x:\n        case (1, §):\n            return 1\n    return 0\n', '2', '3'),
    ('star_assign', 'def F(x):\n    a, *b = [§, 2]\n    return a, b\n', '1', '2'),
    ('star_call', 'def F(x):\n    return print(*[§])\n', '1', '2'),
    ('dstar_dict', "def F(x):\n    return {**{'a': §}}\n", '1', '2'),
    ('dstar_call', "def F(x):\n    return dict(**{'a': §})\n", '1', '2'),
    ('star_in_subscript', 'def F(x):\n    return x[*[§]]\n', '1', '2'),
    ('star_return', 'def F(x):\n    return *x, §\n', '1', '2'),
    ('lambda_default', 'def F(x):\n    g = lambda a=§: a\n    return g()\n', '1', '2'),
    ('lambda_kwonly', 'def F(x):\n    g = lambda *, a=§: a\n    return g()\n', '1', '2'),
    ('lambda_body', 'def F(x):\n    return (lambda a: a + §)(x)\n', '1', '2'),
    ('lambda_param', 'def F(x):\n    return (lambda §: a)(x)\n', 'a', 'b'),
    ('lambda_star', 'def F(x):\n    return (lambda *§: a)(x)\n', 'a', 'b'),
    ('listcomp', 'def F(x):\n    return [i for i in x if i > §]\n', '1', '2'),
    ('setcomp', 'def F(x):\n    return {i + § for i in x}\n', '1', '2'),
    ('dictcomp', 'def F(x):\n    return {i: § for i in x}\n', '1', '2'),
    ('genexp', 'def F(x):\n    return sum(i * § for i in x)\n', '1', '2'),
    ('nested_comp', 'def F(x):\n    return [j for i in x for j in i if j != §]\n', '1', '2'),
    ('comp_target', 'def F(x):\n    return [a for (a, §) in x]\n', 'b', 'a'),
    ('async_comp', 'async def F(x):\n    return [i async for i in x if i > §]\n', '1', '2'),
    ('await_comp', 'async def F(x):\n    return [await i for i in x][§]\n', '0', '1'),
    ('decorator_arg', 'def F(x):\n    @deco(§)\n    def g():\n        pass\n    return g\n', '1', '2'),
    ('decorator_order', 'def F(x):\n    @a\n    @§\n    def g():\n        pass\n    return g\n', 'b', 'c'),
    ('decorator_expr', 'def F(x):\n    @x[§]\n    def g():\n        pass\n    return g\n', '0', '1'),
    ('decorator_top', '@deco(§)\ndef F(x):\n    return x\n', '1', '2'),
    ('class_decorator', 'def F(x):\n    @deco(§)\n    class K:\n        pass\n    return K\n', '1', '2'),
    ('class_kw', 'def F(x):\n    class K(x, metaclass=§):\n        pass\n    return K\n', 'type', 'object'),
    ('class_body', 'def F(x):\n    class K:\n        A = §\n    return K\n', '1', '2'),
    ('async_def', '§def F(x):\n    return x\n', 'async ', ''),
    ('await', 'async def F(x):\n    return await x(§)\n', '1', '2'),
    ('async_for', 'async def F(x):\n    async for i in x:\n        return i + §\n', '1', '2'),
    ('async_for_else', 'async def F(x):\n    async for i in x:\n        pass\n    else:\n        return §\n', '1', '2'),
    ('async_with', 'async def F(x):\n    async with x as y:\n        return y + §\n', '1', '2'),
    ('async_with_name', 'async def F(x):\n    async with x as §:\n        return y\n', 'y', 'z'),
    ('async_vs_sync_for', 'async def F(x):\n    §for i in x:\n        return i\n', 'async ', ''),
    ('async_vs_sync_with', 'async def F(x):\n    §with x as y:\n        return y\n', 'async ', ''),
    ('yield', 'def F(x):\n    yield §\n', '1', '2'),
    ('yield_from', 'def F(x):\n    yield from [§]\n', '1', '2'),
    ('yield_vs_from', 'def F(x):\n    yield §x\n', 'from ', ''),
    ('await_in_fstr', "async def F(x):\n    return f'{await x(§)}'\n", '1', '2'),
    ('global', 'def F(x):\n    global §\n    G = x\n', 'G', 'H'),
    ('nonlocal', 'def F(x):\n    a = 1\n    def g():\n        nonlocal §\n        a = 2\n    g()\n    return a\n', 'a', 'x'),
    ('try_except', 'def F(x):\n    try:\n        return x()\n    except ValueError:\n        return §\n', '1', '2'),
    ('try_except_type', 'def F(x):\n    try:\n        return x()\n    except §:\n        return 1\n', 'ValueError', 'KeyError'),
    ('try_except_as', 'def F(x):\n    try:\n        return x()\n    except ValueError as §:\n        return e\n', 'e', 'f'),
    ('try_star', 'def F(x):\n    try:\n        x()\n    except* ValueError:\n        print(§)\n', '1', '2'),
    ('try_star_vs_plain', 'def F(x):\n    try:\n        return x()\n    except§ ValueError:\n        pass\n', '*', ''),
    ('try_finally', 'def F(x):\n    try:\n        return x()\n    finally:\n        print(§)\n', '1', '2'),
    ('try_else', 'def F(x):\n    try:\n        x()\n    except ValueError:\n        pass\n    else:\n        return §\n', '1', '2'),
    ('with_items', 'def F(x):\n    with x(§) as a, x(2) as b:\n        return a, b\n', '1', '2'),
    ('with_paren', 'def F(x):\n    with (x(§) as a, x(2) as b):\n        return a, b\n', '1', '2'),
    ('with_tuple_target', 'def F(x):\n    with x as (a, §):\n        return a\n', 'b', 'a'),
    ('assert', 'def F(x):\n    assert x, §\n', '1', '2'),
    ('assert_test', 'def F(x):\n    assert x > §\n', '1', '2'),
    ('del', 'def F(x):\n    del x[§]\n', '0', '1'),
    ('raise_from', 'def F(x):\n    raise ValueError(§) from x\n', '1', '2'),
    ('raise_from_none', 'def F(x):\n    raise ValueError(1) from §\n', 'None', 'x'),
    ('slice', 'def F(x):\n    return x[§:2]\n', '1', '0'),
    ('slice_step', 'def F(x):\n    return x[::§]\n', '1', '2'),
    ('slice_tuple', 'def F(x):\n    return x[1:2, §]\n', '3', '4'),
    ('slice_vs_index', 'def F(x):\n    return x[1§]\n', ':', ','),
    ('chain_cmp', 'def F(x):\n    return 0 < x < §\n', '1', '2'),
    ('cmp_op', 'def F(x):\n    return x § 1\n', '<', '<='),
    ('not_in', 'def F(x):\n    return 1 § x\n', 'in', 'not in'),
    ('is_not', 'def F(x):\n    return x § None\n', 'is', 'is not'),
    ('boolop', 'def F(x):\n    return x § 1\n', 'and', 'or'),
    ('ternary', 'def F(x):\n    return 1 if x else §\n', '2', '3'),
    ('unary', 'def F(x):\n    return §x\n', '-', '~'),
    ('not', 'def F(x):\n    return §x\n', 'not ', '+'),
    ('binop', 'def F(x):\n    return x § 1\n', '+', '-'),
    ('power', 'def F(x):\n    return x § 2\n', '**', '*'),
    ('matmul', 'def F(x):\n    return x § x\n', '@', '*'),
    ('floordiv', 'def F(x):\n    return x § 2\n', '//', '/'),
    ('shift', 'def F(x):\n    return x § 2\n', '<<', '>>'),
    ('bitops', 'def F(x):\n    return x § 2\n', '&', '|'),
    ('aug', 'def F(x):\n    x § 1\n    return x\n', '+=', '-='),
    ('aug_matmul', 'def F(x):\n    x § 1\n    return x\n', '@=', '*='),
    ('aug_pow', 'def F(x):\n    x § 1\n    return x\n', '**=', '//='),
    ('ann_assign_value', 'def F(x):\n    y: int = §\n    return y\n', '1', '2'),
    ('ann_assign_target', 'def F(x):\n    §: int = 1\n    return y\n', 'y', 'z'),
    ('ann_no_value', 'def F(x):\n    y: int\n    §\n    return y\n', 'y = 1', 'y = 2'),
    ('return_ann', 'def F(x) -> §:\n    return x\n', 'int', 'str'),
    ('param_ann', 'def F(x: §):\n    return x\n', 'int', 'str'),
    ('param_default', 'def F(x=§):\n    return x\n', '1', '2'),
    ('kwonly_default', 'def F(*, k=§):\n    return k\n', '1', '2'),
    ('kwonly_vs_pos', 'def F(§k=1):\n    return k\n', '*, ', ''),
    ('posonly', 'def F(a, §/, b=1):\n    return a\n', '', 'c, '),
    ('posonly_vs_normal', 'def F(a§, b=1):\n    return a\n', ', /', ''),
    ('star_params', 'def F(*§):\n    return a\n', 'a', 'b'),
    ('dstar_params', 'def F(**§):\n    return a\n', 'a', 'b'),
    ('call_kw', 'def F(x):\n    return x(a=§)\n', '1', '2'),
    ('call_kwname', 'def F(x):\n    return x(§=1)\n', 'a', 'b'),
    ('call_star_vs_plain', 'def F(x):\n    return x(§x)\n', '*', ''),
    ('call_dstar_vs_star', 'def F(x):\n    return x(§x)\n', '**', '*'),
    ('subscript_tuple', 'def F(d):\n    return d[§, 2]\n', '1', '3'),
    ('subscript_trailing', 'def F(d):\n    return d[1§]\n', ',', ''),
    ('attribute', 'def F(x):\n    return x.§\n', 'a', 'b'),
    ('ellipsis', 'def F(x):\n    return §\n', '...', 'None'),
    ('int_big', 'def F(x):\n    return §\n', '111111111111111111111111111111', '111111111111111111111111111112'),
    ('int_hex', 'def F(x):\n    return §\n', '0x10', '0x11'),
    ('float', 'def F(x):\n    return §\n', '1.5', '1.25'),
    ('float_vs_int', 'def F(x):\n    return §\n', '1.0', '1'),
    ('imag', 'def F(x):\n    return §j\n', '1', '2'),
    ('bool_vs_int', 'def F(x):\n    return §\n', 'True', '1'),
    ('while_else', 'def F(x):\n    while x:\n        break\n    else:\n        return §\n', '1', '2'),
    ('for_else', 'def F(x):\n    for i in x:\n        break\n    else:\n        return §\n', '1', '2'),
    ('break_continue', 'def F(x):\n    for i in x:\n        §\n    return i\n', 'break', 'continue'),
    ('if_elif', 'def F(x):\n    if x:\n        return 1\n    elif x > §:\n        return 2\n', '1', '2'),
    ('pass_vs_ellipsis', 'def F(x):\n    if x:\n        §\n    return 1\n', 'pass', 'x'),
    ('list_display', 'def F(x):\n    return [1, §]\n', '2', '3'),
    ('set_display', 'def F(x):\n    return {1, §}\n', '2', '3'),
    ('dict_display', 'def F(x):\n    return {§: 1}\n', "'a'", "'b'"),
    ('paren_tuple_one', 'def F(x):\n    return (x§)\n', ',', ''),
    ('nested_def_default', 'def F(x):\n    def g(a=§):\n        return a\n    return g()\n', '1', '2'),
    ('nested_def_name', 'def F(x):\n    def §():\n        return 1\n    return g\n', 'g', 'h'),
    ('nested_async', 'def F(x):\n    §def g():\n        return 1\n    return g\n', 'async ', ''),
    ('local_name', 'def F(x):\n    § = x\n    return x\n', 'y', 'z'),
    ('multi_target', 'def F(x):\n    a = § = x\n    return a\n', 'b', 'c'),
    ('tuple_target', 'def F(x):\n    (a, b), § = x\n    return a\n', 'c', 'd'),
    ('subscript_store', 'def F(x):\n    x[§] = 1\n', '0', '1'),
    ('attr_store', 'def F(x):\n    x.§ = 1\n', 'a', 'b'),
    ('starred_target', 'def F(x):\n    *a, § = x\n    return a\n', 'b', 'c'),
    ('for_target', 'def F(x):\n    for §, b in x:\n        return a\n', 'a', 'c'),
    ('docstring_vs_expr', "def F(x):\n    x\n    '§'\n", 'a', 'b'),
    ('print_sep', 'def F(x):\n    print(x, sep=§)\n', "'a'", "'b'"),
    ('semicolon', 'def F(x):\n    a = 1; b = §\n    return a, b\n', '2', '3'),
    ('stmt_order', 'def F(x):\n    §\n', 'a = 1\n    b = 2', 'b = 2\n    a = 1'),
    ('return_vs_none', 'def F(x):\n    return§\n', ' None', ''),
    ('string_escape', "def F(x):\n    return '\\§'\n", 'n', 't'),
    ('string_prefix_b', "def F(x):\n    return §'a'\n", 'b', ''),
    ('fstr_raw', "def F(x):\n    return §f'\\n{x}'\n", 'r', ''),
    ('lambda_in_default', 'def F(x=lambda: §):\n    return x()\n', '1', '2'),
    ('comp_in_default', 'def F(x=[i for i in range(§)]):\n    return x\n', '1', '2'),
    ('walrus_in_default', 'def F(x=(y := §)):\n    return x\n', '1', '2'),
    ('genexp_in_call', 'def F(x):\n    return any(i > § for i in x)\n', '1', '2'),
    ('dict_comp_key', 'def F(x):\n    return {k + §: v for k, v in x}\n', '1', '2'),
    ('with_no_as', 'def F(x):\n    with x(§):\n        return 1\n', '1', '2'),
    ('global_stmt_use', 'def F(x):\n    global G\n    G = §\n', '1', '2'),
    ('conditional_import', 'def F(x):\n    from math import §\n    return floor\n', 'floor', 'ceil'),
    ('import_as', 'def F(x):\n    import math as §\n    return m\n', 'm', 'n'),
    ('import_dotted', 'def F(x):\n    import os.§\n    return os\n', 'path', 'sep'),
    ('relative_import_level', 'def F(x):\n    from §shop import syn\n    return syn\n', '', '.'),
)

#: the sites whose slot is an expression a module constant can take (a pattern's slot cannot:
#: ``case G:`` captures; ``Gj`` is a name)
_VALUE_SLOTS = tuple(s for s in SITES if s[2] in ("0", "1", "2", "3") and "case" not in s[1] and s[0] != "imag")


def _hash(root: Path, module: str, name: str) -> str:
    write_files(root, {"shop/__init__.py": "", "shop/syn.py": module})
    result = fingerprint_project([root], LoomConfig(root=root, packages=("shop",)), all_functions=True)
    assert not result.errors, [str(e) for e in result.errors]
    (found,) = [f.code_hash for f in result.flows if f.function == name]
    return found


def _function(text: str, name: str, value: str) -> str:
    return text.replace("§", value).replace("def F", f"def f_{name}", 1)


@pytest.mark.parametrize("name, text, before, after", [pytest.param(*s, id=s[0]) for s in SITES])
def test_an_edit_inside_the_construct_moves_the_hash(tmp_path: Path, name: str, text: str, before: str, after: str) -> None:
    head = "G = 0\n\n\n"
    assert _hash(tmp_path / "a", head + _function(text, name, before), f"f_{name}") != \
        _hash(tmp_path / "b", head + _function(text, name, after), f"f_{name}")


@pytest.mark.parametrize("name, text", [pytest.param(s[0], s[1], id=s[0]) for s in _VALUE_SLOTS])
def test_a_global_read_inside_the_construct_is_a_reference(tmp_path: Path, name: str, text: str) -> None:
    body = _function(text, name, "G")
    assert _hash(tmp_path / "a", "G = 1\n\n\n" + body, f"f_{name}") != _hash(tmp_path / "b", "G = 2\n\n\n" + body, f"f_{name}")
