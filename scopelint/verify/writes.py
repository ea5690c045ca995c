"""verify's child keeps the program's writes out of the user's files.

A real TF1 program writes while it builds and starts training: `saver.save(sess, "model.ckpt")`,
`tf.summary.FileWriter(FLAGS.log_dir)`, `MonitoredTrainingSession(checkpoint_dir=...)` (a
checkpoint at the first step), and often clears its log folder first
(`tf.gfile.DeleteRecursively(FLAGS.log_dir)`).  Run by verify, that would overwrite the user's
checkpoints and delete their logs.  So every path the program writes, creates or deletes is
moved into verify's scratch folder (`<scratch>/<absolute path>`), which is removed with the
run: a write lands there, a read of a path written in this run reads it back from there (a
program that saves then restores, or makes a folder and then tests it, runs as it would), and a
deletion of one of the user's own paths is not done.  What was redirected and what was not
deleted is listed in the report.

Covered: Python's `open` (write modes), `os.makedirs`/`mkdir`/`remove`/`unlink`/`rmdir`/`rename`/
`replace`, `shutil.rmtree`, `os.path.exists`/`isdir`/`isfile`; TensorFlow's file layer (`tf.io.gfile`
and `tf.compat.v1.gfile`, every alias of `file_io`'s functions and `GFile`), `Saver.save`/`restore`,
`latest_checkpoint`, `summary.FileWriter`, `write_graph`, `MonitoredTrainingSession`'s
`checkpoint_dir`/`summary_dir`, `Supervisor(logdir=...)`, `CheckpointSaverHook`, `SummarySaverHook`.
A write TensorFlow makes in C++ from a path that reaches none of these, and a raw `os.open`
descriptor (tempfile's, a library's), are not redirected.
"""
from __future__ import annotations

import builtins
import functools
import glob
import inspect
import os
import shutil
import sys
from typing import Any, Callable

WRITE_MODES = frozenset("wax+")
EXEMPT_PREFIXES = ("/dev/", "/proc/", "/sys/")
MAX_LISTED = 8  # paths listed in the report per kind


