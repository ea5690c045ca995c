"""The abstract interpreter: walks a module the way Python would run it, with TensorFlow modelled.

Statements and expressions are interpreted over abstract values (values.py).  Calls into
TensorFlow are dispatched to `tfapi.py`, which drives the pure model (`scopelint.model`).
Anything the analysis cannot compute becomes UNKNOWN; code that may or may not run (an `if` on an
unknown condition, a loop of unknown length) runs *speculatively*: what it creates is recorded as
uncertain, and no rule reports a certain finding from it.
"""
from __future__ import annotations

import functools
import operator
import re
import string
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange

from scopelint import pyparse
from scopelint.analysis import builtins_model, generators, handlers, loop_counts, project, replay, shapes, undefined_names
from scopelint.analysis import device_functions, shared_modules, user_layers
from scopelint.analysis import config_values as cfg
from scopelint.analysis.positions import Positions, walk

from scopelint.analysis import ParseFailure
from scopelint.analysis.nesting import NestingTooDeep
from scopelint.analysis.values import (
    UNKNOWN,
    Builtin,
    BoundMethod,
    Env,
    GeneratorContext,
    Instance,
    ModuleContext,
    ModuleValue,
    PartialStr,
    TFRef,
    UserClass,
    UserFunction,
    is_known,
    note_module_read,
    replace_contents,
)
from scopelint.model.graph import GraphModel, ModelRaise, Where
from scopelint.trace import BudgetStop, Event, Related, Site, Trace

MAX_CALL_DEPTH = 24
MAX_LOOP_ITERATIONS = 256
MAX_STEPS = 60_000  # statements and calls per entry point, so pathological files stay bounded
# A function run alone (never called by its module) has unknown arguments, so nearly every branch
# runs speculatively: its facts come from its own body and near callees, and its budget is smaller.
ISOLATED_MAX_STEPS = 6_000
ISOLATED_MAX_CALL_DEPTH = 6
MAX_TOTAL_STEPS = 400_000  # for the whole module, all entry points together
# Strings, lists and tuples the analysis builds, and the bits of its integers: an operation whose
# result would be larger gives UNKNOWN *before* it is computed (`s = s + s` in a loop, `'ab' * 10**9`,
# `10 ** 10 ** 8` or `'%0999999999d'` would otherwise exhaust memory or hang in one step).
MAX_VALUE_LENGTH = 100_000
MAX_INT_BITS = 100_000
_WIDE_FIELD = re.compile(r"\d{6,}")  # a width or precision of a million or more

# Decorators that do not change what a call does to the graph.
TRANSPARENT_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "property", "abstractmethod", "wraps", "functools.wraps",
     "abc.abstractmethod", "add_arg_scope", "tf.contrib.framework.add_arg_scope", "overload",
     "contextmanager", "contextlib.contextmanager", "tf.function", "function"}
)

_BINOPS = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
    cst.Power: operator.pow, cst.LeftShift: operator.lshift, cst.RightShift: operator.rshift,
    cst.BitOr: operator.or_, cst.BitAnd: operator.and_, cst.BitXor: operator.xor,
}
_BINOPS_BY_NAME = {cls.__name__: fn for cls, fn in _BINOPS.items()}  # binop is given the operator's name
_COMPARISONS = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
    cst.Is: operator.is_, cst.IsNot: operator.is_not, cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}
_IDENTITY_OR_EQUALITY = (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)
_PRIMITIVES = (str, int, float, bool, type(None), tuple, list, dict, range, set, frozenset)


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _UserRaise(Exception):
    """The program raises (a `raise` statement): this path of execution ends."""


class _Budget(Exception):
    """The step budget ran out."""

    def __init__(self, call: Frame | None = None) -> None:
        super().__init__()
        self.call = call  # the user call being run (see Interpreter._out_of_budget), if any


def _budget_stop(entry: str, stop: _Budget) -> BudgetStop:
    if stop.call is None:
        return BudgetStop(entry, None, None)
    return BudgetStop(entry, stop.call.site, stop.call.function)


@dataclass
class Frame:
    """One user-level call, for explaining findings ("second call of `critic` at line 12")."""

    function: str
    site: Site
    ordinal: int  # 1 for the first call of that function in this run
    # The frame below this one on the stack it was pushed on (not compared, not printed: a frame
    # is what it says of its own call, as before it had one).
    caller: "Frame | None" = field(default=None, repr=False, compare=False)
    _notes: "tuple[Related, ...] | None" = field(default=None, init=False, repr=False, compare=False)

    def notes(self) -> tuple[Related, ...]:
        """How a finding inside this call names it and its callers, outermost first: built once
        per call, when the first finding or record inside it asks (most calls have none), and
        shared with the calls it makes, not rebuilt from the whole stack at every operation."""
        if self._notes is None:
            own = Related(self.site, f"{_ordinal(self.ordinal)} call of `{self.function}`")
            self._notes = (self.caller.notes() if self.caller is not None else ()) + (own,)
        return self._notes


