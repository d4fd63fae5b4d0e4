"""The fast path for ``search`` and ``inject``: parse with the shared spec, never import Typer.

``run`` returns None when it cannot handle the arguments (``--help``, an unknown
option, a bad value): the caller then hands them to Typer, which prints help or the
usual error with suggestions.
"""

from __future__ import annotations

from memcli.cli.spec import SPECS, CommandSpec
from memcli.main import OPTION_LIKE  # loaded already: the fast path is entered from memcli.main

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from typing import Any


def parse(spec: CommandSpec, args: list[str]) -> dict[str, Any] | None:
    options = {flag: p for p in spec.params if p.kind in ("option", "flag") for flag in p.flags}
    values: dict[str, Any] = {p.name: p.default for p in spec.params}
    positionals: list[str] = []
    i = 0
    only_positional = False
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--" and not only_positional:
            only_positional = True
            continue
        if only_positional or arg == "-" or not OPTION_LIKE.fullmatch(arg):
            positionals.append(arg)
            continue
        name, eq, attached = arg.partition("=")
        if not eq and not arg.startswith("--") and len(arg) > 2:
            name, attached, eq = arg[:2], arg[2:], "="  # -n5
        param = options.get(name)
        if param is None:
            return None
        if param.kind == "flag":
            if eq:
                return None
            values[param.name] = True
            continue
        if not eq:
            if i >= len(args):
                return None
            attached = args[i]
            i += 1
        value: Any = attached
        if param.type is int:
            try:
                value = int(attached)
            except ValueError:
                return None
            if (param.min is not None and value < param.min) or (param.max is not None and value > param.max):
                return None
        if param.choices and value not in param.choices:
            return None
        values[param.name] = value
    for p in spec.params:
        if p.kind == "arguments":
            if not positionals and p.required:
                return None
            values[p.name] = tuple(positionals)
            positionals = []
        elif p.kind == "argument":
            if positionals:
                values[p.name] = positionals.pop(0)
            elif p.required:
                return None
    if positionals:
        return None
    return values


def run(command: str, args: list[str], dir_option: str | None) -> int | None:
    if "-h" in args or "--help" in args:
        return None
    values = parse(SPECS[command], args)
    if values is None:
        return None
    if command == "search":
        from memcli.cli.commands.search import run_search

        return run_search(dir_option, **values)
    from memcli.cli.commands.inject import run_inject

    return run_inject(dir_option, **values)


def typer_command(spec: CommandSpec, impl):
    """A Typer command function whose parameters are generated from ``spec``."""
    import inspect
    from typing import List, Optional

    import typer

    parameters = []
    annotations: dict[str, Any] = {}
    for p in spec.params:
        extra: dict[str, Any] = {"help": p.help}
        if p.metavar:
            extra["metavar"] = p.metavar
        if p.min is not None:
            extra["min"] = p.min
        if p.max is not None:
            extra["max"] = p.max
        if p.choices:
            extra["callback"] = _choice_check(p.choices, p.flags[0])
        if p.kind == "arguments":
            default = typer.Argument(..., **extra)
            annotation: Any = List[str]
        elif p.kind == "argument":
            default = typer.Argument(... if p.required else None, show_default=False, **extra)
            annotation = str if p.required else Optional[str]
        elif p.kind == "flag":
            default = typer.Option(False, *p.flags, **extra)
            annotation = bool
        else:
            default = typer.Option(p.default, *p.flags, show_default=p.default is not None, **extra)
            annotation = p.type if p.default is not None else Optional[p.type]
        parameters.append(inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default))
        annotations[p.name] = annotation

    def command(**kwargs: Any) -> None:
        from memcli.cli import common

        for p in spec.params:
            if p.kind == "arguments":
                kwargs[p.name] = tuple(kwargs[p.name])
        code = impl(common.STATE["dir"], **kwargs)
        if code:
            raise typer.Exit(code)

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = annotations
    command.__doc__ = spec.help
    command.__name__ = spec.name
    return command


def _choice_check(choices: tuple[str, ...], flag: str):
    import typer

    def check(value: str) -> str:
        if value is not None and value not in choices:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}", param_hint=flag)
        return value

    return check
