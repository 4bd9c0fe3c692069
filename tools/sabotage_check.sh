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
head_sum_any_dtype|framework/autograd/pending.py|s/            if r is not None and r.aval.dtype == jnp.float32:  # head.sum() is the backward's total/            if r is not None:/|tests/autograd/test_record.py::test_sum_after_backward_is_the_backwards_total
record_template_blind|framework/gluon/block.py|s/        if last is not None and last.structure is tree and last.training is training \\/        if last is not None and last.structure is tree and (True or last.training is training) \\/|tests/gluon/test_block.py::test_recording_again_follows_changed_shapes_mode_and_parameter_types
late_grads_wrong_step|framework/autograd/pending.py|s/else h for g, h in zip(self.grads, late, strict=True)\]/else h * 0.5 for g, h in zip(self.grads, late, strict=True)]/|tests/autograd/test_lazy.py::test_gradients_nobody_reads_are_never_computed_and_a_read_gets_the_steps_own
user_kwargs_strict|framework/base.py|s/        if kwargs and framework_class(cls):/        if kwargs:/|tests/gluon/test_block_imperative.py::test_user_init_may_take_and_drop_a_keyword
deferred_traces_forward|framework/gluon/block.py|s/        if traced or (compiled and self._active):/        if True:/|tests/gluon/test_block_imperative.py::test_plain_block_runs_python_on_concrete_arrays_at_deferred_init
switch_not_in_key|framework/_compile.py|s/    return _lookup(("jit", desc, config.program_key()), owner, lambda: jax.jit(/    return _lookup(("jit", desc), owner, lambda: jax.jit(/|tests/test_config.py::test_flipping_the_fast_cpu_switch_between_two_calls_gives_the_other_program
tiers_always_whole|framework/autograd/pending.py|s/^    return seen$/    return True/|tests/autograd/test_tiers.py::test_an_episode_loop_of_new_lengths_compiles_nothing_after_warm_up
vjp_accumulation_dropped|framework/autograd/walk.py|s/    return \[o + next(it) if a else o for o, a in zip(out, acc, strict=True)\]/    return [o for o, a in zip(out, acc, strict=True)]/|tests/autograd/test_tiers.py::test_node_by_node_gradients_equal_jax_grad
device_twice_overwrites|framework/gluon/parameter.py|s/(self._grad_req == "add" or (self._repeated and self._fresh_grad.get(device))):/(self._grad_req == "add"):/|tests/gluon/test_fused_step.py::test_a_device_named_twice_fuses_both_slices_and_adds_their_gradients
CASES
exit $status