class Interpreter:
    def __init__(self, path: str, configuration: cfg.ConfigState | None = None) -> None:
        from scopelint.analysis import tfapi

        self.path = path
        # The configuration of this run: flag values chosen, flags declared, tests learned from.
        self.config = configuration if configuration is not None else cfg.ConfigState()
        self.tfapi = tfapi
        self.graph = GraphModel(path)
        self.graphs: list[GraphModel] = [self.graph]
        self.graph_stack: list[GraphModel] = []
        self.frames: list[Frame] = []
        self.call_counts: dict[str, int] = {}
        self.steps = 0
        self.max_steps = MAX_STEPS
        self.stopped_by_program = False
        # The entry points (the module's top level "", a test method's name) whose run the step
        # budget ended, each with the call it was in: findings past it are missing, and the user is
        # told so (scopelint/budget_notes.py).
        self.budget_stops: list[BudgetStop] = []
        self._sites: dict[tuple[int, str], tuple[cst.CSTNode, Site]] = {}  # see site()
        self.max_call_depth = MAX_CALL_DEPTH
        self.total_steps = 0
        self.module: ModuleContext | None = None
        # Project modules imported so far (resolved path -> module value; None while loading or
        # when it could not be loaded), so each runs once, as Python imports do.
        self.loaded_modules: dict[str, ModuleValue | None] = {}
        self.imported_lines = 0  # source lines of the project modules run so far
        self.imported_modules = 0  # project modules run so far (the import work budget)
        self.import_refusals = 0  # imports the budget refused
        self.module_lines: dict[str, int] = {}  # lines of each project module loaded, by resolved path
        self.import_lookups: list[tuple[str, str, int]] = []  # (importer, module, level) looked up
        # The project modules whose import is in progress, innermost last, each with the modules
        # its import reached so far (for sharing it).
        self.imports_running: list[tuple[str, set[str]]] = []
        self.extra_events: list[Event] = []
        self.tensorflow_seen = False
        self.final_graph = 0
        self.current_callee = ""
        # FunctionDefs with an unused `reuse` parameter, reported when they create variables.
        self.unused_reuse_params: dict[int, cst.FunctionDef] = {}
        # Set by `with` over a @contextmanager generator for the call it is about to make.
        self.pending_yield_hook: Any = None
        # Containers whose contents are no longer known (mutated on a path that may not run, or
        # by an operation the analysis cannot compute), by id; the objects are kept so ids stay
        # unique.  Python values cannot be made unknown in place, so every read checks this.
        self.forgotten: dict[int, Any] = {}
        # Path exploration: the unreached-functions phase recorded by an earlier run (replay.py).
        self.phase_memo: Any = None
        # Loops of unknown length are a path choice (loop_counts.py), except in functions run alone
        # with unknown arguments, whose findings hold in any context or not at all.
        self.explores_loops = True
        # One list per user call in progress: what its speculative branches returned.
        self.maybe_returned: list[list[Any]] = []
        # Breaks a speculative branch swallowed in the innermost loop being run: that loop may have
        # ended there, so a `while` stops iterating for certain (exec_while).
        self.maybe_broke = 0
        # Resource variables (VarHandleOp) or ref variables (VariableV2): set by
        # tf.disable_v2_behavior() and the like; None when the program says nothing (device_functions.py).
        self.resource_variables: bool | None = None
        tfapi.install_devices(self.graph)

    # ------------------------------------------------------------------ sites
    def site(self, node: cst.CSTNode) -> Site:
        assert self.module is not None
        # Made once per node and file in a run: a call's site is asked for at every call, and a
        # loop's or a builder's nodes are run many times.  The node is kept with its site, so an
        # id reused by another node can never answer.
        key = (id(node), self.module.path)
        known = self._sites.get(key)
        if known is not None and known[0] is node:
            return known[1]
        try:
            pos: CodeRange = self.module.positions[node]
        except KeyError:
            site = Site(self.module.path, 1, 1, 1, 1)
        else:
            site = Site(self.module.path, pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1)
        self._sites[key] = (node, site)
        return site

    def where(self, node: cst.CSTNode) -> Where:
        return Where(self.site(node), self.frames[-1].notes() if self.frames else ())

    def tick(self) -> None:
        self.steps += 1
        self.total_steps += 1
        if self.steps > self.max_steps or self.total_steps > MAX_TOTAL_STEPS:
            raise self._out_of_budget()

    def _out_of_budget(self) -> "_Budget":
        """Where the run was, for the note (the raise unwinds the frames before anyone can look):
        the innermost call made from the analysed file, since the outermost one is often `main`;
        none when every call was made elsewhere (an imported module's top level), since the note
        gives a line of the analysed file."""
        in_file = [frame for frame in self.frames if frame.site.path == self.path]
        return _Budget(in_file[-1] if in_file else None)

    # ------------------------------------------------------------------ speculative execution
    def speculative(self) -> "_Speculative":
        return _Speculative(self)

    # ------------------------------------------------------------------ module
    def run_module(self, module: cst.Module, positions: Positions) -> None:
        env = Env()
        env.vars.update({"__name__": "__main__", "__file__": self.path})
        self.module = ModuleContext(self.path, positions, env)
        try:
            self.exec_block(module.body, env)
        except ModelRaise:
            pass  # TensorFlow raised: the program stops here, as it would for real.
        except _UserRaise:
            self.stopped_by_program = True  # its own raise (a bad flag value) or a NameError: the run ends
        except (_Return, _Break, _Continue):
            pass
        except _Budget as stop:
            self.graph.note_unmodelled_creation()
            self.budget_stops.append(_budget_stop("", stop))
        except RecursionError:
            self.graph.note_unmodelled_creation()
        self.final_graph = self.graphs.index(self.graph) if self.graph in self.graphs else 0
        self.run_test_methods(env)
        replay.run_unreached(self, module, env, self.phase_memo)
        self.tfapi.tfapi_devices.finish_module(self, module)  # setters never used (TFS401)

    def run_test_methods(self, env: Env) -> None:
        """Every test method of a `tf.test.TestCase` is an entry point, as the test runner makes it:
        a new instance, `setUp`, then the method, in a default graph of its own (TensorFlow's
        TestCase resets the default graph before each test)."""
        assert self.module is not None
        for value in list(env.vars.values()):
            if not isinstance(value, UserClass) or not _is_tf_test_case(value):
                continue
            names = sorted(name for name in _class_attrs(value) if name.startswith("test"))
            for name in names:
                method = value.lookup(name)
                if not isinstance(method, UserFunction) or method.module is not self.module:
                    continue
                graph = GraphModel(self.path)
                self.tfapi.install_devices(graph)
                self.graphs.append(graph)
                previous, self.graph = self.graph, graph
                self.steps = 0
                instance = Instance(value)
                try:
                    for step in ("setUp", name):
                        function = value.lookup(step)
                        if isinstance(function, UserFunction):
                            self.call_user(function, [], {}, function.node, receiver=instance)
                except _Budget as stop:
                    self.budget_stops.append(_budget_stop(name, stop))
                except (ModelRaise, _UserRaise, _Return, _Break, _Continue, RecursionError):
                    pass
                finally:
                    self.graph = previous

    def run_unreached_functions(self, module: cst.Module, env: Env) -> None:
        """Functions never called by the module run once each, alone, with unknown arguments.

        Their scope context is unknown (the caller may have set reuse), so only facts that hold in
        any context are certain there.
        """
        from scopelint.model.scopes import Reuse, VarScope

        assert self.module is not None
        self.max_steps, self.max_call_depth = ISOLATED_MAX_STEPS, ISOLATED_MAX_CALL_DEPTH
        self.explores_loops = False
        for name, value in list(env.vars.items()):
            for function, cls in self.unreached_of(value):
                if getattr(function.node, "name", None) is None:
                    continue
                if id(function.node) in self.module.executed_defs:
                    continue
                graph = GraphModel(self.path)
                graph.root = VarScope("?", Reuse.UNKNOWN, "?/", is_root=True)
                graph.var_scope = graph.root
                graph.name_stack = "?"
                graph.note_unmodelled_creation()
                self.tfapi.install_devices(graph, unknown=True)
                previous = self.graph
                self.graph = graph
                self.steps = 0
                try:
                    receiver = Instance(cls) if cls is not None else None
                    self.call_user(function, [], {}, function.node, receiver=receiver,
                                   unknown_args=True)
                except (ModelRaise, _UserRaise, _Return, _Break, _Continue, _Budget, RecursionError):
                    pass
                finally:
                    self.graph = previous
                # Their variables are not part of the program's predicted inventory; their certain
                # events (argument errors, syntax-level facts) are.
                self.extra_events.extend(event for event in graph.events if event.certain)

    def unreached_of(self, value: Any) -> list[tuple[UserFunction, Any]]:
        """The functions of a module-level value that no entry point ran, with their class."""
        assert self.module is not None
        targets: list[tuple[UserFunction, Any]] = []
        # Only this module's own functions: imported ones are analysed with their module.
        if isinstance(value, UserFunction) and value.module is self.module \
                and id(value.node) not in self.module.executed_defs:
            targets.append((value, None))
        elif isinstance(value, UserClass):
            for attr in value.attrs.values():
                if isinstance(attr, UserFunction) and attr.module is self.module \
                        and id(attr.node) not in self.module.executed_defs:
                    targets.append((attr, value))
        return targets

    # ------------------------------------------------------------------ statements
    def exec_block(self, body: Any, env: Env) -> None:
        kind = type(body)  # exact node types: see eval
        if kind is cst.SimpleStatementSuite:
            for small in body.body:
                self.exec_small(small, env)
            return
        if kind is cst.IndentedBlock:
            body = body.body
        for statement in body:
            self.exec_statement(statement, env)

    def exec_statement(self, node: cst.CSTNode, env: Env) -> None:
        kind = type(node)  # exact node types: see eval
        self.tick()
        if kind is cst.SimpleStatementLine:
            for small in node.body:
                self.exec_small(small, env)
        elif kind is cst.FunctionDef:
            env.assign(node.name.value, self.make_function(node, env))
        elif kind is cst.ClassDef:
            self.exec_class(node, env)
        elif kind is cst.If:
            self.exec_if(node, env)
        elif kind is cst.For:
            self.exec_for(node, env)
        elif kind is cst.While:
            self.exec_while(node, env)
        elif kind is cst.With:
            self.exec_with(node, list(node.items), env)
        elif kind is cst.Try:
            self.exec_try(node, env)
        elif kind is cst.Match:
            with self.speculative() as spec:
                for case in node.cases:
                    spec.branch(env, lambda e, c=case: self.exec_block(c.body, e))
        # Other compound statements (async) are not modelled.

    def exec_small(self, node: cst.CSTNode, env: Env) -> None:
        kind = type(node)  # exact node types: see eval
        if kind is cst.Expr:
            self.eval(node.value, env)
        elif kind is cst.Assign:
            value = self.eval(node.value, env)
            for target in node.targets:
                self.assign(target.target, value, env)
        elif kind is cst.AnnAssign:
            if node.value is not None:
                self.assign(node.target, self.eval(node.value, env), env)
        elif kind is cst.AugAssign:
            current = self.eval(node.target, env)
            value = self.binop(type(node.operator).__name__.replace("Assign", ""), current,
                               self.eval(node.value, env))
            if isinstance(current, (list, dict, set)) and not self.lost(current):
                # `l += ...` changes the object in place: every alias sees it.
                if self.graph.speculative or type(value) is not type(current):
                    self.forget(current, env)
                    value = UNKNOWN
                else:
                    replace_contents(current, value)
                    value = current
            self.assign(node.target, value, env)
        elif kind is cst.Return:
            raise _Return(self.eval(node.value, env) if node.value is not None else None)
        elif kind is cst.Raise:
            if node.exc is not None:
                self.eval(node.exc, env)
            raise _UserRaise()
        elif kind is cst.Break:
            raise _Break()
        elif kind is cst.Continue:
            raise _Continue()
        elif kind is cst.Import:
            for alias in node.names:
                self.bind_import(_dotted(alias.name), alias, env)
        elif kind is cst.ImportFrom:
            self.bind_import_from(node, env)
        elif kind is cst.Global:
            for name in node.names:
                env.globals_declared.add(name.name.value)
        elif kind is cst.Nonlocal:
            pass
        elif kind is cst.Del:
            self.delete(node.target, env)

    def exec_if(self, node: cst.If, env: Env) -> None:
        condition = self.truth(self.eval(node.test, env))
        if condition is True:
            self.exec_block(node.body, env)
        elif condition is False:
            if node.orelse is not None:
                self.exec_orelse(node.orelse, env)
        else:
            with self.speculative() as spec:
                spec.branch(env, lambda e: self.exec_block(node.body, e))
                spec.branch(env, lambda e: self.exec_orelse(node.orelse, e) if node.orelse else None)
            if spec.every_branch_left() and self.maybe_returned:
                # `if x: return a` / `else: raise`: the function has returned (what, the call joins).
                raise _Return(_joined(self.maybe_returned[-1]))

    def exec_orelse(self, orelse: cst.If | cst.Else, env: Env) -> None:
        if isinstance(orelse, cst.If):
            self.exec_if(orelse, env)
        else:
            self.exec_block(orelse.body, env)

    def exec_for(self, node: cst.For, env: Env) -> None:
        outer_broke = self.maybe_broke
        try:
            self._exec_for(node, env)
        finally:
            self.maybe_broke = outer_broke

    def _exec_for(self, node: cst.For, env: Env) -> None:
        iterable = self.eval(node.iter, env)
        items = self.iterate(iterable)
        if items is None and loop_counts.runs_twice(self, node):
            # This run is the path where the loop runs twice (loop_counts.py).
            items = loop_counts.two_items(node.iter, lambda e: self.eval(e, env))
        elif items is None or len(items) > MAX_LOOP_ITERATIONS:
            # Unknown or too long: the body may run any number of times.
            graph = self.graph
            before = len(graph.records) + len(graph.events)
            with self.speculative() as spec:
                def body(e: Env) -> None:
                    self.assign(node.target, UNKNOWN, e)
                    self.exec_block(node.body, e)

                # Once is enough here: what a later iteration could prove is uncertain anyway, and
                # running nested unknown loops twice each would be exponential.  A body that built
                # something is run twice, for certain, on a path of its own.
                spec.branch(env, body)
            if items is None:
                loop_counts.learn(self, node, graph is self.graph and len(graph.records) + len(graph.events) > before)
            return
        broke = False
        for item in items:
            self.assign(node.target, item, env)
            try:
                self.exec_block(node.body, env)
            except _Break:
                broke = True
                break
            except _Continue:
                continue
        if not broke and node.orelse is not None:
            self.exec_block(node.orelse.body, env)

    def exec_while(self, node: cst.While, env: Env) -> None:
        """A condition the analysis can decide runs the loop as Python would (`while i < n`, up to
        MAX_LOOP_ITERATIONS); an undecidable one runs the rest of the loop as a `for` over an
        unknown count: once speculatively, and twice for certain on a path of its own."""
        outer_broke, self.maybe_broke = self.maybe_broke, 0
        muted = self.config.muted
        try:
            iterations = 0
            while True:
                if iterations == loop_counts.TWICE:
                    # Two iterations have shown which configuration values decide the loop.
                    self.config.muted += 1
                condition = self.truth(self.eval(node.test, env))
                if condition is False:
                    if node.orelse is not None:
                        self.exec_block(node.orelse.body, env)
                    return
                if condition is None or iterations >= MAX_LOOP_ITERATIONS or self.maybe_broke:
                    break
                iterations += 1
                try:
                    self.exec_block(node.body, env)
                except _Break:
                    return
                except _Continue:
                    continue
            if iterations == 0 and loop_counts.runs_twice(self, node):
                for _ in range(loop_counts.TWICE):
                    try:
                        self.exec_block(node.body, env)
                    except _Break:
                        return
                    except _Continue:
                        continue
                return
            graph = self.graph
            before = len(graph.records) + len(graph.events)
            with self.speculative() as spec:
                spec.branch(env, lambda e: self.exec_block(node.body, e))
            if iterations == 0:
                loop_counts.learn(self, node, graph is self.graph and len(graph.records) + len(graph.events) > before)
        finally:
            self.maybe_broke = outer_broke
            self.config.muted = muted

    def exec_try(self, node: cst.Try, env: Env) -> None:
        # Inside a try with handlers the program catches TensorFlow's errors itself: the model
        # raises them there instead of recovering (model/graph.py, "Continuing past an error").
        graph = self.graph
        # A handler for other errors, or one that raises again, lets TensorFlow's error through.
        catches = bool(node.handlers) and handlers.handles_tf_errors(node.handlers)
        graph.catching += catches
        try:
            try:
                self.exec_block(node.body, env)
            finally:
                graph.catching -= catches
        except (_UserRaise, ModelRaise) as raised:
            # TensorFlow's error, raised because an outer try catches it, passes handlers for
            # other errors by (they would not run).
            if not node.handlers or isinstance(raised, ModelRaise) and not catches:
                raise
            # The program handles its own error: the rest is not modelled precisely.
            self.graph.note_unmodelled_creation()
            with self.speculative() as spec:
                for handler in node.handlers:
                    spec.branch(env, lambda e, h=handler: self.exec_block(h.body, e))
        else:
            if node.orelse is not None:
                self.exec_block(node.orelse.body, env)
        finally:
            if node.finalbody is not None:
                self.exec_block(node.finalbody.body, env)

    def exec_with(self, node: cst.With, items: list[cst.WithItem], env: Env) -> None:
        if not items:
            self.exec_block(node.body, env)
            return
        item, rest = items[0], items[1:]
        manager = self.eval(item.item, env)
        if handlers.expects_error(item.item):
            graph = self.graph
            graph.catching += 1  # the test expects the error: TensorFlow's is raised and caught here
            try:
                self.exec_with(node, rest, env)
            except ModelRaise as raised:
                raised.event.certain = False  # what the test asserts is no finding
            except _UserRaise:
                pass
            finally:
                graph.catching -= 1
            return
        if isinstance(manager, GeneratorContext):
            generators.exec_generator_with(self, manager, node, item, rest, env)
            return
        entered = self.tfapi.enter_context(self, manager, item.item)
        try:
            if item.asname is not None:
                self.assign(item.asname.name, entered.value, env)
            self.exec_with(node, rest, env)
        finally:
            entered.exit()

    def exec_class(self, node: cst.ClassDef, env: Env) -> None:
        bases = [self.eval(arg.value, env) for arg in node.bases]
        class_env = Env(env)
        self.exec_block(node.body, class_env)
        cls = UserClass(node.name.value, dict(class_env.vars), bases)
        for attr in cls.attrs.values():
            if isinstance(attr, UserFunction) and attr.closure is class_env and attr.owner_class is None:
                attr.owner_class = cls  # Python's __class__ cell, for zero-argument super()
        env.assign(node.name.value, cls)

    # ------------------------------------------------------------------ functions
    def make_function(self, node: cst.FunctionDef, env: Env) -> Any:
        defaults: dict[str, Any] = {}
        params = node.params
        for param in list(params.params) + list(params.kwonly_params) + list(params.posonly_params):
            if param.default is not None:
                defaults[param.name.value] = self.eval(param.default, env)
        function = UserFunction(node, node.name.value, env, defaults, self.module)
        self.note_reuse_parameter(node)
        for decorator in node.decorators:
            name = _dotted(decorator.decorator) if not isinstance(decorator.decorator, cst.Call) \
                else _dotted(decorator.decorator.func)
            if name is not None and name.split(".")[-1] == "contextmanager":
                function.is_contextmanager = True
            if name in ("staticmethod",):
                function.is_static = True
            elif name in ("classmethod",):
                function.is_classmethod = True
            elif name in ("property",):
                function.is_property = True
            elif name is None or (name not in TRANSPARENT_DECORATORS and name.split(".")[-1] not in TRANSPARENT_DECORATORS):
                value = self.eval(decorator.decorator, env)
                if isinstance(value, cfg.ConfigObject):
                    # @click.option(...) / @click.command(): the function, with its configuration
                    # values as parameter defaults (analysis/config_objects.py).
                    decorated = value.call(self.config, [function], {})
                    if isinstance(decorated, UserFunction):
                        function = decorated
                        continue
                if isinstance(value, UserFunction):
                    result = self.call_value(value, [function], {}, decorator.decorator)
                    if isinstance(result, UserFunction):
                        return result
                function.opaque = True
        return function

    def note_reuse_parameter(self, node: cst.FunctionDef) -> None:
        """TFS106: a parameter named `reuse` that the body never reads."""
        names = [p.name.value for p in list(node.params.params) + list(node.params.kwonly_params)]
        if "reuse" not in names:
            return
        if node.params.star_kwarg is not None:
            return
        if not _uses_name(node.body, "reuse") and not _is_stub_body(node):
            # Reported only once a run of the function is seen creating variables (call_user).
            self.unused_reuse_params[id(node)] = node

    def call_user(self, function: UserFunction, args: list[Any], kwargs: dict[str, Any],
                  call_node: cst.CSTNode, receiver: Any = None, unknown_args: bool = False) -> Any:
        if len(self.frames) >= self.max_call_depth:
            self.graph.note_unmodelled_creation()
            builtins_model.mark_escaped([receiver, *args, *kwargs.values()])
            return UNKNOWN
        defaults = self.tfapi.tfapi_slim.user_function_defaults(self, function)
        if defaults:
            kwargs = {**defaults, **kwargs}
        caller_module = self.module
        if function.module is not None:
            self.module = function.module  # sites inside the function are in its own file
        try:
            return self._call_user(function, args, kwargs, call_node, receiver, unknown_args, caller_module)
        finally:
            self.module = caller_module

    def _call_user(self, function: UserFunction, args: list[Any], kwargs: dict[str, Any],
                   call_node: cst.CSTNode, receiver: Any, unknown_args: bool,
                   caller_module: ModuleContext | None) -> Any:
        node = function.node
        assert self.module is not None
        if isinstance(node, cst.FunctionDef):
            self.module.executed_defs.add(id(node))
        env = Env(function.closure)
        if self.pending_yield_hook is not None:
            env.vars[generators.YIELD_HOOK] = self.pending_yield_hook
            self.pending_yield_hook = None
        params = node.params
        positional = list(params.posonly_params) + list(params.params)
        if receiver is not None:
            args = [receiver] + list(args)
        bound: dict[str, Any] = {}
        for index, param in enumerate(positional):
            name = param.name.value
            if index < len(args):
                bound[name] = args[index]
            elif name in kwargs:
                bound[name] = kwargs.pop(name)
            elif unknown_args and not (index == 0 and receiver is not None):
                bound[name] = UNKNOWN
            elif name in function.defaults:
                bound[name] = function.defaults[name]
            else:
                bound[name] = UNKNOWN
        extra_args = args[len(positional):]
        if type(params.star_arg) is cst.Param:
            bound[params.star_arg.name.value] = UNKNOWN if unknown_args else tuple(extra_args)
        for param in params.kwonly_params:
            name = param.name.value
            if name in kwargs:
                bound[name] = kwargs.pop(name)
            elif name in function.defaults and not unknown_args:
                bound[name] = function.defaults[name]
            else:
                bound[name] = UNKNOWN
        if params.star_kwarg is not None:
            bound[params.star_kwarg.name.value] = UNKNOWN if unknown_args else dict(kwargs)
        env.vars.update(bound)
        if function.owner_class is not None and positional:
            env.vars[builtins_model.SUPER_CLASS] = function.owner_class
            env.vars[builtins_model.SUPER_SELF] = bound.get(positional[0].name.value, UNKNOWN)
        if type(node) is cst.Lambda:
            return self.eval(node.body, env)
        key = function.name
        self.call_counts[key] = self.call_counts.get(key, 0) + 1
        callee_module, self.module = self.module, caller_module
        call_site = self.site(call_node)
        self.module = callee_module
        self.frames.append(Frame(function.name, call_site, self.call_counts[key], self.frames[-1] if self.frames else None))
        records_before = len(self.graph.records)
        # Values returned inside branches that may not run (`if unknown: return a`): the call's
        # result is one of them or what the rest of the body returns.
        maybe: list[Any] = []
        self.maybe_returned.append(maybe)
        try:
            if function.opaque:
                with self.speculative() as spec:
                    spec.branch(env, lambda e: self.exec_block(node.body, e))
                return UNKNOWN
            self.exec_block(node.body, env)
        except _Return as returned:
            return _joined(maybe + [returned.value]) if maybe else returned.value
        except _UserRaise:
            if not maybe:
                raise
            # The function raises unless an earlier return happened: only those paths go on.
            return _joined(maybe)
        finally:
            self.maybe_returned.pop()
            self.frames.pop()
            if len(self.graph.records) > records_before and id(node) in self.unused_reuse_params:
                self.report_unused_reuse(self.unused_reuse_params.pop(id(node)))
        return _joined(maybe + [None]) if maybe else None

    def report_unused_reuse(self, node: cst.FunctionDef) -> None:
        """TFS106: the function builds variables, takes `reuse`, and never reads it."""
        param = next(p for p in list(node.params.params) + list(node.params.kwonly_params)
                     if p.name.value == "reuse")
        self.extra_events.append(Event(
            "reuse_param_ignored",
            self.site(param),
            f"function `{node.name.value}` creates variables and takes `reuse` but never uses it: "
            "callers that pass reuse=True still create new variables",
        ))

    def call_value(self, callee: Any, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
        self.tick()
        kind = type(callee)  # exact types: none of these three classes has subclasses
        if kind is TFRef:  # most calls: straight to the TensorFlow model, past the checks below
            return self._call_tensorflow(callee, args, kwargs, node)
        if kind is UserFunction:
            if callee.is_contextmanager:
                return GeneratorContext(callee, list(args), dict(kwargs), node)
            return self.call_user(callee, args, dict(kwargs), node)
        if kind is BoundMethod:
            if callee.function.is_contextmanager:
                return GeneratorContext(callee.function, list(args), dict(kwargs), node, callee.receiver)
            return self.call_user(callee.function, args, dict(kwargs), node, receiver=callee.receiver)
        if isinstance(callee, UserClass):
            if user_layers.is_layer_class(callee):
                return user_layers.construct(self, callee, args, kwargs, node)
            instance = Instance(callee)
            init = callee.lookup("__init__")
            if isinstance(init, UserFunction):
                self.call_user(init, args, dict(kwargs), node, receiver=instance)
            return instance
        if isinstance(callee, Instance):
            call = callee.cls.lookup("__call__")
            if isinstance(call, UserFunction):
                return self.call_user(call, args, dict(kwargs), node, receiver=callee)
            if user_layers.is_layer_instance(callee):
                return user_layers.call_layer(self, callee, args, dict(kwargs), node)
            return UNKNOWN
        if isinstance(callee, user_layers.LayerMethod):
            return user_layers.call_method(self, callee, args, dict(kwargs), node)
        if isinstance(callee, Builtin):
            return self.call_builtin(callee.name, args, kwargs)
        if isinstance(callee, cfg.ConfigObject):
            return callee.call(self.config, args, kwargs)
        return self._call_tensorflow(callee, args, kwargs, node)

    def _call_tensorflow(self, callee: Any, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
        """A TensorFlow API (or another modelled value's) call; flag definitions declare the flag."""
        if isinstance(callee, TFRef) and callee.path.startswith(cfg.DEFINER_PREFIXES):
            var = cfg.flag_var(callee.path.rsplit(".", 1)[1], args, kwargs)
            if var is not None:
                self.config.declare(var)
            return None
        self.tfapi.tfapi_devices.note_config_decisions(self, callee, args, kwargs)
        # TensorFlow gets plain values: a flag's value is just its value there.
        args = [cfg.plain(value) for value in args]
        kwargs = {key: cfg.plain(value) for key, value in kwargs.items()}
        builtins_model.mark_escaped([*args, *kwargs.values()])
        handled = self.tfapi.call(self, callee, args, kwargs, node)
        if handled is not NotImplemented:
            return handled
        # An unknown function: if it is handed tensors it may well build TF variables we do not see.
        if any(self.tfapi.is_tf_value(value) for value in list(args) + list(kwargs.values())):
            self.graph.note_unmodelled_creation()
        return UNKNOWN

    # ------------------------------------------------------------------ imports
    def bind_import(self, name: str | None, alias: cst.ImportAlias, env: Env) -> None:
        if name is None:
            return
        top = name.split(".")[0]
        std = cfg.std_module(name)
        if std is not None:
            if alias.asname is not None:
                self.assign(alias.asname.name, std, env)
            else:  # `import six.moves` binds `six`, the top module
                env.assign(top, cfg.std_module(top) or std)
            return
        tf_path = self.tfapi.tf_path_for_module(name)
        if tf_path and _follows_source(name) and alias.asname is not None:
            loaded_library = self.import_project_module(name, 0)
            if loaded_library is not None:
                self.assign(alias.asname.name, loaded_library, env)
                return
        if tf_path:
            self.tensorflow_seen = True
            if alias.asname is not None:
                self.assign(alias.asname.name, TFRef(tf_path), env)
            else:
                env.assign(top, TFRef(self.tfapi.tf_path_for_module(top) or "tf"))
            return
        # A project module: `import a.b` loads a, then a.b, and binds a; `import a.b as c` binds a.b.
        parts = name.split(".")
        loaded = [self.import_project_module(".".join(parts[:i + 1]), 0) for i in range(len(parts))]
        for parent, child, part in zip(loaded, loaded[1:], parts[1:]):
            if parent is not None and child is not None:
                parent.env.vars.setdefault(part, child)
        if alias.asname is not None:
            self.assign(alias.asname.name, loaded[-1] if loaded[-1] is not None else UNKNOWN, env)
        else:
            env.assign(top, loaded[0] if loaded[0] is not None else UNKNOWN)

    def import_project_module(self, dotted: str, level: int) -> ModuleValue | None:
        """Run a module of the project being checked, once, as `import` would."""
        assert self.module is not None
        if self.imported_lines >= project.MAX_IMPORTED_LINES or self.imported_modules >= project.MAX_IMPORTED_MODULES:
            self.import_refusals += 1
            return None
        file = project.find_module_file(self.module.path, dotted, level)
        self.import_lookups.append((self.module.path, dotted, level))
        if file is None:
            return None
        key = str(file.resolve())
        if self.imports_running:
            self.imports_running[-1][1].add(key)
        if key in self.loaded_modules:
            return self.loaded_modules[key]  # None while it is still loading (a cycle)
        self.loaded_modules[key] = None
        loaded = project.load_module(file, self.module.path)
        if loaded is None:
            return None
        self.module_lines[key] = loaded.source.count("\n")
        self.imported_lines += self.module_lines[key]
        self.imported_modules += 1
        cached = shared_modules.SHARED.get((key, loaded.path))
        if cached is not None and cached.still_valid() and self._import_as_cached(cached, key):
            return cached.value
        refusals_before, lookups_before = self.import_refusals, len(self.import_lookups)
        env = Env()
        module_name = dotted or file.parent.name
        env.vars.update({"__name__": module_name, "__file__": loaded.path})
        value = ModuleValue(module_name, env)
        self.loaded_modules[key] = value
        importer = self.module
        before = self._graph_footprint()
        self.module = ModuleContext(loaded.path, loaded.positions, env)
        reached: set[str] = set()
        self.imports_running.append((key, reached))
        try:
            self.exec_block(loaded.module.body, env)
        except (_UserRaise, _Return, _Break, _Continue):
            pass
        finally:
            self.module = importer
            self.imports_running.pop()
            if self.imports_running:
                self.imports_running[-1][1].update(reached)
        if self._graph_footprint() == before and not loaded.rebinds_globals \
                and self.import_refusals == refusals_before:
            # Importing it touched no graph (and no function rebinds a global): later files checked
            # in this process can take the result instead of interpreting the module again.  Not
            # when this file's budget refused one of its imports (another file may have budget to
            # spare).
            self._share(key, loaded.path, value, reached, self.import_lookups[lookups_before:])
        return value

    def _share(self, key: str, path: str, value: ModuleValue, reached: set[str],
               lookups: list[tuple[str, str, int]]) -> None:
        """Record the import as shared, when every module it reached, loaded by it or before it,
        is shared too, and holds just what its own import left (a module that filled another's
        registry, or read a cache this file had filled, would not give the next file the same)."""
        running = {k for k, _ in self.imports_running}  # reached while still loading: a cycle
        if reached & running:
            return
        imported = {k: self.loaded_modules.get(k) for k in reached | {key}}
        heaps: dict[str, shared_modules.Heap] = {}
        for k, module in imported.items():
            if k == key or module is None:
                continue
            heap = shared_modules.heap_of(module)
            if heap is None or not heap.unchanged(self.lost):
                return
            heaps[k] = heap
        foreign = set().union(*(heap.ids() for heap in heaps.values()))
        own = shared_modules.owned_heap(list(value.env.vars.values()), foreign, self.lost)
        if own is None:
            return
        heaps[key] = own
        shared_modules.SHARED[(key, path)] = shared_modules.SharedModule(
            key, value, imported, project.file_stamps(imported), heaps,
            {k: self.module_lines.get(k, 0) for k in imported}, lookups)

    def _import_as_cached(self, cached: shared_modules.SharedModule, key: str) -> bool:
        """Take a shared module's import as this file's own, when that is what running it would
        give: its modules fit in what is left of the budget, none was loaded otherwise here, and
        those loaded already hold what their import left."""
        new = []  # the modules that come with it, not loaded here yet
        for k, v in cached.loaded.items():
            if k == key:
                continue
            if k not in self.loaded_modules:
                if v is not None:
                    new.append(k)
            elif self.loaded_modules[k] is not v:
                return False  # loaded otherwise here
            elif v is not None and not cached.heaps[k].unchanged(self.lost):
                return False  # this file changed a module the import reads: running it may differ
        lines = sum(cached.lines.get(k, 0) for k in new)
        if self.imported_lines + lines >= project.MAX_IMPORTED_LINES \
                or self.imported_modules + len(new) >= project.MAX_IMPORTED_MODULES:
            return False  # running it would stop at the budget somewhere inside
        self.imported_lines += lines
        self.imported_modules += len(new)
        self.module_lines.update({k: cached.lines.get(k, 0) for k in new})
        for lookup in cached.lookups:
            # The lookups its import made, made again: the results cache records them (a result
            # depends on every module file the analysis read, however it got there).
            project.find_module_file(*lookup)
        self.import_lookups.extend(cached.lookups)
        self.loaded_modules.update(dict.fromkeys(cached.loaded, None))
        self.loaded_modules.update(cached.loaded)
        if self.imports_running:
            self.imports_running[-1][1].update(cached.loaded)
        for k in [*new, key]:
            # Lists, dicts and class attributes as each import left them, whatever other files did.
            cached.heaps[k].restore()
        return True

    def _graph_footprint(self) -> tuple[int, ...]:
        graph = self.graph
        return (id(graph), len(graph.records), len(graph.events), len(graph.namer.used),
                len(graph.counts.counts), int(graph.complete), len(self.extra_events),
                self.config.reads, len(self.config.declared))

    def bind_import_from(self, node: cst.ImportFrom, env: Env) -> None:
        module = _dotted(node.module) if node.module is not None else ""
        level = len(node.relative)
        base = self.tfapi.tf_path_for_module(module) if module and not level else None
        std = cfg.std_module(module) if module and not level else None
        if std is not None and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:  # from sys import argv; from argparse import ArgumentParser
                imported = _dotted(alias.name) or ""
                target = alias.asname.name.value if alias.asname is not None else imported  # type: ignore[union-attr]
                env.assign(target, std.attr(self.config, imported))
            return
        if base and _follows_source(module):
            source = self.import_project_module(module, 0)
            if source is not None:
                base = None  # the project holds this library's source (tf-slim itself): run it
        else:
            source = None if base else self.import_project_module(module or "", level)
        if source is not None:
            note_module_read(source.env)
        if isinstance(node.names, cst.ImportStar):
            if source is not None:
                env.vars.update({k: v for k, v in source.env.vars.items() if not k.startswith("_")})
            return
        for alias in node.names:
            imported = _dotted(alias.name) or ""
            target = alias.asname.name.value if alias.asname is not None else imported  # type: ignore[union-attr]
            if base:
                self.tensorflow_seen = True
                env.assign(target, self.tfapi.resolve_path(self.tfapi.canonical(f"{base}.{imported}")))
            elif source is not None and imported in source.env.vars:
                env.assign(target, source.env.vars[imported])
            else:
                # `from package import submodule`
                submodule = self.import_project_module(f"{module}.{imported}" if module else imported, level) \
                    if source is not None or level else None
                env.assign(target, submodule if submodule is not None else UNKNOWN)

    # ------------------------------------------------------------------ assignment
    def assign(self, target: cst.CSTNode, value: Any, env: Env) -> None:
        kind = type(target)  # exact node types: see eval
        if kind is cst.Name:
            env.assign(target.value, value)
        elif kind is cst.Tuple or kind is cst.List:
            elements = [element.value for element in target.elements]
            items = self.iterate(value)
            starred = [i for i, e in enumerate(target.elements) if type(e) is cst.StarredElement]
            if items is None or starred or len(items) != len(elements):
                for element in elements:
                    self.assign(element, UNKNOWN, env)
                return
            for element, item in zip(elements, items):
                self.assign(element, item, env)
        elif kind is cst.Attribute:
            owner = self.eval(target.value, env)
            if isinstance(owner, (Instance,)):
                owner.attrs[target.attr.value] = value if not self.graph.speculative or \
                    owner.attrs.get(target.attr.value, UNKNOWN) is value else UNKNOWN
            elif isinstance(owner, UserClass):
                owner.attrs[target.attr.value] = value
            elif isinstance(owner, TFRef) and owner.path in cfg.FLAGS_PATHS:
                self.config.set_flag(target.attr.value, value, certain=not self.graph.speculative)
        elif kind is cst.Subscript:
            slot = self.container_slot(target, env)
            if slot is not None:
                owner, key = slot
                try:
                    owner[key] = value
                except (IndexError, TypeError):
                    self.forget(owner, env)
        elif kind is cst.StarredElement:
            self.assign(target.value, UNKNOWN, env)

    def container_slot(self, target: cst.Subscript, env: Env) -> tuple[Any, Any] | None:
        """The known dict or list and key that `d[k] = ...` / `del d[k]` changes; None when
        there is none.  A change that may not happen (speculation) or at an unknown key makes the
        container's contents unknown."""
        owner = self.eval(target.value, env)
        if not isinstance(owner, (dict, list)) or self.lost(owner):
            return None
        index = target.slice[0].slice if len(target.slice) == 1 else None
        key = self.eval(index.value, env) if isinstance(index, cst.Index) else UNKNOWN
        if self.graph.speculative or not (is_known(key) and _hashable(key)):
            self.forget(owner, env)
            return None
        return owner, key

    def delete(self, target: cst.CSTNode, env: Env) -> None:
        """`del x`, `del d[k]`, `del o.a`, `del a, b`."""
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.delete(element.value, env)
        elif isinstance(target, cst.Subscript):
            slot = self.container_slot(target, env)
            if slot is not None:
                owner, key = slot
                try:
                    del owner[key]
                except (IndexError, KeyError, TypeError):
                    self.forget(owner, env)
        elif isinstance(target, cst.Attribute):
            owner = self.eval(target.value, env)
            if isinstance(owner, Instance):
                if self.graph.speculative:
                    owner.attrs[target.attr.value] = UNKNOWN
                else:
                    owner.attrs.pop(target.attr.value, None)

    # ------------------------------------------------------------------ unknown containers
    def lost(self, value: Any) -> bool:
        return id(value) in self.forgotten and self.forgotten[id(value)] is value

    def forget(self, container: Any, env: Env | None) -> None:
        """The contents of a list, dict or set are no longer known: every read of it from now on
        is UNKNOWN, and the names and attributes holding it now hold UNKNOWN (so a join of
        speculative branches sees the change)."""
        self.forgotten[id(container)] = container
        scope = env
        while scope is not None:
            note_module_read(scope)
            for name, value in list(scope.vars.items()):
                if value is container:
                    scope.vars[name] = UNKNOWN
                elif isinstance(value, Instance):
                    for attr, held in list(value.attrs.items()):
                        if held is container:
                            value.attrs[attr] = UNKNOWN
            scope = scope.parent

    # ------------------------------------------------------------------ expressions
    def eval(self, node: cst.CSTNode, env: Env) -> Any:
        # Exact node types, compared by identity: LibCST's node classes are ABCs, and a chain of
        # isinstance misses on them was the interpreter's largest single cost.
        # Tested in the order of how often they come (Name alone is over 40 % on real code).
        kind = type(node)
        if kind is cst.Name:
            try:
                return env.lookup(node.value)  # lookup(), its common case inlined
            except KeyError:
                return self._not_in_scope(node.value, node)
        if kind is cst.Call:
            return self.eval_call(node, env)
        if kind is cst.Attribute:
            return self.getattr(self.eval(node.value, env), node.attr.value, node)
        if kind is cst.Integer:
            return _int_literal(node.value)
        if kind is cst.SimpleString:
            return _string_literal(node.value)
        if kind is cst.Subscript:
            return self.eval_subscript(node, env)
        if kind is cst.BinaryOperation:
            return self.binop(type(node.operator).__name__, self.eval(node.left, env), self.eval(node.right, env))
        if kind is cst.Comparison:
            return self.eval_comparison(node, env)
        if kind is cst.Float:
            return float(node.value.replace("_", ""))
        if kind is cst.Imaginary:
            return UNKNOWN
        if kind is cst.ConcatenatedString:
            left, right = self.eval(node.left, env), self.eval(node.right, env)
            return left + right if isinstance(left, str) and isinstance(right, str) else UNKNOWN
        if kind is cst.FormattedString:
            return self.eval_fstring(node, env)
        if kind in (cst.Tuple, cst.List, cst.Set):
            items: list[Any] = []
            for element in node.elements:
                if type(element) is cst.StarredElement:
                    inner = self.iterate(self.eval(element.value, env))
                    if inner is None:
                        return UNKNOWN
                    items.extend(inner)
                else:
                    items.append(self.eval(element.value, env))
            if kind is cst.Tuple:
                return tuple(items)
            if kind is cst.List:
                return items
            return _known_set(items)
        if kind is cst.Dict:
            result: dict[Any, Any] = {}
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    key = self.eval(element.key, env)
                    value = self.eval(element.value, env)
                    if not is_known(key) or not _hashable(key):
                        return UNKNOWN
                    result[key] = value
                else:
                    inner = self.eval(element.value, env)
                    if not isinstance(inner, dict):
                        return UNKNOWN
                    result.update(inner)
            return result
        if kind is cst.UnaryOperation:
            value = self.eval(node.expression, env)
            if type(node.operator) is cst.Not:
                truth = self.truth(value)
                return UNKNOWN if truth is None else not truth
            if isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, bool):
                if isinstance(node.operator, cst.Minus):
                    return -value
                if isinstance(node.operator, cst.Plus):
                    return +value
                if isinstance(node.operator, cst.BitInvert):
                    return ~value
            return self.tfapi.tensor_like(value)
        if kind is cst.BooleanOperation:
            left = self.eval(node.left, env)
            truth = self.truth(left)
            if isinstance(node.operator, cst.And):
                if truth is False:
                    return left
                right = self.eval(node.right, env)
                return right if truth is True else UNKNOWN
            if truth is True:
                return left
            right = self.eval(node.right, env)
            # With an unknown left operand the result is either operand: unknown.
            return right if truth is False else UNKNOWN
        if kind is cst.IfExp:
            truth = self.truth(self.eval(node.test, env))
            if truth is True:
                return self.eval(node.body, env)
            if truth is False:
                return self.eval(node.orelse, env)
            with self.speculative() as spec:
                results = [spec.branch(env, lambda e: self.eval(node.body, e)),
                           spec.branch(env, lambda e: self.eval(node.orelse, e))]
            return results[0] if _same(results[0], results[1]) else UNKNOWN
        if kind is cst.Lambda:
            defaults = {p.name.value: self.eval(p.default, env) for p in node.params.params if p.default}
            return UserFunction(node, "<lambda>", env, defaults, self.module)
        if kind in (cst.ListComp, cst.GeneratorExp, cst.SetComp):
            return self.eval_comprehension(node, env)
        if kind is cst.DictComp:
            return self.eval_comprehension(node, env)
        if kind is cst.NamedExpr:
            value = self.eval(node.value, env)
            self.assign(node.target, value, env)
            return value
        if kind is cst.Ellipsis:
            return ...
        if kind is cst.Await:
            return UNKNOWN
        if kind is cst.Yield:
            return self.eval_yield(node, env)
        return UNKNOWN

    def eval_yield(self, node: cst.Yield, env: Env) -> Any:
        """`yield` in a @contextmanager generator entered by `with` runs the with body here."""
        try:
            hook = env.lookup(generators.YIELD_HOOK)
        except KeyError:
            return UNKNOWN
        value = self.eval(node.value, env) if isinstance(node.value, cst.BaseExpression) else None
        hook(value)
        return None  # what `with` sends back

    def lookup(self, name: str, env: Env, node: cst.Name | None = None) -> Any:
        try:
            return env.lookup(name)
        except KeyError:
            return self._not_in_scope(name, node)

    def _not_in_scope(self, name: str, node: cst.Name | None) -> Any:
        """A name no enclosing namespace binds: a constant, a builtin, a NameError, or unknown."""
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        if name in _BUILTINS:
            return Builtin(name)
        if node is not None and self.module is not None \
                and id(node) in undefined_names.undefined_name_ids(self.module.positions):
            raise _UserRaise()  # NameError: the path ends here, as at the program's own raise
        return UNKNOWN

    def eval_call(self, node: cst.Call, env: Env) -> Any:
        callee = self.eval(node.func, env)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for arg in node.args:
            value = self.eval(arg.value, env)
            if arg.star == "*":
                items = self.iterate(value)
                if items is None:
                    return self._unknown_call(callee, node)
                args.extend(items)
            elif arg.star == "**":
                if not isinstance(value, dict):
                    return self._unknown_call(callee, node)
                kwargs.update({str(k): v for k, v in value.items()})
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        if isinstance(callee, tuple) and callee and callee[0] == "__method__":
            return self.call_method(callee[1], callee[2], args, kwargs, env)
        if isinstance(callee, Builtin) and callee.name == "super":
            return builtins_model.make_super(self, args, env)  # zero-argument form reads the method's env
        return self.call_value(callee, args, kwargs, node)

    def _unknown_call(self, callee: Any, node: cst.Call) -> Any:
        builtins_model.mark_escaped([callee.receiver] if isinstance(callee, BoundMethod) else [])
        if isinstance(callee, (TFRef, UserFunction, BoundMethod)):
            self.graph.note_unmodelled_creation()
        return UNKNOWN

    def eval_fstring(self, node: cst.FormattedString, env: Env) -> Any:
        parts: list[str] = []
        partial = False
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
                continue
            value = self.eval(part.expression, env)
            spec = ""
            if part.format_spec:
                spec_parts = [p.value for p in part.format_spec if isinstance(p, cst.FormattedStringText)]
                if len(spec_parts) != len(part.format_spec):
                    return UNKNOWN
                spec = "".join(spec_parts)
                if _WIDE_FIELD.search(spec):
                    return UNKNOWN
            if not is_known(value) or not isinstance(value, (str, int, float, bool, type(None))):
                parts.append("?")
                partial = True
                continue
            try:
                if part.conversion == "r":
                    value = repr(value)
                elif part.conversion == "s":
                    value = str(value)
                parts.append(format(value, spec))
            except (ValueError, TypeError):
                return UNKNOWN
            if sum(map(len, parts)) > MAX_VALUE_LENGTH:
                return UNKNOWN
        text = "".join(parts)
        return PartialStr(text) if partial else text

    def eval_comparison(self, node: cst.Comparison, env: Env) -> Any:
        left = self.eval(node.left, env)
        result: Any = True
        for target in node.comparisons:
            right = self.eval(target.comparator, env)
            op_type = type(target.operator)  # exact node types: see eval
            op = _COMPARISONS.get(op_type)
            if op is None or self.lost(left) or self.lost(right):
                return UNKNOWN
            left_plain, right_plain = cfg.plain(left), cfg.plain(right)
            if isinstance(left, cfg.Tagged):
                self.config.on_compare(left, right, lambda v: op(v, right_plain))
            if isinstance(right, cfg.Tagged):
                self.config.on_compare(right, left, lambda v: op(left_plain, v))
            left, right = left_plain, right_plain
            if op_type in _IDENTITY_OR_EQUALITY \
                    and builtins_model.is_class_like(left) and builtins_model.is_class_like(right):
                same = builtins_model.same_class(left, right)
                outcome = same if op_type is cst.Is or op_type is cst.Equal else not same
            elif (op_type is cst.Is or op_type is cst.IsNot) and (left is None or right is None):
                if left is UNKNOWN or right is UNKNOWN:
                    return UNKNOWN
                outcome = op(left, right)
            elif (op_type is cst.In or op_type is cst.NotIn) and isinstance(right, dict) \
                    and _primitive(left) and all(_primitive(key) for key in right):
                # A dict's membership reads its keys only: a cache of variables (`if key in CACHE:
                # return CACHE[key]`) is decided however unknowable the values it holds are.
                outcome = op(left, right)
            elif _primitive(left) and _primitive(right):
                try:
                    outcome = op(left, right)
                except TypeError:
                    return UNKNOWN
            else:
                return UNKNOWN
            if not outcome:
                return False
            left = right
        return result

    def eval_subscript(self, node: cst.Subscript, env: Env) -> Any:
        value = self.eval(node.value, env)
        if self.lost(value):
            return UNKNOWN
        if len(node.slice) != 1:
            return self.tfapi.tensor_like(value)
        element = node.slice[0].slice
        if type(element) is cst.Index:
            key = self.eval(element.value, env)
            if isinstance(value, cfg.ConfigObject):
                return value.item(self.config, key)
            if isinstance(key, cfg.Tagged) and isinstance(value, dict):
                self.config.on_lookup(key, list(value))  # a registry indexed by a flag
            if isinstance(value, (list, tuple, str, dict, range)) and not isinstance(value, PartialStr) \
                    and is_known(key) and _hashable(key):
                try:
                    return value[key]
                except (KeyError, IndexError, TypeError):
                    return UNKNOWN
            return self.tfapi.subscript(value, key)
        if isinstance(element, cst.Slice):
            bounds = [self.eval(part, env) if part is not None else None
                      for part in (element.lower, element.upper, element.step)]
            if isinstance(value, (list, tuple, str, range)) and not isinstance(value, PartialStr) \
                    and all(b is None or isinstance(b, int) for b in bounds):
                return value[slice(*bounds)]
            return self.tfapi.tensor_like(value)
        return UNKNOWN

    def eval_comprehension(self, node: Any, env: Env) -> Any:
        results: list[Any] = []

        def run(clauses: list[cst.CompFor], scope: Env) -> bool:
            if not clauses:
                if isinstance(node, cst.DictComp):
                    results.append((self.eval(node.key, scope), self.eval(node.value, scope)))
                else:
                    results.append(self.eval(node.elt, scope))
                return True
            clause = clauses[0]
            items = self.iterate(self.eval(clause.iter, scope))
            if items is None or len(items) > MAX_LOOP_ITERATIONS:
                return False
            for item in items:
                inner = Env(scope)
                self.assign(clause.target, item, inner)
                keep = True
                for condition in clause.ifs:
                    truth = self.truth(self.eval(condition.test, inner))
                    if truth is None:
                        return False
                    keep = keep and truth
                if keep and not run(clauses[1:], inner):
                    return False
            return True

        clauses = []
        clause = node.for_in
        while clause is not None:
            clauses.append(clause)
            clause = clause.inner_for_in
        if not run(clauses, Env(env)):
            return UNKNOWN
        if isinstance(node, cst.SetComp):
            return _known_set(results)
        if isinstance(node, cst.DictComp):
            if not all(is_known(key) and _hashable(key) for key, _ in results):
                return UNKNOWN
            return dict(results)
        return results

    # ------------------------------------------------------------------ operations
    def truth(self, value: Any) -> bool | None:
        if isinstance(value, cfg.Tagged):
            self.config.on_truth(value)  # `if FLAGS.is_train:` decides on a configuration value
            return bool(cfg.plain(value))
        if isinstance(value, cfg.ConfigObject):
            return True
        if value is UNKNOWN or isinstance(value, PartialStr) or self.lost(value):
            return None
        if isinstance(value, _PRIMITIVES):
            return bool(value)
        if isinstance(value, (UserFunction, UserClass, Instance, BoundMethod, TFRef, Builtin)):
            return True
        return self.tfapi.truth(value)

    def binop(self, op_name: str, left: Any, right: Any) -> Any:
        op_name = op_name.replace("Assign", "")
        op = _BINOPS_BY_NAME.get(op_name)
        if op is None or _too_large(op_name, left, right):
            return UNKNOWN
        if op_name == "Modulo" and isinstance(left, str):
            return _percent_format(left, right)
        if op_name == "Add" and (isinstance(left, str) or isinstance(right, str)):
            if isinstance(left, str) and isinstance(right, str):
                result = left + right
                return PartialStr(result) if isinstance(left, PartialStr) or isinstance(right, PartialStr) else result
            if isinstance(left, str) and right is UNKNOWN or isinstance(right, str) and left is UNKNOWN:
                return PartialStr((left if isinstance(left, str) else "?") + (right if isinstance(right, str) else "?"))
            return UNKNOWN
        if op_name == "Multiply" and isinstance(left, (list, tuple)) and isinstance(right, int) \
                and not isinstance(right, bool) and len(left) * max(right, 0) <= MAX_LOOP_ITERATIONS:
            return left * right
        if _primitive(left) and _primitive(right):
            try:
                result = op(left, right)
            except Exception:  # noqa: BLE001 - e.g. ZeroDivisionError in the analysed program
                return UNKNOWN
            if isinstance(result, (str, tuple, list)) and len(result) > MAX_VALUE_LENGTH:
                return UNKNOWN
            return result
        return self.tfapi.tensor_binop(left, right)

    def iterate(self, value: Any) -> list[Any] | None:
        if isinstance(value, PartialStr) or self.lost(value):
            return None
        if isinstance(value, (list, tuple, str)):
            return list(value)
        if isinstance(value, range):
            return list(value) if len(value) <= MAX_LOOP_ITERATIONS * 4 else None
        if isinstance(value, dict):
            return list(value.keys())
        if isinstance(value, (set, frozenset)):
            # Iteration order of a set of strings changes from run to run (hash randomisation).
            return list(value) if all(isinstance(item, int) for item in value) else None
        return self.tfapi.iterate(value)

    def getattr(self, owner: Any, name: str, node: cst.CSTNode) -> Any:
        kind = type(owner)  # neither class has subclasses: the two commonest owners skip the chain
        if kind is Instance:
            return self._instance_attr(owner, name, node)
        if kind is TFRef:
            if owner.path in cfg.FLAGS_PATHS:
                return self.config.flag(name)  # FLAGS.dataset: the flag's value in this run
            return self.tfapi.resolve_path(self.tfapi.canonical(f"{owner.path}.{name}"))
        if isinstance(owner, cfg.ConfigObject):
            return owner.attr(self.config, name)
        if isinstance(owner, builtins_model.SuperValue):
            return builtins_model.super_getattr(self, owner, name, node)
        if isinstance(owner, device_functions.AbstractOp):
            return owner.attribute(name)
        if isinstance(owner, ModuleValue):
            note_module_read(owner.env)
            return owner.env.vars.get(name, UNKNOWN)
        if isinstance(owner, (UserClass, Builtin)) and name == "__name__" and "__name__" not in getattr(owner, "attrs", {}):
            return owner.name
        if isinstance(owner, UserClass):
            attr = owner.lookup(name)
            if isinstance(attr, UserFunction) and attr.is_classmethod:
                return BoundMethod(attr, owner)
            return attr
        if isinstance(owner, tuple) and name in shapes.PROPERTIES:
            return shapes.shape_property(owner, name)  # a tuple is how a TensorShape is held
        if isinstance(owner, (str, list, dict, tuple, set, frozenset)) and not isinstance(owner, PartialStr):
            return ("__method__", owner, name)
        return self.tfapi.getattr_value(self, owner, name, node)

    def _instance_attr(self, owner: Instance, name: str, node: cst.CSTNode) -> Any:
        """`owner.name` for an instance of a user class: its attribute, else its class's (methods bound)."""
        if self.lost(owner.attrs) and not isinstance(owner.cls.lookup(name), UserFunction):
            return UNKNOWN  # `self.__dict__[key] = value` at an unknown key: any attribute may have changed
        if name in owner.attrs:
            return owner.attrs[name]
        if name == "__class__":
            return owner.cls
        if name == "__dict__":
            # Writes through it are attribute writes (`config.__dict__[key] = value` in a
            # from_dict loop); one at an unknown key makes the attributes unknown (above).
            owner.escaped = True
            return owner.attrs
        attr = owner.cls.lookup(name)
        if isinstance(attr, UserFunction):
            if attr.is_static:
                return attr
            if attr.is_property:
                return self.call_user(attr, [], {}, node, receiver=owner)
            return BoundMethod(attr, owner)
        if attr is UNKNOWN and user_layers.is_layer_instance(owner):
            return user_layers.base_attribute(owner, name)
        return attr

    def call_method(self, owner: Any, name: str, args: list[Any], kwargs: dict[str, Any],
                    env: Env | None = None) -> Any:
        """Methods of known Python values: strings, lists, dicts, sets."""
        if self.lost(owner):
            return UNKNOWN
        mutation = name in _MUTATIONS.get(type(owner), ())
        if mutation and self.graph.speculative:
            # A mutation that may not happen: the contents are no longer known (never "empty").
            self.forget(owner, env)
            return UNKNOWN
        if not mutation:
            return self._call_method(owner, name, args, kwargs)
        snapshot = _copy_contents(owner)
        failed = object()
        result = self._call_method(owner, name, args, kwargs, failed)
        if result is failed:
            # The analysis could not compute it (unknown arguments, or Python raised): unknown.
            replace_contents(owner, snapshot)
            self.forget(owner, env)
            return UNKNOWN
        return result

    def _call_method(self, owner: Any, name: str, args: list[Any], kwargs: dict[str, Any],
                     failed: Any = UNKNOWN) -> Any:
        if isinstance(owner, list) and name in _MUTATIONS[list]:
            if name == "extend":
                items = self.iterate(args[0]) if args else None
                if items is None:
                    return failed
                if len(owner) + len(items) > MAX_VALUE_LENGTH:
                    # `l.extend(l)` in a loop doubles it; the list cannot be made unknown in place
                    # (clearing it would make it known and empty), so this run ends as at the budget.
                    raise self._out_of_budget()
                owner.extend(items)
                return None
            if name in ("insert", "pop", "remove") and not all(is_known(a) for a in args) \
                    or name == "sort" and kwargs:
                return failed
            try:
                return getattr(owner, name)(*args, **kwargs)
            except Exception:  # noqa: BLE001
                return failed
        if isinstance(owner, dict) and name in ("get", "items", "keys", "values", "copy") + _MUTATIONS[dict]:
            if name in ("get", "setdefault", "pop") and args and not (is_known(args[0]) and _hashable(args[0])):
                return failed
            if name == "update" and args and not isinstance(args[0], (dict, list, tuple)):
                return failed
            try:
                result = getattr(owner, name)(*args, **kwargs)
            except Exception:  # noqa: BLE001
                return failed
            if name in ("items", "keys", "values"):
                return list(result)
            return result
        if isinstance(owner, str) and name in _SAFE_STR_METHODS:
            if name == "format":
                return _str_format(owner, args, kwargs)
            if not all(_primitive(v) for v in list(args) + list(kwargs.values())):
                return UNKNOWN if name not in ("join",) else _partial_join(owner, args)
            if _str_method_too_large(owner, name, args):
                return UNKNOWN
            try:
                return getattr(owner, name)(*args, **kwargs)
            except Exception:  # noqa: BLE001
                return UNKNOWN
        if isinstance(owner, (set, frozenset)) and name in _SET_METHODS:
            if not all(is_known(v) and (_hashable(v) or isinstance(v, (list, tuple, set, frozenset, dict)))
                       for v in args):
                return failed
            try:
                return getattr(owner, name)(*args, **kwargs)
            except Exception:  # noqa: BLE001
                return failed
        if isinstance(owner, tuple) and name in shapes.METHODS:
            return shapes.call_shape_method(owner, name, args)  # TensorShape.as_list() etc.
        if isinstance(owner, (list, tuple)) and name in ("index", "count"):
            return UNKNOWN
        return UNKNOWN

    def call_builtin(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        known = all(is_known(v) and not self.lost(v) for v in args) and all(is_known(v) for v in kwargs.values())
        if name == "print":
            return None
        if name in ("exec", "eval", "__import__"):
            self.graph.note_unmodelled_creation()  # code the analysis cannot see may build the graph
            return UNKNOWN
        if name == " noop":
            return None
        if name == "isinstance" and len(args) == 2:
            return builtins_model.isinstance_(args[0], args[1])
        if name == "issubclass" and len(args) == 2:
            return builtins_model.issubclass_(args[0], args[1])
        if name == "type" and len(args) == 1:
            return builtins_model.type_of(args[0])
        if name == "hasattr" and len(args) == 2:
            return builtins_model.has_attribute(self, args[0], args[1])
        if name == "getattr":
            return builtins_model.get_attribute(self, args, None)
        if name == "callable" and len(args) == 1:
            return builtins_model.callable_(args[0])
        if name in ("isinstance", "issubclass", "hasattr", "callable", "id", "type", "super", "vars", "open",
                    "input", "iter", "next", "object"):
            return UNKNOWN
        if name == "range":
            for bound in args:
                if isinstance(bound, cfg.Tagged):
                    self.config.on_count(bound)  # a loop over a flag's count: try 1 and 2
            args = [cfg.plain(a) for a in args]
            if known and all(isinstance(a, int) for a in args):
                try:
                    return range(*args)
                except (TypeError, ValueError):
                    return UNKNOWN
            return UNKNOWN
        if name in ("len",):
            if args and isinstance(args[0], (list, tuple, dict, str, range, set, frozenset)) \
                    and not isinstance(args[0], PartialStr) and not self.lost(args[0]):
                return len(args[0])
            return self.tfapi.length(args[0]) if args else UNKNOWN
        if name in ("enumerate", "zip", "reversed", "sorted", "list", "tuple", "dict", "set", "frozenset", "sum",
                    "min", "max", "any", "all"):
            # Whatever their iteration order, these give the same result for a set.
            unordered = name in ("sorted", "set", "frozenset", "sum", "min", "max", "any", "all")
            iterables = [None if self.lost(a) else list(a) if unordered and isinstance(a, (set, frozenset))
                         else self.iterate(a) if not isinstance(a, dict) or name != "dict" else a for a in args]
            if any(i is None for i in iterables) or not known and name not in ("enumerate", "zip", "list", "tuple", "reversed"):
                return UNKNOWN
            try:
                if name == "enumerate":
                    start = kwargs.get("start", args[1] if len(args) > 1 else 0)
                    return list(enumerate(iterables[0], start))  # type: ignore[arg-type]
                if name == "zip":
                    return list(zip(*iterables))  # type: ignore[misc]
                if name == "reversed":
                    return list(reversed(iterables[0]))  # type: ignore[arg-type]
                if name == "list":
                    return list(iterables[0]) if iterables else []
                if name == "tuple":
                    return tuple(iterables[0]) if iterables else ()
                if name in ("set", "frozenset"):
                    built = _known_set(iterables[0]) if iterables else set()
                    return frozenset(built) if name == "frozenset" and built is not UNKNOWN else built
                if name == "dict":
                    return dict(args[0] if args else {}, **kwargs)
                return {"sorted": sorted, "sum": sum, "min": min, "max": max, "any": any, "all": all}[name](
                    iterables[0] if len(iterables) == 1 else args)
            except Exception:  # noqa: BLE001
                return UNKNOWN
        if name in ("int", "float", "str", "bool", "abs", "round", "repr", "divmod", "pow", "format", "hex", "chr", "ord"):
            if not known or not all(_primitive(a) for a in args):
                if name == "str" and args and isinstance(args[0], str):
                    return args[0]
                return UNKNOWN
            if name == "pow" and len(args) == 2 and _too_large("Power", args[0], args[1]) \
                    or name == "format" and len(args) == 2 and isinstance(args[1], str) and _WIDE_FIELD.search(args[1]):
                return UNKNOWN
            try:
                return {"int": int, "float": float, "str": str, "bool": bool, "abs": abs, "round": round,
                        "repr": repr, "divmod": divmod, "pow": pow, "format": format, "hex": hex,
                        "chr": chr, "ord": ord}[name](*args, **kwargs)
            except Exception:  # noqa: BLE001
                return UNKNOWN
        return UNKNOWN


_BUILTINS = frozenset({
    "print", "exec", "eval", "__import__", "isinstance", "hasattr", "getattr", "callable", "id", "type",
    "super", "vars", "open", "issubclass", "object",
    "input", "iter", "next", "range", "len", "enumerate", "zip", "reversed", "sorted", "list", "tuple",
    "dict", "set", "sum", "min", "max", "any", "all", "int", "float", "str", "bool", "abs", "round",
    "repr", "divmod", "pow", "format", "hex", "chr", "ord", "frozenset",
})
_SET_METHODS = frozenset({
    "add", "discard", "remove", "update", "union", "intersection", "difference", "symmetric_difference",
    "issubset", "issuperset", "isdisjoint", "copy", "clear",
})
# Methods that change the object they are called on.
_MUTATIONS: dict[type, tuple[str, ...]] = {
    list: ("append", "extend", "insert", "pop", "reverse", "sort", "remove", "clear"),
    dict: ("update", "setdefault", "pop", "popitem", "clear"),
    set: ("add", "discard", "remove", "update", "clear"),
}
_SAFE_STR_METHODS = frozenset({
    "format", "join", "split", "rsplit", "replace", "lower", "upper", "strip", "rstrip", "lstrip",
    "startswith", "endswith", "title", "capitalize", "zfill", "rjust", "ljust", "count", "find",
})


class _Speculative:
    """Runs branches that may or may not execute; joins the Python environments afterwards."""

    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp
        self.outcomes: list[dict[str, Any]] = []
        self.base: dict[str, Any] | None = None
        self.env: Env | None = None
        self.left: list[bool] = []  # per branch: it ended in a return or the program's raise
        self.returned = False

    def __enter__(self) -> "_Speculative":
        self.interp.graph.speculative += 1
        return self

    def branch(self, env: Env, run: Any) -> Any:
        if self.base is None:
            self.base = dict(env.vars)
            self.env = env
        env.vars.clear()
        env.vars.update(self.base)
        result: Any = UNKNOWN
        graph = self.interp.graph
        depth = len(graph.constructs)
        left = False
        try:
            result = run(env)
        except _Return as returned:
            left = True
            self.returned = True
            if self.interp.maybe_returned:
                self.interp.maybe_returned[-1].append(returned.value)
        except _UserRaise:
            left = True
        except _Break:
            self.interp.maybe_broke += 1
        except (_Continue, ModelRaise):
            pass
        finally:
            # A branch that ended inside `with` blocks already unwound them through `finally`.
            del graph.constructs[depth:]
        self.outcomes.append(dict(env.vars))
        self.left.append(left)
        return result

    def every_branch_left(self) -> bool:
        """Every branch returned or raised, and one returned: the code after them never runs."""
        return bool(self.left) and all(self.left) and self.returned

    def __exit__(self, *exc: Any) -> None:
        self.interp.graph.speculative -= 1
        if self.env is None or self.base is None:
            return
        if not self.outcomes:  # the branch was cut short (step budget): restore what we had
            self.env.vars.clear()
            self.env.vars.update(self.base)
            return
        joined: dict[str, Any] = {}
        base = self.base
        names = set(base)
        for outcome in self.outcomes:
            names |= set(outcome)
        # A name keeps its value when every outcome agrees (one outcome: with the value before);
        # spelt out rather than with lists per name: module-level joins see every global.
        first_outcome, others = self.outcomes[0], self.outcomes[1:]
        for name in names:
            before = base.get(name, UNKNOWN)
            first = first_outcome.get(name, before)
            if not others:
                joined[name] = first if first is before or _same(first, before) else UNKNOWN
                continue
            for outcome in others:
                value = outcome.get(name, before)
                if value is not first and not _same(first, value):
                    joined[name] = UNKNOWN
                    break
            else:
                joined[name] = first
        self.env.vars.clear()
        self.env.vars.update(joined)


# Library modules that are model code, not API the analysis models: tf_slim's nets (alexnet, vgg,
# ...) build their layers through the slim API, which is modelled.  Where the project being checked
# holds their source (tf-slim's own repository, or a vendored copy), that source is run.
_SOURCE_LIBRARIES = ("tf_slim.nets",)


def _follows_source(module: str) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in _SOURCE_LIBRARIES)


_TEST_CASE_PATHS = ("tf.test.TestCase", "tf.absl.testing.absltest.TestCase", "tf.absl.testing.parameterized.TestCase")


def _is_tf_test_case(cls: UserClass, depth: int = 0) -> bool:
    for base in cls.bases:
        if isinstance(base, TFRef) and base.path in _TEST_CASE_PATHS:
            return True
        if isinstance(base, UserClass) and depth < 16 and _is_tf_test_case(base, depth + 1):
            return True
    return False


def _class_attrs(cls: UserClass, depth: int = 0) -> list[str]:
    """Names defined by the class and its user-defined bases (inherited test methods run too)."""
    names = list(cls.attrs)
    for base in cls.bases:
        if isinstance(base, UserClass) and depth < 16:
            names.extend(n for n in _class_attrs(base, depth + 1) if n not in names)
    return names


def _uses_name(body: cst.CSTNode, name: str) -> bool:
    """Whether `name` is read in body, or could be passed on through `**kwargs` / `name=`."""
    for node in walk(body):
        if isinstance(node, cst.Name) and node.value == name:
            return True
        if isinstance(node, cst.Arg) and (node.star == "**" or (node.keyword is not None and node.keyword.value == name)):
            return True
    return False


def _is_stub_body(node: cst.FunctionDef) -> bool:
    """An abstract or placeholder method (`pass`, `...`, docstring, raise NotImplementedError)."""
    if isinstance(node.body, cst.SimpleStatementSuite):
        smalls = list(node.body.body)
    else:
        smalls = []
        for statement in node.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                return False
            smalls.extend(statement.body)
    for small in smalls:
        if isinstance(small, (cst.Pass, cst.Raise)):
            continue
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.Ellipsis,
                                                                      cst.ConcatenatedString)):
            continue
        return False
    return True