class WriteGuard:
    def __init__(self, scratch: str, exempt: str) -> None:
        self.scratch = os.path.abspath(scratch)
        self.exempt = os.path.abspath(exempt)  # verify's own work folder (status, result, scratch)
        self.redirected: list[str] = []  # the program's paths, in the order first written
        self.not_deleted: list[str] = []
        os.makedirs(self.scratch, exist_ok=True)
        self._real_makedirs = os.makedirs
        self._real_exists = os.path.exists

    # -------------------------------------------------------------- mapping
    def _guarded(self, path: Any) -> str | None:
        """The absolute path when it is one of the user's (not verify's own, not a device)."""
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, (str, os.PathLike)) or isinstance(path, int):
            return None
        text = os.fspath(path)
        if "://" in text:  # gs://, hdfs://: not this machine's files
            return None
        absolute = os.path.abspath(text)
        if absolute == self.exempt or absolute.startswith(self.exempt + os.sep) or absolute == os.devnull \
                or absolute.startswith(EXEMPT_PREFIXES):
            return None
        return absolute

    def copy_of(self, absolute: str) -> str:
        return os.path.join(self.scratch, absolute.lstrip(os.sep))

    def for_write(self, path: Any) -> Any:
        absolute = self._guarded(path)
        if absolute is None:
            return path
        target = self.copy_of(absolute)
        self._real_makedirs(os.path.dirname(target), exist_ok=True)
        if absolute not in self.redirected:
            self.redirected.append(absolute)
        return target

    def for_read(self, path: Any) -> Any:
        """The copy when this run wrote the path (or a checkpoint prefix of it), else the path."""
        absolute = self._guarded(path)
        if absolute is None:
            return path
        target = self.copy_of(absolute)
        if self._real_exists(target) or glob.glob(glob.escape(target) + ".*"):
            return target
        return path

    def for_delete(self, path: Any) -> Any | None:
        """The copy to delete, or None: the user's own path is kept (and listed)."""
        absolute = self._guarded(path)
        if absolute is None:
            return path
        target = self.copy_of(absolute)
        if self._real_exists(target):
            return target
        if self._real_exists(absolute) and absolute not in self.not_deleted:
            self.not_deleted.append(absolute)
        return None

    def exists(self, path: Any, check: Callable[[Any], bool]) -> bool:
        absolute = self._guarded(path)
        return check(path) or (absolute is not None and check(self.copy_of(absolute)))

    def summary(self) -> list[str]:
        lines = []
        if self.redirected:
            shown = ", ".join(self.redirected[:MAX_LISTED]) + (", ..." if len(self.redirected) > MAX_LISTED else "")
            lines.append(f"writes of {len(self.redirected)} path(s) went to verify's scratch folder, not to "
                         f"your files: {shown}")
        if self.not_deleted:
            shown = ", ".join(self.not_deleted[:MAX_LISTED]) + (", ..." if len(self.not_deleted) > MAX_LISTED else "")
            lines.append(f"not deleted (the program deletes them): {shown}")
        return lines

    # -------------------------------------------------------------- installing
    def install(self, tf: Any) -> None:
        self._install_python()
        self._install_file_io()
        self._install_tensorflow(tf)

    def _install_python(self) -> None:
        guard = self
        real_open = builtins.open

        @functools.wraps(real_open)
        def open_(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            if isinstance(mode, str) and WRITE_MODES & set(mode):
                if "a" in mode or "+" in mode:
                    guard._seed_copy(file)
                return real_open(guard.for_write(file), mode, *args, **kwargs)
            return real_open(guard.for_read(file), mode, *args, **kwargs)

        builtins.open = open_
        os.makedirs = self._wrap_write(os.makedirs)
        os.mkdir = self._wrap_write(os.mkdir)
        for name in ("remove", "unlink", "rmdir"):
            setattr(os, name, self._wrap_delete(getattr(os, name)))
        shutil.rmtree = self._wrap_delete(shutil.rmtree)
        os.rename = self._wrap_move(os.rename)
        os.replace = self._wrap_move(os.replace)
        for name in ("exists", "isdir", "isfile"):
            check = getattr(os.path, name)
            setattr(os.path, name, functools.wraps(check)(lambda path, _check=check: guard.exists(path, _check)))

    def _seed_copy(self, path: Any) -> None:
        """Appending to one of the user's files: the copy starts as the file was."""
        absolute = self._guarded(path)
        if absolute is not None and os.path.isfile(absolute) and not self._real_exists(self.copy_of(absolute)):
            self._real_makedirs(os.path.dirname(self.copy_of(absolute)), exist_ok=True)
            shutil.copy2(absolute, self.copy_of(absolute))

    def _wrap_write(self, function: Callable[..., Any], index: int = 0) -> Callable[..., Any]:
        guard = self

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > index:
                args = (*args[:index], guard.for_write(args[index]), *args[index + 1:])
            return function(*args, **kwargs)

        return wrapper

    def _wrap_read(self, function: Callable[..., Any]) -> Callable[..., Any]:
        guard = self

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if args:
                args = (guard.for_read(args[0]), *args[1:])
            return function(*args, **kwargs)

        return wrapper

    def _wrap_delete(self, function: Callable[..., Any]) -> Callable[..., Any]:
        guard = self

        @functools.wraps(function)
        def wrapper(path: Any, *args: Any, **kwargs: Any) -> Any:
            target = guard.for_delete(path)
            return None if target is None else function(target, *args, **kwargs)

        return wrapper

    def _wrap_move(self, function: Callable[..., Any]) -> Callable[..., Any]:
        guard = self

        @functools.wraps(function)
        def wrapper(source: Any, destination: Any, *args: Any, **kwargs: Any) -> Any:
            readable = guard.for_read(source)
            if readable is source and guard._guarded(source) is not None:
                # Moving one of the user's files: copy it instead, and leave it where it is.
                target = guard.for_write(destination)
                return shutil.copytree(source, target) if os.path.isdir(source) else shutil.copy2(source, target)
            return function(readable, guard.for_write(destination), *args, **kwargs)

        return wrapper

    def _install_file_io(self) -> None:
        """tf.io.gfile / tf.compat.v1.gfile: the same functions under several names in several
        modules; each alias is replaced."""
        from tensorflow.python.lib.io import file_io
        from tensorflow.python.platform import gfile

        guard = self
        wrappers: dict[Any, Callable[..., Any]] = {}
        for name in ("recursive_create_dir", "recursive_create_dir_v2", "create_dir", "create_dir_v2",
                     "write_string_to_file", "atomic_write_string_to_file"):
            wrappers[getattr(file_io, name)] = self._wrap_write(getattr(file_io, name))
        for name in ("delete_file", "delete_file_v2", "delete_recursively", "delete_recursively_v2"):
            wrappers[getattr(file_io, name)] = self._wrap_delete(getattr(file_io, name))
        for name in ("rename", "rename_v2", "copy", "copy_v2"):
            original = getattr(file_io, name)
            moves = name.startswith("rename")

            def copy_or_move(source: Any, destination: Any, *args: Any, _original: Any = original,
                             _moves: bool = moves, **kwargs: Any) -> Any:
                readable = guard.for_read(source)
                if _moves and readable is source and guard._guarded(source) is not None:
                    return file_io.copy_v2(source, guard.for_write(destination), *args, **kwargs)
                return _original(readable, guard.for_write(destination), *args, **kwargs)

            wrappers[original] = functools.wraps(original)(copy_or_move)
        for name in ("file_exists", "file_exists_v2", "is_directory", "is_directory_v2"):
            original = getattr(file_io, name)
            wrappers[original] = functools.wraps(original)(
                lambda path, _check=original: guard.exists(path, _check))
        for name in ("read_file_to_string", "list_directory", "list_directory_v2", "stat", "stat_v2"):
            wrappers[getattr(file_io, name)] = self._wrap_read(getattr(file_io, name))
        modules = [file_io, gfile, *_api_modules("tensorflow.io.gfile", "tensorflow.compat.v1.gfile",
                                                 "tensorflow.compat.v1.io.gfile", "tensorflow._api.v2.io.gfile",
                                                 "tensorflow._api.v2.compat.v1.gfile")]
        for module in modules:
            for name, value in list(vars(module).items()):
                try:
                    replacement = wrappers.get(value)
                except TypeError:  # unhashable
                    continue
                if replacement is not None:
                    setattr(module, name, replacement)
        original_init = file_io.FileIO.__init__

        def file_init(handle: Any, name: Any, mode: str = "r") -> None:
            written = isinstance(mode, str) and bool(WRITE_MODES & set(mode))
            if written and ("a" in mode or "+" in mode):
                guard._seed_copy(name)
            original_init(handle, guard.for_write(name) if written else guard.for_read(name), mode)

        file_io.FileIO.__init__ = file_init

    def _install_tensorflow(self, tf: Any) -> None:
        from tensorflow.python.framework import graph_io
        from tensorflow.python.summary.writer import writer
        from tensorflow.python.training import basic_session_run_hooks as hooks
        from tensorflow.python.training import checkpoint_management, monitored_session, saver, supervisor

        guard = self
        _rebind_arguments(saver.Saver, "save", {"save_path": self.for_write})
        _rebind_arguments(saver.Saver, "restore", {"save_path": self.for_read})
        _rebind_arguments(writer.FileWriter, "__init__", {"logdir": self.for_write})
        _rebind_arguments(supervisor.Supervisor, "__init__", {"logdir": self.for_write})
        _rebind_arguments(hooks.CheckpointSaverHook, "__init__", {"checkpoint_dir": self.for_write})
        _rebind_arguments(hooks.SummarySaverHook, "__init__", {"output_dir": self.for_write})
        replacements: dict[Any, Any] = {
            monitored_session.MonitoredTrainingSession: _with_arguments(
                monitored_session.MonitoredTrainingSession,
                {"checkpoint_dir": self.for_write, "summary_dir": self.for_write}),
            graph_io.write_graph: _with_arguments(graph_io.write_graph, {"logdir": self.for_write}),
            checkpoint_management.latest_checkpoint: _with_arguments(
                checkpoint_management.latest_checkpoint, {"checkpoint_dir": guard.for_read}),
        }
        modules = [monitored_session, graph_io, checkpoint_management, saver,
                   *_api_modules("tensorflow.compat.v1.train", "tensorflow.train", "tensorflow.io",
                                 "tensorflow.compat.v1.io", "tensorflow._api.v2.train",
                                 "tensorflow._api.v2.compat.v1.train")]
        for module in modules:
            for name, value in list(vars(module).items()):
                try:
                    replacement = replacements.get(value)
                except TypeError:
                    continue
                if replacement is not None:
                    setattr(module, name, replacement)


def _api_modules(*names: str) -> list[Any]:
    return [sys.modules[name] for name in names if name in sys.modules]


def _with_arguments(function: Callable[..., Any], mapping: dict[str, Callable[[Any], Any]]) -> Callable[..., Any]:
    """`function` with the named arguments passed through `mapping` (positional or keyword)."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return function(*args, **kwargs)  # the program's own mistake: TensorFlow reports it
        for name, convert in mapping.items():
            if bound.arguments.get(name) is not None:
                bound.arguments[name] = convert(bound.arguments[name])
        return function(*bound.args, **bound.kwargs)

    return wrapper


def _rebind_arguments(cls: type, method: str, mapping: dict[str, Callable[[Any], Any]]) -> None:
    setattr(cls, method, _with_arguments(getattr(cls, method), mapping))
