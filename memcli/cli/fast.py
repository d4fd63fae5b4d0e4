"""Every command runs here: its spec parses the command line without Typer.

``run`` returns None when it cannot handle the arguments (``--help``, an unknown option, a
bad value, a missing argument): the caller then hands them to Typer, which prints the help or
the usual error with its suggestions.  ``typer_command`` builds the Typer command from the
same spec.  This module imports nothing from ``memcli.main``.
"""

from __future__ import annotations

from memcli.cli.spec import DIR, OPTION_LIKE, CommandSpec, module_name

TYPE_CHECKING = False  # names for annotations only: the fast path never imports typing
if TYPE_CHECKING:
    from typing import Any


def load(command: str):
    """The command's module (its ``SPEC`` and ``run``)."""
    import importlib

    return importlib.import_module(module_name(command))


def specs() -> dict[str, CommandSpec]:
    """Every command's spec, by name."""
    from memcli.cli.spec import COMMANDS

    return {name: load(name).SPEC for name in COMMANDS}


def parse(spec: CommandSpec, args: list[str]) -> dict[str, Any] | None:
    params = (*spec.params, DIR)
    options = {flag: p for p in params if p.kind in ("option", "options", "flag") for flag in p.flags}
    values: dict[str, Any] = {p.name: p.default for p in params}
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
        if arg.startswith("--"):
            name, eq, attached = arg.partition("=")
        elif len(arg) > 2:
            name, attached, eq = arg[:2], arg[2:], "="  # -n5 (and -n=5, whose value is "=5", as Click reads it)
        else:
            name, eq, attached = arg, "", ""
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
        if param.kind == "options":
            values[param.name] = [*(values[param.name] or []), value]
        else:
            values[param.name] = value
    for p in spec.params:
        if p.kind == "arguments":
            if not positionals and p.required:
                return None
            values[p.name] = tuple(positionals) if positionals or p.required else p.default
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
    module = load(command)
    values = parse(module.SPEC, args)
    if values is None:
        return None
    return module.run(values.pop("dir") or dir_option, **values)


def typer_command(spec: CommandSpec, impl):
    """A Typer command function whose parameters are generated from ``spec``."""
    import inspect
    from typing import List, Optional

    import typer

    parameters = []
    annotations: dict[str, Any] = {}
    for p in (*spec.params, DIR):
        extra: dict[str, Any] = {"help": p.help}
        if p.metavar:
            extra["metavar"] = p.metavar
        if p.min is not None:
            extra["min"] = p.min
        if p.max is not None:
            extra["max"] = p.max
        if p.choices:
            extra["callback"] = _choice_check(p.choices, p.flags[0] if p.flags else (p.metavar or p.name))
        if p.kind == "arguments":
            default = typer.Argument(... if p.required else None, show_default=False, **extra)
            annotation: Any = List[str] if p.required else Optional[List[str]]
        elif p.kind == "argument":
            default = typer.Argument(... if p.required else None, show_default=False, **extra)
            annotation = str if p.required else Optional[str]
        elif p.kind == "flag":
            default = typer.Option(False, *p.flags, **extra)
            annotation = bool
        elif p.kind == "options":
            default = typer.Option(None, *p.flags, show_default=False, **extra)
            annotation = Optional[List[p.type]]  # type: ignore[name-defined]  # built at run time
        else:
            default = typer.Option(p.default, *p.flags, show_default=p.default is not None, **extra)
            annotation = p.type if p.default is not None else Optional[p.type]
        parameters.append(inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default))
        annotations[p.name] = annotation

    def command(**kwargs: Any) -> None:
        from memcli.cli import common

        for p in spec.params:
            if p.kind == "arguments" and kwargs[p.name] is not None:
                kwargs[p.name] = tuple(kwargs[p.name])
            elif p.kind == "options" and kwargs[p.name] is not None:
                kwargs[p.name] = list(kwargs[p.name]) or None
        code = impl(kwargs.pop("dir") or common.STATE["dir"], **kwargs)
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