def _copy_contents(container: Any) -> Any:
    return container.copy()


def _known_set(items: list[Any]) -> Any:
    """A Python set of known, hashable items, else UNKNOWN."""
    if not all(is_known(item) and _hashable(item) for item in items):
        return UNKNOWN
    return set(items)


def _joined(values: list[Any]) -> Any:
    """One value standing for all of them: itself when they are the same, else unknown."""
    first = values[0]
    return first if all(_same(first, value) for value in values[1:]) else UNKNOWN


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is type(b) and isinstance(a, (str, int, float, bool, type(None))) and not isinstance(a, PartialStr):
        return bool(a == b)
    return False


def _primitive(value: Any) -> bool:
    if type(value) in _PRIMITIVE_TYPES:
        return True  # exact types first: most calls are here, past the chain of isinstance below
    if isinstance(value, PartialStr):
        return False
    if isinstance(value, (list, tuple)):
        return all(_primitive(v) for v in value)
    if isinstance(value, dict):
        return all(_primitive(k) and _primitive(v) for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        return all(_primitive(v) for v in value)
    return isinstance(value, (str, int, float, bool, type(None), range))


_PRIMITIVE_TYPES = frozenset({str, int, float, bool, type(None), range})


def _too_large(op_name: str, left: Any, right: Any) -> bool:
    """Would `left <op> right` build a value over MAX_VALUE_LENGTH / MAX_INT_BITS?  (Asked before
    computing it: afterwards the memory or the time is already spent.)"""
    sized = (str, list, tuple)
    if op_name == "Add" and isinstance(left, sized) and isinstance(right, sized):
        return len(left) + len(right) > MAX_VALUE_LENGTH
    if op_name == "Multiply":
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, sized) and isinstance(count, int):
                return len(sequence) * max(count, 0) > MAX_VALUE_LENGTH
        if isinstance(left, int) and isinstance(right, int):
            return left.bit_length() + right.bit_length() > MAX_INT_BITS
    if op_name == "Power" and isinstance(left, int) and isinstance(right, int):
        return right > 0 and abs(left) > 1 and right * left.bit_length() > MAX_INT_BITS
    if op_name == "LeftShift" and isinstance(left, int) and isinstance(right, int):
        return left != 0 and right + left.bit_length() > MAX_INT_BITS
    if op_name == "Modulo" and isinstance(left, str):
        return any(_WIDE_FIELD.search(spec.group(0)) for spec in _PERCENT_SPEC.finditer(left))
    return False


