"""make_template, optimizers (slots and non-slot variables), the global step and moving averages.

Handlers register into `tfapi.HANDLERS`; slot names come from `scopelint.model.optimizers`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis.tfapi import (
    _callee_path,
    _variable_value,
    bind,
    canonical,
    deps_of,
    handles,
    lib_config,
)
from scopelint.analysis.values import (
    UNKNOWN,
    EMAValue,
    EstimatorValue,
    OptimizerValue,
    PartitionedValue,
    TemplateValue,
    Tensor,
    VariableValue,
)
from scopelint.model import optimizers as optlib
from scopelint.model.graph import GraphModel, Initializer, ModelRaise, Where
from scopelint.model.scopes import Reuse
from scopelint.trace import UNKNOWN_PART, VariableRecord

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

# ---------------------------------------------------------------------------------------------
# make_template


@handles("tf.make_template")
def _make_template(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("name_", "func_", "create_scope_now_", "unique_name_", "custom_getter_"), args, kwargs)
    extra = {k: v for k, v in kwargs.items() if k not in ("name_", "func_", "create_scope_now_", "unique_name_",
                                                         "custom_getter_")}
    name = bound.get("name_")
    template = TemplateValue(
        name if isinstance(name, str) else UNKNOWN_PART,
        bound.get("func_"),
        bound.get("unique_name_") if isinstance(bound.get("unique_name_"), str) else None,
        bound.get("create_scope_now_") is True,
        extra,
        interp.site(node),
    )
    if template.create_scope_now:
        graph = interp.graph
        where = interp.where(node)
        if template.unique_name:
            frame = graph.enter_variable_scope(template.unique_name, where, auxiliary_name_scope=False)
        else:
            relative, certain = graph.counts.unique_default(graph.var_scope.name, template.name)
            frame = graph.enter_variable_scope(relative if certain else UNKNOWN_PART, where,
                                               auxiliary_name_scope=False)
        template.scope = frame.scope
        graph.exit_variable_scope(frame)
    return template


def call_template(interp: "Interpreter", template: TemplateValue, args: list[Any], kwargs: dict[str, Any],
                  node: cst.CSTNode) -> Any:
    graph = interp.graph
    where = interp.where(node)
    call_kwargs = dict(template.kwargs)
    call_kwargs.update(kwargs)
    first = template.calls == 0
    template.calls += 1
    if template.scope is None:
        if graph.note_site("template first call", template.site):
            graph._event(
                "template_per_call",
                f"{_template_call(template.name)} runs again on each call of the enclosing code: every "
                "template gets its own variables. Create the template once and call it repeatedly",
                Where(template.site, where.chain),
            )
        frame = graph.enter_variable_scope(template.unique_name, where,
                                           default_name=None if template.unique_name else template.name)
        template.scope = frame.scope
    else:
        frame = graph.enter_variable_scope(template.scope, where, reuse=Reuse.FALSE if first else Reuse.TRUE,
                                           auxiliary_name_scope=not first)
    try:
        return interp.call_value(template.func, list(args), call_kwargs, node)
    finally:
        graph.exit_variable_scope(frame)


# ---------------------------------------------------------------------------------------------
# Optimizers, global step, moving averages

_OPTIMIZERS = tuple(name for name in optlib.OPTIMIZER_POSITIONAL if name.endswith("Optimizer"))


@handles(*[f"tf.train.{name}" for name in _OPTIMIZERS])
def _optimizer(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    class_name = canonical(_callee_path(node, interp)).split(".")[-1]
    config = dict(zip(optlib.OPTIMIZER_POSITIONAL.get(class_name, ()), args))
    config.update(kwargs)
    return OptimizerValue(class_name, config, interp.site(node))


_SYNC_REPLICAS = ("opt", "replicas_to_aggregate", "total_num_replicas", "variable_averages",
                  "variables_to_average", "use_locking", "name")


@handles("tf.train.SyncReplicasOptimizer")
def _sync_replicas_optimizer(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    """A wrapper of another optimizer (TF 2.21 sync_replicas_optimizer.py): its apply creates the
    local `sync_rep_local_step`, then applies the wrapped optimizer (whose slots it makes)."""
    bound = bind(_SYNC_REPLICAS, args, kwargs)
    config = {key: bound.get(key) for key in _SYNC_REPLICAS}
    if not isinstance(config["opt"], OptimizerValue):
        interp.graph.note_unmodelled_creation()
        return UNKNOWN
    return OptimizerValue("SyncReplicasOptimizer", config, interp.site(node))


def _sync_replicas_method(interp: "Interpreter", optimizer: OptimizerValue, name: str, args: list[Any],
                          kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    inner = optimizer.config["opt"]
    if name in ("minimize", "apply_gradients"):
        signature = ("loss", "global_step") if name == "minimize" else ("grads_and_vars", "global_step")
        global_step = bind(signature, args, kwargs).get("global_step")
        if global_step is not None:  # None: TensorFlow raises "Global step is required" (not modelled)
            _sync_replicas_local_step(interp, global_step, node)
    if name in ("minimize", "apply_gradients", "compute_gradients"):
        return optimizer_method(interp, inner, name, args, kwargs, node)
    return UNKNOWN  # make_session_run_hook, get_init_tokens_op, ...: no variables


def _sync_replicas_local_step(interp: "Interpreter", global_step: Any, node: cst.CSTNode) -> None:
    """`sync_rep_local_step`: a local variable of the global step's dtype, colocated with a no-op
    made where apply_gradients runs (so on the worker under a replica_device_setter)."""
    graph = interp.graph
    dtype = global_step.record.dtype if isinstance(global_step, VariableValue) else None
    anchor_device = graph.device_for("NoOp")
    graph.create_variable("sync_rep_local_step", interp.where(node), shape=(), dtype=dtype, trainable=False,
                          collections=("local_variables",), colocate_with=anchor_device)


def _trainable_variables(graph: GraphModel) -> list[VariableRecord]:
    return [record for record in graph.records if record.trainable and "trainable_variables" in record.collections]


def optimizer_method(interp: "Interpreter", optimizer: OptimizerValue, name: str, args: list[Any],
                     kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    if optimizer.class_name == "SyncReplicasOptimizer":
        return _sync_replicas_method(interp, optimizer, name, args, kwargs, node)
    graph = interp.graph
    if name == "compute_gradients":
        bound = bind(("loss", "var_list"), args, kwargs)
        var_list = bound.get("var_list")
        records = _records_of(var_list) if var_list is not None else _trainable_variables(graph)
        if records is None:
            return UNKNOWN
        deps = deps_of(bound.get("loss"))
        return [(Tensor(None, None, deps if deps is None or id(r) in deps else frozenset()), VariableValue(r))
                for r in records]
    if name == "minimize":
        bound = bind(("loss", "global_step", "var_list"), args, kwargs)
        var_list = bound.get("var_list")
        records = _records_of(var_list) if var_list is not None else list(_trainable_variables(graph))
        loss_deps = deps_of(bound.get("loss"))
        if records is None:
            graph.note_unmodelled_creation()
            return Tensor(None, None, None)
        if loss_deps is None or not graph.complete and var_list is None:
            # Which variables get slots is not proven (unknown loss, or trainable variables the
            # analysis may not see): the known ones' slots are created, as uncertain.
            with _speculative(graph):
                create_slots(interp, optimizer, records, node)
        else:
            create_slots(interp, optimizer, [r for r in records if id(r) in loss_deps], node)
        return Tensor(None, None, None)
    if name == "apply_gradients":
        bound = bind(("grads_and_vars", "global_step"), args, kwargs)
        pairs = bound.get("grads_and_vars")
        if not isinstance(pairs, (list, tuple)):
            graph.note_unmodelled_creation()
            return Tensor(None, None, None)
        records: list[VariableRecord] = []
        unknown = False
        for pair in pairs:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[1], VariableValue)):
                graph.note_unmodelled_creation()
                return Tensor(None, None, None)
            grad = pair[0]
            if grad is None:
                continue
            if isinstance(grad, Tensor) and grad.deps == frozenset():
                continue
            if not isinstance(grad, Tensor) or grad.deps is None:
                unknown = True
            records.append(pair[1].record)
        if unknown:
            with _speculative(graph):
                create_slots(interp, optimizer, records, node)
        else:
            create_slots(interp, optimizer, records, node)
        return Tensor(None, None, None)
    return UNKNOWN


class _speculative:
    def __init__(self, graph: GraphModel) -> None:
        self.graph = graph

    def __enter__(self) -> None:
        self.graph.speculative += 1

    def __exit__(self, *exc: Any) -> None:
        self.graph.speculative -= 1


def _records_of(value: Any) -> list[VariableRecord] | None:
    if isinstance(value, (list, tuple)):
        records = []
        for item in value:
            if isinstance(item, VariableValue):
                records.append(item.record)
            elif isinstance(item, PartitionedValue):
                records.extend(item.parts)
            else:
                return None
        return records
    return None


def create_slots(interp: "Interpreter", optimizer: OptimizerValue, records: list[VariableRecord],
                 node: cst.CSTNode) -> None:
    """The optimizer's first apply: non-slot variables once per graph, then each primary's slots."""
    graph = interp.graph
    where = interp.where(node)
    table = optlib.optimizer_slots(optimizer.class_name, lib_config(optimizer.config))
    if table is None:
        graph.note_unmodelled_creation()
        return
    if not records:
        return
    if table.non_slot and id(graph) not in optimizer.non_slot_done:
        optimizer.non_slot_done.add(id(graph))
        if table.non_slot_scope is not None:
            graph.note_unmodelled_creation()  # store variables in the optimizer's own scope: not modelled
        else:
            first = min(records, key=lambda r: r.name)
            for spec in table.non_slot:
                graph.create_variable(spec.name, where, shape=spec.shape, dtype=spec.dtype or first.dtype,
                                      trainable=False, kind="optimizer", colocate_with=first.device)
    for record in records:
        # Slots are keyed by their position: Adam's m and v share the scope name "Adam".
        for position, slot in enumerate(table.slot_scope_names):
            key = (id(graph), record.name, position)
            if key in optimizer.slots_done:
                continue
            optimizer.slots_done.add(key)
            create_slot(graph, record, slot, where, "slot")


def create_slot(graph: GraphModel, primary: VariableRecord, slot_name: str, where: Where, kind: str) -> Any:
    """`slot_creator.create_slot`: a default-named scope `<primary op name>/<slot>`, then
    get_variable("") in it, so the store key ends in "/" (see optimizers in the model tables)."""
    frame = graph.enter_variable_scope(None, where, default_name=f"{primary.name}/{slot_name}")
    try:
        scope = frame.scope
        saved = scope.partitioner
        scope.partitioner = None
        return graph.get_variable("", where, shape=None, shape_given=False, dtype=primary.dtype,
                                  initializer=Initializer(False, primary.shape, primary.dtype),
                                  trainable=False, kind=kind, colocate_with=primary.device)
    finally:
        scope.partitioner = saved
        graph.exit_variable_scope(frame)


@handles("tf.train.get_or_create_global_step", "tf.train.create_global_step")
def _global_step(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    existing = graph.store.get("global_step")
    path = _callee_path(node, interp)
    if existing is not None and path.endswith("get_or_create_global_step"):
        return VariableValue(existing.record)
    frame = graph.enter_name_scope(None, interp.where(node), user=False)
    try:
        # create_global_step: get_variable in the current var scope, with the name scope cleared.
        result = graph.get_variable("global_step", interp.where(node), shape=(), shape_given=True, dtype="int64",
                                    initializer=Initializer(True), trainable=False,
                                    collections=("variables", "global_step"), kind="get_variable")
    finally:
        graph.exit_name_scope(frame, user=False)
    return _variable_value(result)


@handles("tf.train.ExponentialMovingAverage")
def _ema(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("decay", "num_updates", "zero_debias", "name"), args, kwargs)
    name = bound.get("name", "ExponentialMovingAverage")
    return EMAValue(bound.get("decay"), name if isinstance(name, str) else UNKNOWN_PART, interp.site(node))


def ema_apply(interp: "Interpreter", ema: EMAValue, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    var_list = args[0] if args else kwargs.get("var_list")
    records = _records_of(var_list) if var_list is not None else _trainable_variables(graph)
    if records is None:
        graph.note_unmodelled_creation()
        return Tensor(None, None, None)
    where = interp.where(node)
    for record in records:
        create_slot(graph, record, ema.name, where, "ema")
        # MOVING_AVERAGE_VARIABLES lists the averaged variable itself, not its average.
        if "moving_average_variables" not in record.collections:
            record.collections = tuple(record.collections) + ("moving_average_variables",)
    return Tensor(None, None, None)


@handles("tf.global_variables", "tf.trainable_variables", "tf.all_variables", "tf.local_variables")
def _collections(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    path = _callee_path(node, interp)
    if args or kwargs or not graph.complete or graph.speculative:
        return UNKNOWN
    leaf = path.split(".")[-1]
    wanted = {"global_variables": "variables", "all_variables": "variables",
              "trainable_variables": "trainable_variables", "local_variables": "local_variables"}[leaf]
    return [VariableValue(r) for r in graph.records if wanted in r.collections and r.certain]


# ---------------------------------------------------------------------------------------------
# Estimators

_ESTIMATOR_MODES = {"train": "train", "evaluate": "eval", "predict": "infer", "export_saved_model": "infer",
                    "export_savedmodel": "infer", "experimental_export_all_saved_models": "infer"}


@handles("tf.estimator.Estimator", "tf.estimator.tpu.TPUEstimator", "tf.contrib.tpu.TPUEstimator")
def _estimator(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("model_fn", "model_dir", "config", "params"), args, kwargs)
    return EstimatorValue(bound.get("model_fn", UNKNOWN), bound.get("params"))


def estimator_method(interp: "Interpreter", estimator: EstimatorValue, name: str, node: cst.CSTNode) -> Any:
    """`estimator.train(...)` and friends: the model_fn runs in a graph of its own."""
    mode = _ESTIMATOR_MODES.get(name)
    if mode is not None:
        run_model_fn(interp, estimator, mode, node)
    return UNKNOWN


@handles("tf.estimator.train_and_evaluate")
def _train_and_evaluate(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    estimator = bind(("estimator", "train_spec", "eval_spec"), args, kwargs).get("estimator")
    if isinstance(estimator, EstimatorValue):
        run_model_fn(interp, estimator, "train", node)
        run_model_fn(interp, estimator, "eval", node)
    return UNKNOWN


def run_model_fn(interp: "Interpreter", estimator: EstimatorValue, mode: str, node: cst.CSTNode) -> None:
    """Call model_fn(features, labels, mode, params, config) as the Estimator does, in a new graph.

    Only the arguments model_fn's signature names are passed (the Estimator inspects it too);
    features and labels come from an input_fn the analysis does not follow, so they are unknown.
    """
    from scopelint.analysis.values import UserFunction

    function = estimator.model_fn
    if not isinstance(function, UserFunction):
        interp.graph.note_unmodelled_creation()
        return
    offered = {"features": UNKNOWN, "labels": UNKNOWN, "mode": mode,
               "params": estimator.params if estimator.params is not None else {}, "config": UNKNOWN}
    params = function.node.params
    names = [param.name.value for param in list(params.posonly_params) + list(params.params)]
    kwargs = {name: offered[name] for name in names if name in offered}
    graph = GraphModel(interp.path)
    interp.tfapi.install_devices(graph)
    graph.speculative = interp.graph.speculative  # a train() that may not run builds a graph that may not exist
    previous = interp.graph
    interp.graph = graph
    interp.graphs.append(graph)
    try:
        interp.call_value(function, [], kwargs, node)
    except ModelRaise:
        pass  # TensorFlow raises inside train(): recorded as an event; the program stops there
    finally:
        interp.graph = previous


def _template_call(name: object) -> str:
    """How a TFS203 message names the template: its name when known.  The finding holds whatever
    the name (each make_template call opens a new unique scope), so an unknown one is left out
    rather than quoted as '?'."""
    if isinstance(name, str) and UNKNOWN_PART not in name:
        return f"make_template('{name}')"
    return "make_template(...)"


@handles("tf.contrib.training.HParams", "tf.training.HParams")
def _hparams(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    """Hyper-parameters built from literals are known values (analysis/config_objects.py)."""
    from scopelint.analysis import config_objects

    return config_objects.make_hparams(kwargs) if not args else UNKNOWN
