"""The launcher registry: a launcher is a small class registered under the name users type."""

from typing import Callable, Dict, List, Type, TypeVar

_LAUNCHERS: Dict[str, type] = {}

LauncherClass = TypeVar("LauncherClass", bound=type)


def register_launcher(name: str) -> Callable[[LauncherClass], LauncherClass]:
    """Class decorator: make `--launcher NAME` select the decorated launcher class."""

    def register(cls: LauncherClass) -> LauncherClass:
        if name in _LAUNCHERS:
            raise ValueError(f"launcher {name!r} registered twice")
        cls.name = name
        _LAUNCHERS[name] = cls
        return cls

    return register


def launcher_class(name: str) -> Type:
    """The class registered as `name`; KeyError when there is none."""
    return _LAUNCHERS[name]


def launcher_names() -> List[str]:
    """Registered launcher names, in registration order."""
    return list(_LAUNCHERS)