def _str_method_too_large(owner: str, name: str, args: list[Any]) -> bool:
    """Would this str method build a string over MAX_VALUE_LENGTH?"""
    if name in ("zfill", "rjust", "ljust") and args and isinstance(args[0], int):
        return args[0] > MAX_VALUE_LENGTH
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        occurrences = owner.count(args[0]) if args[0] else len(owner) + 1
        return len(owner) + occurrences * max(len(args[1]) - len(args[0]), 0) > MAX_VALUE_LENGTH
    if name == "join" and args and isinstance(args[0], (list, tuple)):
        pieces = args[0]
        return sum(len(piece) for piece in pieces if isinstance(piece, str)) + len(owner) * len(pieces) > MAX_VALUE_LENGTH
    return False


def _format_too_large(template: str, values: list[Any]) -> bool:
    """Would `template.format(*values)` build a string over MAX_VALUE_LENGTH (a wide field, or
    many fields repeating a long argument)?"""
    try:
        specs = [spec or "" for _, field_name, spec, _ in string.Formatter().parse(template) if field_name is not None]
    except ValueError:
        return False
    if any(_WIDE_FIELD.search(spec) for spec in specs):
        return True
    longest = max((len(str(value)) for value in values if isinstance(value, (str, int, float))), default=0)
    return len(template) + len(specs) * longest > MAX_VALUE_LENGTH


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


