#!/usr/bin/env bash
# Shows that tests fixed to be able to fail DO fail: for each case, a fresh clone of this repository gets
# one deliberate defect (one sed), then the test named for it runs and must fail. Prints one line per
# case; exits 1 if any test passed on its broken build.
#   tools/sabotage_check.sh            (uses .venv/bin/python of this checkout)
set -u
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$repo/.venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/repo" && cd "$work/repo" || exit 2
status=0
run() {  # name, file, sed expression, test id
  git checkout -q -- .
  sed -i "$3" "$2"
  if git diff --quiet; then echo "$1: the sabotage no longer applies (update this script)"; status=1; return; fi
  if "$python" -m pytest -q -p no:cacheprovider "$4" </dev/null >"$work/$1.log" 2>&1; then
    echo "$1: PASSED on the broken build"; status=1
  else
    echo "$1: fails on the broken build: $(grep -m1 -E '^E ' "$work/$1.log" | cut -c1-120)"
  fi
}
# name | file | sed expression | the test that must fail (one case per line; no "|" inside a field)
while IFS='|' read -r name file expr test; do
  [ -n "$name" ] && run "$name" "$file" "$expr" "$test"
done <<'CASES'
trainer_states_pickle|framework/gluon/_trainer_states.py|s/^    serialization.save(fname, arrays)/    import pickle; open(fname, "wb").write(pickle.dumps({k: __import__("numpy").asarray(v) for k, v in arrays.items()}))/|tests/gluon/test_trainer.py
graph_error_text|framework/autograd/tape.py|s/: not a recorded value. Compute it inside "/: cannot differentiate "/|tests/autograd/test_record.py::test_backward_on_plain_array_is_clear_error
dense_repr|framework/gluon/nn/basic_layers.py|s/{self.act or 'linear'}/{self.act or 'identity'}/|tests/gluon/test_block.py::test_sequential_indexing_repr_and_list_warning
deferred_infer_compiles|framework/gluon/block.py|s/            jax.eval_shape(lambda \*xs: self._call(\*xs), \*abstract)/            jax.eval_shape(lambda *xs: self._call(*xs), *abstract); jax.jit(lambda *xs: self._call(*xs))(*[jax.numpy.zeros(a.shape, a.dtype) for a in abstract])/|tests/gluon/test_block.py::test_deferred_inference_is_abstract
fusion_not_applied|framework/gluon/nn/fusion.py|s/    return out if changed else None/    return None/|tests/gluon/nn/test_fusion.py
block_width_off|framework/npx/fast_cpu.py|s/        if out_width % bw == 0 and kh \* in_channels \* win \* out_channels \* bw >= _MIN_BAND_ENTRIES:/        if out_width % bw == 0 and kh * in_channels * win * out_channels * bw > 2 * _MIN_BAND_ENTRIES:/|tests/npx/test_fast_cpu.py::test_block_width_is_the_smallest_block_with_a_big_enough_band
sequential_per_layer|framework/gluon/nn/containers.py|s/        if super()._runs_compiled():/        if True:\n            return super()._runs_compiled()\n        if super()._runs_compiled():/|tests/gluon/test_block.py::test_stack_of_builtin_layers_records_one_node_unless_a_child_is_hooked
graph_kept|framework/autograd/tape.py|s/            node.freed, node.inputs = True, ()/            node.freed = True/|tests/test_compile.py::test_backward_returns_only_the_values_still_held
owed_replaced_unsettled|framework/autograd/owed.py|/^def owe/,/slot\[0\] = record/ s/^    settle()$/    pass/|tests/autograd/test_owed.py::test_other_parameters_are_read_and_written_without_computing_the_owed_ones
owed_wrong_step|framework/gluon/_fused_step.py|s/        grads = _tape.backward_program(key, use_hg, ())(\*args)\[2\]/        grads = [g * 0.5 for g in _tape.backward_program(key, use_hg, ())(*args)[2]]/|tests/autograd/test_owed.py::test_gradients_nobody_reads_are_never_computed_and_a_read_gets_the_steps_own
head_sum_any_dtype|framework/autograd/tape.py|s/        if head is not None and head.aval.dtype == jnp.float32:/        if head is not None:/|tests/autograd/test_record.py::test_sum_after_backward_is_the_backwards_total
record_template_blind|framework/gluon/block.py|s/        if last is not None and last\[0\] is cache and last\[1\] is training and last\[2\] == dev \\/        if last is not None and last[0] is cache and (True or last[1] is training) and last[2] == dev \\/|tests/gluon/test_block.py::test_recording_again_follows_changed_shapes_mode_and_parameter_types
foreach_scan_under_record|framework/nd/contrib/control_flow.py|s/    return _mode.is_recording() and not _has_tracer(\*trees)/    return False/|tests/nd/test_contrib_control_flow.py::test_foreach_in_a_hybridized_block_matches_eager_and_record_reaches_closed_over_weights
box_nms_ties_wrong_order|framework/npx/boxes.py|s/        order = jnp.argsort(jnp.where(valid, -score, jnp.inf), stable=True)\[:k\]/        order = jnp.argsort(jnp.where(valid, score, jnp.inf), stable=True)[:k]/|tests/nd/test_contrib_reference.py::test_matches_mxnet_compiled
roi_pool_float_bins|framework/npx/roi.py|s/        hi = -((-(k + 1) \* size\[:, None\]) \/\/ count) + start\[:, None\]/        hi = ((k + 1) * size[:, None]) \/\/ count + 1 + start[:, None]/|tests/nd/test_nd_extra_reference.py
nd_batchnorm_mode_at_replay|framework/nd/nn.py|s/use_global_stats, output_mean_var, axis, cudnn_off, _mode.is_training(), name=name,/use_global_stats, output_mean_var, axis, cudnn_off, None, name=name,/|tests/nd/test_mode_at_call.py::test_nd_batchnorm_on_a_recorded_input_uses_batch_statistics
update_ops_no_inplace|framework/nd/optimizer_ops.py|s/            t\[...\] = v/            pass/|tests/nd/test_optimizer_ops.py::test_variables_are_updated_in_place_as_in_mxnet
CASES
exit $status