@functools.lru_cache(maxsize=4096)  # the same literals are evaluated at every run of their line
def _string_literal(text: str) -> Any:
    """A string literal's value; plain ones without escapes directly (LibCST's evaluated_value
    runs ast.literal_eval, a full parse per literal), the rest through literal_eval."""
    prefix = text[:len(text) - len(text.lstrip("rRuUbBfF"))]
    body = text[len(prefix):]
    if prefix.lower() in ("", "u") and "\\" not in body:
        quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
        return body[len(quote):-len(quote)]
    try:
        value = pyparse.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return UNKNOWN
    return value if isinstance(value, str) else UNKNOWN


@functools.lru_cache(maxsize=4096)  # as _string_literal
def _int_literal(text: str) -> Any:
    try:
        return int(text.replace("_", ""), 0)
    except ValueError:
        return UNKNOWN


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


def _dotted(node: Any) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa%]")


def _percent_format(template: str, args: Any) -> Any:
    values = args if isinstance(args, tuple) else (args,)
    if isinstance(args, dict):
        if all(_primitive(v) for v in args.values()) and not isinstance(template, PartialStr):
            try:
                return template % args
            except (TypeError, ValueError, KeyError):
                return UNKNOWN
        return UNKNOWN
    if all(_primitive(v) for v in values) and not isinstance(template, PartialStr):
        try:
            return template % values
        except (TypeError, ValueError, KeyError):
            return UNKNOWN
    # Replace unknown arguments by "?" so that names stay partly known ("tower_?").
    if isinstance(template, PartialStr):
        return UNKNOWN
    pieces: list[str] = []
    position = 0
    remaining = list(values)
    for match in _PERCENT_SPEC.finditer(template):
        pieces.append(template[position:match.start()])
        position = match.end()
        spec = match.group(0)
        if spec == "%%":
            pieces.append("%")
            continue
        if "*" in spec or not remaining:
            return UNKNOWN
        value = remaining.pop(0)
        if not _primitive(value):
            pieces.append("?")
            continue
        try:
            pieces.append(spec % (value,))
        except (TypeError, ValueError):
            return UNKNOWN
    if remaining:
        return UNKNOWN
    pieces.append(template[position:])
    return PartialStr("".join(pieces))


class _Marker:
    """Stands for an unknown argument of str.format: renders as "?" whatever the format spec."""

    def __str__(self) -> str:
        return "?"

    def __format__(self, spec: str) -> str:
        return "?"


def _str_format(template: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if isinstance(template, PartialStr) or _format_too_large(template, [*args, *kwargs.values()]):
        return UNKNOWN
    partial = False
    safe_args = []
    for value in args:
        if _primitive(value):
            safe_args.append(value)
        else:
            safe_args.append(_Marker())
            partial = True
    safe_kwargs = {}
    for key, value in kwargs.items():
        if _primitive(value):
            safe_kwargs[key] = value
        else:
            safe_kwargs[key] = _Marker()
            partial = True
    try:
        result = template.format(*safe_args, **safe_kwargs)
    except Exception:  # noqa: BLE001
        return UNKNOWN
    return PartialStr(result) if partial else result


def _partial_join(separator: str, args: list[Any]) -> Any:
    if len(args) != 1 or not isinstance(args[0], (list, tuple)):
        return UNKNOWN
    parts = [p if isinstance(p, str) else "?" for p in args[0]]
    if sum(map(len, parts)) + len(separator) * len(parts) > MAX_VALUE_LENGTH:
        return UNKNOWN
    return PartialStr(separator.join(parts))


def parse_module(source: str, path: str) -> project.Parsed:
    try:
        return project.parse_text(source)
    except cst.ParserSyntaxError as error:
        # Python's parser accepted the text (parse_text asks it first), LibCST's did not.
        raise ParseFailure(f"LibCST cannot parse this file (Python can): {error.message}", error.raw_line,
                           error.raw_column + 1) from None
    except NestingTooDeep as error:
        raise ParseFailure(error.message, error.line, 1 if error.line else 0) from None
    except SyntaxError as python_error:
        # Python's own message and position ("Missing parentheses in call to 'print'").
        raise ParseFailure(f"SyntaxError: {python_error.msg}", python_error.lineno or 0,
                           python_error.offset or 0) from None
    except (RecursionError, MemoryError):
        raise ParseFailure("the file is too deeply nested to parse") from None
    except ValueError as error:  # e.g. "source code string cannot contain null bytes"
        raise ParseFailure(str(error)) from None


def interpret_module(source: str, path: str) -> Trace:
    return interpret_parsed(parse_module(source, path), path)


def interpret_parsed(parsed: project.Parsed, path: str, configuration: cfg.ConfigState | None = None,
                     memo: replay.PhaseMemo | None = None) -> Trace:
    """One run of the module, with the configuration given (the defaults when None); runs of one
    module share `memo`."""
    interp = Interpreter(path, configuration)
    interp.phase_memo = memo
    interp.run_module(parsed.module, parsed.positions)
    trace = Trace(path)
    for index, graph in enumerate(interp.graphs):
        for record in graph.records:
            record.graph = index
        trace.variables.extend(graph.records)
        trace.events.extend(graph.events)
        trace.complete = trace.complete and graph.complete
    trace.events.extend(interp.extra_events)
    trace.uses_tensorflow = interp.tensorflow_seen
    trace.final_graph = interp.final_graph
    trace.steps = interp.total_steps
    trace.stopped_by_program = interp.stopped_by_program
    trace.budget_stops = list(interp.budget_stops)
    interp.tfapi.tfapi_devices.add_device_facts(interp, trace)  # setters and placements (TFS4xx)
    return trace
