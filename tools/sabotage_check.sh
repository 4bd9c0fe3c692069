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
syncbn_local_stats|framework/gluon/contrib/nn/sync_batch_norm.py|s/        return lax.axis_size(name)/        return None/|tests/gluon/contrib/test_contrib_nn.py::test_sync_batchnorm_across_devices_equals_batchnorm_on_the_whole_batch
download_leaves_part|framework/gluon/_download.py|s/        part.unlink(missing_ok=True)/        pass/|tests/gluon/test_download.py::test_http_500_is_retried_then_names_the_url_and_the_fix
download_one_attempt|framework/gluon/_download.py|s/    attempts = max(1, retries)/    attempts = 1/|tests/gluon/test_download.py::test_http_500_is_retried_then_names_the_url_and_the_fix
download_no_resume|framework/gluon/_download.py|s/        request.add_header("Range", f"bytes={have}-")/        pass/|tests/gluon/test_download.py::test_a_cut_body_resumes_from_where_it_stopped
download_no_length_check|framework/gluon/_download.py|s/    if total is not None and got != total:/    if False:/|tests/gluon/test_download.py::test_a_body_always_cut_short_fails_and_leaves_nothing
fetch_unverified|framework/gluon/_download.py|s/                    problem = check(part)/                    problem = None/|tests/gluon/data/vision/test_data_vision_download.py::test_failures_name_the_url_and_the_fix_and_leave_nothing
fetch_wrong_layout|framework/gluon/data/vision/_fetch.py|s/f"gluon\/dataset\/{entry/f"gluon\/{entry/|tests/gluon/data/vision/test_data_vision_download.py::test_mnist_downloads_its_split_from_the_repository_verifies_and_loads
fetch_ignores_offline|framework/gluon/_download.py|s/    return not config.get("offline")/    return True/|tests/gluon/data/vision/test_data_vision_download.py::test_offline_means_no_download
np_alias_any_np|framework/port/rules/numpy_aliases.py|s/        if self.info.resolve(node) != f"numpy.{node.attr.value}":/        if False:/|tests/port/test_numpy_aliases.py::test_only_where_np_is_numpy
np_alias_assign|framework/port/rules/numpy_aliases.py|s/        if self.meta(ExpressionContextProvider, node, load) != load:/        if False:/|tests/port/test_numpy_aliases.py::test_assignments_and_deletions_are_left_alone
np_ninf_parens|framework/port/rules/numpy_aliases.py|s/            if text.startswith("-") and not self._bare_value(original):/            if False:/|tests/port/test_numpy_aliases.py
port_import_paths|framework/port/rules/_base.py|s/^        elif self._import_depth:/        elif False:/|tests/port/test_import_paths.py
port_write_in_place|framework/port/_write.py|s/^            temps.append((_temp_for(path, text), path))/            open(path, "w").write(text); _point()/|tests/port/test_write_atomic.py::test_sigkill_at_random_points_leaves_every_file_original_or_fully_ported
reader_follows_devices|framework/_files.py|s/if not stat.S_ISREG(f\?st.st_mode):/if False:/|tests/test_files_hostile.py
states_no_digest|framework/gluon/_trainer_states.py|s/^    elif meta.get("sha256") != _digest(meta, arrays):/    elif False:/|tests/gluon/test_trainer_states_digest.py
symbol_no_schema|framework/symbol/_interp.py|s/^            check_node(source, nid, n.name, n.op, n.attrs, len(n.inputs))/            pass/|tests/symbol/test_validation.py
symbol_no_budget|framework/symbol/_abstract.py|s/^        if size > budget:/        if False:/|tests/symbol/test_validation.py::test_a_graph_asking_for_gigabytes_is_refused_before_it_runs
worker_reused|framework/gluon/data/_workers.py|s/^                self._replace(worker)  # a hung worker is never given another batch/                pass/|tests/gluon/data/test_data_workers.py::test_a_worker_that_timed_out_is_replaced_not_reused
no_pixel_budget|framework/image/_codec.py|s/^            check_pixels(w, h, "imdecode", max_pixels)/            pass/|tests/image/test_pixel_budget.py
resume_range|train/job.py|s/^    if saved.epoch > cfg.epochs:/    if False:/|tests/test_train_job.py::test_resume_with_fewer_epochs_than_the_checkpoint_is_refused
early_stop_patience|framework/gluon/contrib/estimator/event_handler.py|s/if self.wait >= self.patience:/if self.wait > self.patience:/|tests/gluon/contrib/test_estimator.py::test_early_stopping_and_checkpoints_match_mxnet
io_roll_over|framework/io/ndarray_iter.py|s/            self.cursor = self.cursor - self.num_data - self.batch_size/            self.cursor = -self.batch_size/|tests/io/test_iterators.py::test_ndarray_iter_last_batch_handles_and_shuffle
kv_push_adds|framework/kvstore/kvstore.py|s/                self._store\[k\] = merged/                self._store[k] = self._store[k] + merged/|tests/kvstore/test_kvstore.py::test_push_without_optimizer_replaces_by_the_sum_and_pull_fills_variables
custom_backward_scaled|framework/operator.py|s/        grads = list(g\[: spec.n_out\])/        grads = [x * 2 for x in g[: spec.n_out]]/|tests/test_operator.py::test_custom_ops_train_in_record_backward_with_mxnets_gradients
profile_drops_programs|framework/profiler.py|s/                e = dict(e, ts=e\["ts"\] + shift)/                e = dict(e, ts=e["ts"] + shift, name="x")/|tests/test_profiler.py::test_profile_of_the_seed_loop_holds_the_steps_programs
api_io_unreachable|framework/__init__.py|s/    "io": "framework.io",//|tests/api/test_inventory.py::test_every_name_exists_or_is_listed
foreach_scan_under_record|framework/nd/contrib/control_flow.py|s/    return _mode.is_recording() and not _has_tracer(\*trees)/    return False/|tests/nd/test_contrib_control_flow.py::test_foreach_in_a_hybridized_block_matches_eager_and_record_reaches_closed_over_weights
box_nms_ties_wrong_order|framework/npx/boxes.py|s/        order = jnp.argsort(jnp.where(valid, -score, jnp.inf), stable=True)\[:k\]/        order = jnp.argsort(jnp.where(valid, score, jnp.inf), stable=True)[:k]/|tests/nd/test_contrib_reference.py::test_matches_mxnet_compiled
roi_pool_float_bins|framework/npx/roi.py|s/        hi = -((-(k + 1) \* size\[:, None\]) \/\/ count) + start\[:, None\]/        hi = ((k + 1) * size[:, None]) \/\/ count + 1 + start[:, None]/|tests/nd/test_nd_extra_reference.py
deformable_v1_bounds|framework/gluon/contrib/cnn/deformable.py|s/        valid = (py >= 0) \& (px >= 0) \& (py < h) \& (px < w)/        valid = (py > -1) \& (px > -1) \& (py < h) \& (px < w)/|tests/gluon/contrib/test_contrib_cnn.py::test_operators_follow_mxnet_boundary_rules
mvn_sample_transposed|framework/gluon/probability/distributions/multivariate_normal.py|s/jnp.einsum("...jk,...k->...j", scale_tril, eps)/jnp.einsum("...jk,...j->...k", scale_tril, eps)/|tests/gluon/probability/test_distributions.py::test_multivariate_normal_samples_have_the_covariance
port_cache_trusts_any_entry|framework/port/cache.py|s/entry.get("source_sha256") != _sha256(source)/False/|tests/test_run.py::test_port_cache_never_trusts_an_entry_beyond_its_key
port_cache_any_directory|framework/port/cache.py|s/    if st.st_mode \& 0o022:/    if False:/|tests/test_run.py::test_port_cache_refuses_a_directory_others_can_write
arrays_rule_skips_reshape|framework/port/rules/arrays.py|s/        if method not in ROUTED or not self._scopes:/        if method not in ROUTED or method == "reshape" or not self._scopes:/|tests/port/test_gcv_snippets.py::test_snippet_matches_mxnet[arrays_hybrid]
version_rule_off|framework/port/rules/version.py|s/if updated.attr.value != "__version__" or/if True or/|tests/port/test_gcv_snippets.py::test_snippet_matches_mxnet[version]
head_sum_any_dtype|framework/autograd/pending.py|s/            if r is not None and r.aval.dtype is _FLOAT32:/            if r is not None:/|tests/autograd/test_record.py::test_sum_after_backward_is_the_backwards_total
record_template_blind|framework/gluon/block.py|s/or last.training != mode.flags.training or/or/|tests/gluon/test_block.py::test_recording_again_follows_changed_shapes_mode_and_parameter_types
late_grads_wrong_step|framework/autograd/pending.py|s/else h for g, h in zip(self.grads, late, strict=True)\]/else h * 0.5 for g, h in zip(self.grads, late, strict=True)]/|tests/autograd/test_lazy.py::test_gradients_nobody_reads_are_never_computed_and_a_read_gets_the_steps_own
user_kwargs_strict|framework/base.py|s/        if kwargs and framework_class(cls):/        if kwargs:/|tests/gluon/test_block_imperative.py::test_user_init_may_take_and_drop_a_keyword
deferred_traces_forward|framework/gluon/block.py|s/        if traced or (compiled and self._active):/        if True:/|tests/gluon/test_block_imperative.py::test_plain_block_runs_python_on_concrete_arrays_at_deferred_init
switch_not_in_key|framework/_compile.py|s/    return _lookup(("jit", desc, config.program_key()), owner,/    return _lookup(("jit", desc), owner,/|tests/test_config.py::test_flipping_the_fast_cpu_switch_between_two_calls_gives_the_other_program
tiers_always_whole|framework/autograd/pending.py|s/^    return seen or walk.mostly_new(key.steps), first$/    return True, first/|tests/autograd/test_tiers.py::test_an_episode_loop_of_new_lengths_compiles_nothing_after_warm_up
vjp_accumulation_dropped|framework/autograd/walk.py|s/    return \[o + next(it) if a else o for o, a in zip(out, acc, strict=True)\]/    return [o for o, a in zip(out, acc, strict=True)]/|tests/autograd/test_tiers.py::test_node_by_node_gradients_equal_jax_grad
device_twice_overwrites|framework/gluon/parameter.py|s/(self._grad_req == "add" or (self._repeated and self._fresh_grad.get(device))):/(self._grad_req == "add"):/|tests/gluon/test_fused_step.py::test_a_device_named_twice_fuses_both_slices_and_adds_their_gradients
nd_batchnorm_mode_at_replay|framework/nd/nn.py|s/use_global_stats, output_mean_var, axis, cudnn_off, _mode.is_training(), name=name,/use_global_stats, output_mean_var, axis, cudnn_off, None, name=name,/|tests/nd/test_mode_at_call.py::test_nd_batchnorm_on_a_recorded_input_uses_batch_statistics
update_ops_no_inplace|framework/nd/optimizer_ops.py|s/            t\[...\] = v/            pass/|tests/nd/test_optimizer_ops.py::test_variables_are_updated_in_place_as_in_mxnet
compile_cache_threshold|framework/_compile_cache.py|s/        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)/        pass/|tests/test_compile_cache.py::test_a_second_process_loads_the_programs_the_first_compiled
first_sighting_per_node|framework/autograd/walk.py|s/    return 2 \* len(new) > len(computing)/    return False/|tests/autograd/test_first_sighting.py::test_a_first_step_compiles_the_whole_graph_and_no_program_per_node
npx_index_add_overwrites|framework/npx/v2_names.py|s/    return jnp.asarray(a).at\[index\].add(v)/    return jnp.asarray(a).at[index].set(v)/|tests/npx/test_v2_names.py::test_index_add_and_update_match_a_loop
npx_cond_2_0_branches_swapped|framework/npx/control_flow.py|s/lambda: then_func(\*args), lambda: else_func(\*args)/lambda: else_func(*args), lambda: then_func(*args)/|tests/npx/test_v2_names.py::test_control_flow_2_0_signatures
symbol_chains_not_found|framework/symbol/_fuse.py|s/            chains\[src\] = ConvPoolChain(src, act, pid)/            pass/|tests/symbol/test_fuse.py::test_fused_chains_give_the_unfused_outputs_and_gradients
symbol_chain_drops_activation|framework/symbol/_fuse.py|s/    act = None if chain.act is None else attrs\[chain.act\].str("act_type")/    act = None/|tests/symbol/test_fuse.py::test_fused_chains_give_the_unfused_outputs_and_gradients
symbol_chain_shared_intermediate|framework/symbol/_fuse.py|s/(idx, uses\[(src, 0)\]) != (0, 1)/idx != 0/g|tests/symbol/test_fuse.py::test_an_intermediate_result_needed_elsewhere_keeps_its_chain_apart
gluon_fusion_relu_only|framework/gluon/nn/fusion.py|s/    monotone = act is None or act in fast_cpu.MONOTONE_ACTIVATIONS/    monotone = act in (None, "relu")/|tests/gluon/nn/test_fusion.py::test_monotone_activations_fuse_with_the_same_values_and_gradients
fused_rule_narrow|framework/npx/fast_cpu.py|s/    if fused and kh \* kw >= _FUSED_WIDE_KERNEL:/    if False:/|tests/npx/test_fast_cpu.py::test_conv2d_maxpool2d_supports_and_errors
module_params_sorted|framework/module/module.py|s/        self._arg_params = {name: new_arg\[name\] for name in self._param_names}/        self._arg_params = dict(sorted(new_arg.items()))/|tests/module/test_module.py::test_save_params_and_load_params_round_trip_and_refuse_foreign_keys
nd_int_division_true|framework/nd/arithmetic.py|s/    if jnp.issubdtype(dtype, jnp.integer):/    if False:/|tests/nd/test_nd_eager.py::test_integer_division_and_scalars_follow_mxnet_1x
nd_scalar_promotes|framework/nd/arithmetic.py|s/        return a, jnp.asarray(rhs).astype(a.dtype)/        return a, as_array(rhs)/|tests/nd/test_nd_eager.py::test_integer_division_and_scalars_follow_mxnet_1x
nd_zeros_like_no_dtype|framework/nd/creation.py|s/^def zeros_like(data: jax.Array, dtype: Any = None)/def zeros_like(data: jax.Array)/|tests/nd/test_nd_eager.py::test_zeros_like_and_ones_like_take_dtype_and_keep_the_datas_type_as_mxnet_1x_does
compile_cache_kept_in_multiprocess|framework/_compile_cache.py|s/        if hangs and jax.config.jax_enable_compilation_cache:/        if False:/|tests/test_compile_cache.py::test_a_process_of_a_multiprocess_run_switches_the_cache_off_where_jax_hangs
symbolic_call_own_prefix_always|framework/gluon/symbolic_call.py|s/    scope = Prefix(prefix) if prefix is not None else contextlib.nullcontext()/    scope = Prefix(block.prefix)/|tests/gluon/test_symbolic_call.py::test_the_graph_is_mxnets_and_its_internal_outputs_compute_mxnets_values
symbol_block_keeps_full_names|framework/gluon/symbol_block.py|s/            self._reg_params\[name\[cut:\]\] = p/            self._reg_params[name] = p/|tests/gluon/test_symbolic_call.py::test_a_feature_expander_in_a_detector_names_and_computes_as_mxnet
name_scope_no_symbol_prefix|framework/gluon/name_scope.py|s/    names = contextlib.nullcontext() if block.__dict__.get("_empty_prefix") else Prefix(block.prefix)/    names = contextlib.nullcontext()/|tests/gluon/test_symbolic_call.py::test_a_feature_expander_in_a_detector_names_and_computes_as_mxnet
dense_act_prefix_plain|framework/gluon/nn/basic_layers.py|s/                self.act = Activation(activation, prefix=f"{activation}_")/                self.act = Activation(activation)/|tests/gluon/test_symbolic_call.py::test_the_graph_is_mxnets_and_its_internal_outputs_compute_mxnets_values
deferred_1x_not_through_graph|framework/gluon/block.py|s/        why = infer_shapes_through_graph(self, args) if defines_hybrid_forward(self) else None/        why = None/|tests/gluon/test_symbolic_call.py::test_deferred_shapes_of_a_1x_block_are_inferred_through_its_graph_as_mxnet_does
concat_no_symbolic_form|framework/gluon/nn/basic_layers.py|s/        return F.concat(\*\[block(x) for block in self._children.values()\], dim=self.axis)/        return self.forward(x)/|tests/gluon/test_symbolic_call.py::test_model_zoo_networks_called_on_symbols_compute_what_they_compute_on_arrays
resnet_symbol_uses_array_relu|framework/gluon/model_zoo/vision/resnet.py|s/        return self._run(x, lambda y: F.Activation(y, act_type="relu"))/        return self._run(x, npx.relu)/|tests/gluon/test_symbolic_call.py::test_model_zoo_networks_called_on_symbols_compute_what_they_compute_on_arrays
symbolic_form_ignores_override|framework/gluon/symbolic_call.py|s/        if "forward" in klass.__dict__:/        if False:/|tests/gluon/test_symbolic_call.py::test_a_subclass_overriding_forward_does_not_get_its_parents_symbolic_form
custom_aux_not_written_back|framework/operator.py|s/        _store_aux(op_type, name, data\[n_args + i\], res.aux\[i\], i)/        pass/|tests/test_operator_aux.py::test_a_block_over_the_operator_infers_its_shapes_and_keeps_the_auxiliary_states
custom_backward_sees_old_aux|framework/operator.py|s/            aux=list(outputs\[self.n_out:\]),/            aux=list(inputs[self.n_args:]),/|tests/test_operator_aux.py::test_a_block_over_the_operator_infers_its_shapes_and_keeps_the_auxiliary_states
custom_symbol_no_shapes|framework/symbol/_infer.py|s/        if pos < len(custom) and custom\[pos\] is not None:/        if False:/|tests/test_operator_aux.py::test_a_custom_symbol_names_and_infers_as_mxnet
porter_no_method_args|framework/port/rules/arrays.py|s/            params .= self._method_arrays.get(node.name.value, set())/            pass/|tests/port/test_method_args.py::test_a_helper_method_given_arrays_by_the_class_routes_their_methods
porter_no_dispatch|framework/port/rules/arrays.py|s/            if method in DISPATCHED and not self._foreign(func.value) and not scope.f_name:/            if False:/|tests/port/test_method_args.py::test_methods_jax_lacks_on_an_untyped_receiver_are_decided_at_run_time
array_method_numpy_as_array|framework/nd/__init__.py|s/(isinstance(x, onp.ndarray) and not hasattr(x, name))/isinstance(x, onp.ndarray)/|tests/port/test_method_args.py::test_array_method_is_the_nd_operator_on_arrays_and_the_own_method_elsewhere
mkldnn_no_weight_adjust|framework/npx/quantized_fused.py|s/    adjust = _F32(0.5) if data.dtype == jnp.int8/    adjust = _F32(1.0) if data.dtype == jnp.int8/|tests/symbol/test_mkldnn_int8.py::test_int8_graph_gives_mxnets_integers
mkldnn_residual_own_type|framework/npx/quantized_fused.py|s/    q = saturate(out, static.sum_kind)/    q = saturate(out, static.out_kind)/|tests/symbol/test_mkldnn_int8.py::test_int8_graph_gives_mxnets_integers
mkldnn_bn_in_float|framework/npx/quantized_fused.py|s/        alpha = (g \/ onp.sqrt(var.astype(onp.float64) + eps)).astype(_F32)/        alpha = (g.astype(_F32) \/ onp.sqrt(var + _F32(eps))).astype(_F32)/|tests/symbol/test_mkldnn_int8.py::test_int8_graph_gives_mxnets_integers
mkldnn_subgraphs_dropped|framework/symbol/_json.py|s/        if subgraphs:/        if False:/|tests/symbol/test_mkldnn_int8.py::test_subgraphs_are_written_back_as_mxnet_reads_them
collect_params_1x_duplicates|framework/gluon/block.py|s/        legacy = _names.written_for_1x(self)/        legacy = False/|tests/gluon/test_collect_params_1x.py::test_a_shared_parameter_is_collected_once_in_1x_code
select_structural_in_1x|framework/gluon/block.py|s/if regex.match(v._var_name))/if regex.match(k))/|tests/gluon/test_collect_params_1x.py::test_select_matches_the_1x_full_names
worker_lazy_via_path_only|framework/gluon/data/_worker_main.py|s/            if finder is self or not hasattr(finder, "find_spec"):/            if finder is not importlib.machinery.PathFinder:/|tests/gluon/data/test_data_workers.py::test_workers_start_without_jax_where_framework_is_found_by_its_installer
draw_per_shape|framework/_draw.py|s/    if not _eager(key, shape) or jnp.ndim(minval) or jnp.ndim(maxval):/    if True:/|tests/test_draw.py::test_draws_of_many_shapes_share_a_few_programs
initializer_draws_per_shape|framework/initializer/rules.py|s/            out = _draw.uniform(key, shape, ft, -scale, scale)/            out = jax.random.uniform(key, shape, ft, -scale, scale)/|tests/test_draw.py::test_an_initializer_draws_through_the_size_classes
np_random_draws_per_shape|framework/np/random.py|s/        return _out(_draw.uniform(next_key(), shape, _float(dtype), low, high), ctx, device)/        return _out(jax.random.uniform(next_key(), shape, _float(dtype), low, high), ctx, device)/|tests/test_draw.py::test_np_random_is_seeded_through_the_size_classes
trainer_init_forces_backward|framework/gluon/trainer.py|s/            if p._grad_slots is None:  # not p._grad.*/            if p._grad is None:/|tests/gluon/test_fused_step.py::test_the_first_step_is_already_one_fused_program
stack_first_call_layer_by_layer|framework/gluon/block.py|s/        if compiled and any(p._replicas is None for p in self._tree().param_list):/        if compiled and not self._compiled_leaf and any(p._replicas is None for p in self._tree().param_list):\n            return False\n        if compiled and any(p._replicas is None for p in self._tree().param_list):/|tests/gluon/test_fused_step.py::test_a_stack_with_deferred_shapes_records_its_first_call_as_every_later_one
cpu_conv_option_dropped|framework/_compile.py|s/    options = compiler_options()/    options = None/|tests/test_config.py::test_the_cpu_conv_switch_picks_the_library_that_runs_the_convolutions
depthwise_taps_reversed|framework/npx/fast_cpu_depthwise.py|s/per_tap\[:, t\]/per_tap[:, -1 - t]/|tests/npx/test_fast_cpu_depthwise.py::test_values_and_gradients_equal_xla_grouped_convolution
depthwise_not_dispatched|framework/npx/conv.py|s/    if path == "depthwise":/    if False:/|tests/npx/test_fast_cpu_depthwise.py::test_npx_convolution_dispatches_depthwise_layers_on_the_cpu_while_fast_cpu_is_on
summary_conv_line_dropped|framework/gluon/summary.py|s/    if cpu is not None:/    if False:/|tests/gluon/test_summary.py
compile_options_nested|framework/_compile.py|s/        if not _trace_state_clean():/        if False:/|tests/test_compile.py::test_a_program_with_compiler_options_also_runs_inside_another_trace
compile_options_constants_nested|framework/_compile.py|s/                if "compiler_options" not in str(err):/                if True:/|tests/test_compile.py::test_a_program_with_compiler_options_called_with_constants_inside_a_trace
compile_options_refusal_raises|framework/_compile.py|s/            if not _refusal(err, self.options):/            if True:/|tests/test_compile.py::test_an_xla_that_refuses_the_options_runs_the_programs_without_them_and_says_so
trainer_states_negative_lr|framework/gluon/_trainer_states.py|s/ or not math.isfinite(lr) or lr < 0:/ or not math.isfinite(lr):/|tests/gluon/test_trainer_states.py::test_bad_metadata_is_refused_and_changes_nothing
param_no_device_refused|framework/gluon/parameter.py|s/^    # ctx=\[\] is accepted, as MXNet does.*$/    assert devices/|tests/gluon/test_mxnet_semantics.py
pointwise_dw_dropped|framework/npx/fast_cpu_pointwise.py|s/_product(dx, w, stride) + _product(x, dw, stride)/_product(dx, w, stride)/|tests/npx/test_fast_cpu_pointwise.py::test_values_and_derivatives_equal_xla_convolution
pointwise_not_dispatched|framework/npx/conv.py|s/        return pointwise(x, w, tuple(stride))/        return lax.conv_general_dilated(x, w, stride, padding, dimension_numbers=_dimension_numbers(2, False))/|tests/npx/test_fast_cpu_pointwise.py::test_npx_convolution_trains_1x1_layers_as_products_on_the_cpu_while_fast_cpu_is_on
summary_pointwise_dropped|framework/gluon/summary.py|s/                      ("pointwise", "1x1 layers/                      ("pointwise_", "1x1 layers/|tests/gluon/test_summary.py
grouped_not_dispatched|framework/npx/conv.py|s/    if path == "grouped":/    if False:/|tests/npx/test_fast_cpu_grouped.py::test_npx_convolution_runs_a_convolution_per_group_on_the_cpu_while_fast_cpu_is_on
grouped_groups_reversed|framework/npx/fast_cpu_grouped.py|s/    return jnp.concatenate(outs, axis=out_axis)/    return jnp.concatenate(outs[::-1], axis=out_axis)/|tests/npx/test_fast_cpu_grouped.py::test_values_and_gradients_equal_xla_grouped_convolution
summary_grouped_dropped|framework/gluon/summary.py|s/                      ("grouped", "grouped layers/                      ("grouped_", "grouped layers/|tests/gluon/test_summary.py
hygiene_switches_kept|tests/hygiene.py|s/            config.set(\*\*switches)/            pass/|tests/test_hygiene.py
d2l_seed_numpy_dropped|tools/corpus/d2l_harness.py|s/^    numpy.random.seed(seed)$/    pass/|tests/tools/test_d2l_runner.py::test_a_seed_makes_every_random_stream_of_a_section_repeat
d2l_compare_last_run_only|tools/corpus/d2l_compare.py|s/        x = sum(xs) \/ len(xs) if xs else None/        x = xs[-1] if xs else None/|tests/tools/test_d2l_runner.py::test_compare_averages_seeded_runs
plan_key_not_repeating|framework/autograd/pending.py|s/^    return seen or walk.mostly_new(key.steps), first$/    return walk.mostly_new(key.steps), first/|tests/autograd/test_tiers.py::test_a_graph_of_known_nodes_gets_its_whole_program_when_its_description_repeats
fused_pick_wrong_index|framework/gluon/_fused_step.py|s/picks\[k\].append(g.index)/picks[k].append(0)/|tests/gluon/test_fused_step.py
desc_not_interned|framework/gluon/block.py|s/        desc = interned(BlockDesc(/        desc = (BlockDesc(/|tests/autograd/test_tiers.py::test_a_steady_loop_records_its_first_steps_descriptions_and_key
draw_not_chunked|framework/_draw.py|s/^    return \[_chunk(kind, key, i, dtype) for i in range(-(-n \/\/ CHUNK))\]/    return [_flat(kind, key, -(-n \/\/ CHUNK) * CHUNK, dtype)]/|tests/test_draw.py::test_large_draws_of_any_size_are_chunks_of_one_program
draw_finish_on_device|framework/_draw.py|s/^    device = _host_device(key)$/    device = None/|tests/test_draw.py::test_a_warm_draw_of_a_new_shape_compiles_nothing_on_the_cpu
creation_not_on_host|framework/np/creation.py|s/^    if not _jax_compat.evaluates_eagerly() or any(_jax_compat.is_tracer(a) for a in args):/    if True:/|tests/np/test_creation.py::test_new_shapes_compile_nothing_outside_a_trace
creation_host_in_trace|framework/np/creation.py|s/^    if not _jax_compat.evaluates_eagerly() or any(/    if any(/|tests/np/test_creation.py::test_inside_a_trace_creation_is_part_of_the_program
like_device_of_tracer|framework/np/creation.py|s/ and isinstance(a, jax.Array) and not _jax_compat.is_tracer(a):/ and isinstance(a, jax.Array):/|tests/np/test_creation.py::test_inside_a_trace_creation_is_part_of_the_program
eager_ignores_folding|framework/_jax_compat.py|s/^    return _FOLDING is not None and _FOLDING.value$/    return False/|tests/test_jax_compat.py::test_evaluates_eagerly_follows_the_trace_that_would_take_an_operation
np_random_affine_per_shape|framework/np/random.py|s/^    if _draw.scalar_parameters(loc, scale):/    if False:/|tests/test_draw.py::test_np_random_draws_of_new_shapes_compile_nothing_on_the_cpu
uniform_low_above_high_clamped|framework/np/random.py|s/    if _draw.scalar_parameters(low, high) and bool(low <= high):/    if _draw.scalar_parameters(low, high):/|tests/test_draw.py::test_np_uniform_with_low_above_high_spans_the_interval_as_mxnets
pool_started_lazily|framework/gluon/data/dataloader.py|s/^        if self._num_workers:$/        if False:/|tests/gluon/data/test_data_workers.py::test_workers_start_with_the_loader_and_map_the_dataset_from_one_shared_file
payload_not_shared|framework/gluon/data/_workers.py|s/^    if hasattr(os, "memfd_create"):/    if False:/|tests/gluon/data/test_data_workers.py::test_workers_start_with_the_loader_and_map_the_dataset_from_one_shared_file
shared_map_read_only|framework/gluon/data/_worker_main.py|s/access=mmap.ACCESS_COPY/access=mmap.ACCESS_READ/|tests/gluon/data/test_data_workers.py::test_a_transform_may_write_into_its_samples_and_the_main_process_keeps_its_data
epoch_unrolled_on_cpu|framework/parallel.py|s/            steps_per_program = None if self.devices\[0\].platform == "cpu" else 8/            steps_per_program = 8/|tests/test_parallel.py::test_an_epoch_on_cpus_is_one_scan_program_by_default
selection_on_device|framework/np/_host.py|s/^    if not _jax_compat.evaluates_eagerly():$/    if True:/|tests/np/test_selection.py::test_new_lengths_compile_nothing_on_the_cpu
selection_asarray|framework/np/_host.py|s/^    return jax.device_put(host if host.flags.c_contiguous else host.copy(order="C"), device)$/    return jax.numpy.asarray(host) if device is None else jax.device_put(host, device)/|tests/np/test_selection.py::test_new_lengths_compile_nothing_on_the_cpu
selection_not_placed|framework/np/_host.py|s/        return onp.asarray(a), device if a.committed else None/        return onp.asarray(a), None/|tests/np/test_selection.py::test_results_stay_on_the_inputs_device
array_not_from_host|framework/np/creation.py|s/^    if isinstance(obj, jax.Array):$/    if True:/|tests/np/test_creation.py::test_new_shapes_compile_nothing_outside_a_trace
image_asarray|framework/image/image.py|s/^    return jax.device_put(out)  # jnp.asarray/    return jax.numpy.asarray(out)  # jnp.asarray/|tests/image/test_image.py::test_resizing_jax_images_of_new_sizes_compiles_nothing
d2l_runner_online|tools/corpus/d2l.py|s/^        env\["FRAMEWORK_OFFLINE"\] = "1"$/        pass/|tests/tools/test_d2l_runner.py::test_sections_on_framework_never_wait_for_downloads
selection_zero_d_lifted|framework/np/_host.py|s/host if host.flags.c_contiguous else host.copy(order="C")/onp.ascontiguousarray(host)/|tests/np/test_selection.py::test_zero_dimensional_and_weakly_typed_inputs
eager_always_jax|framework/np/eager/_core.py|s/^    if runs >= config.get("eager_host_runs"):$/    if True:/|tests/np/test_eager.py::test_new_shapes_compile_nothing
eager_weak_result|framework/np/eager/_core.py|s/    if weak or not computable/    if not computable/|tests/np/test_eager.py::test_what_numpy_and_jax_disagree_on_is_jaxs
eager_unstable_sort|framework/np/eager/_methods.py|s/kind="stable"/kind="quicksort"/|tests/np/test_eager.py::test_sorting_keeps_ties_in_order_as_jax_does
eager_pow_by_numpy|framework/np/eager/_core.py|s/^    base, acc = found\[0\], None$/    return put(onp.power(found[0], n), found[1])/|tests/np/test_eager.py::test_integer_powers_multiply_as_jax_does
eager_int_wraps|framework/np/eager/_core.py|s/        return info.min <= number <= info.max/        return True/|tests/np/test_eager.py::test_what_numpy_and_jax_disagree_on_is_jaxs
eager_zero_division|framework/np/eager/_core.py|s/ and not host\[1\].all():/ and False:/|tests/np/test_eager.py::test_what_numpy_and_jax_disagree_on_is_jaxs
eager_index_errors_lost|framework/np/eager/_core.py|s/^    except (IndexError, TypeError, ValueError):$/    except ():/|tests/np/test_eager.py::test_indexing_is_jaxs
eager_not_placed|framework/np/eager/_core.py|s/    return True, next(iter(found), None)/    return True, None/|tests/np/test_eager.py::test_results_stay_on_the_inputs_device
operators_annotations|framework/port/operators.py|s/    visit_FunctionDef = visit_AsyncFunctionDef = _function/    _unused = _function/|tests/port/test_operators.py::test_values_that_are_not_arrays_keep_pythons_meaning
operators_inplace_as_binary|framework/np/eager/_core.py|s/        return binary(a, b) if is_array(a) else py(a, b)/        return binary(a, b)/|tests/port/test_operators.py::test_values_that_are_not_arrays_keep_pythons_meaning
run_not_instrumented|framework/run.py|s/    code = compile_ported(_port(source, path), path)/    code = compile(_port(source, path), path, "exec")/|tests/port/test_operators.py::test_eager_code_of_new_shapes_compiles_nothing
harness_not_instrumented|tools/corpus/d2l_harness.py|s/cell\["line"\], instrument)/cell["line"])/|tests/tools/test_d2l_runner.py::test_framework_sections_run_eager_code_of_new_shapes_without_compiling
joined_not_on_host|framework/np/joining.py|s/    joined = _joined_on_host("concatenate"/    joined = None and _joined_on_host("concatenate"/|tests/np/test_joining.py::test_eager_cpu_arrays_join_in_host_memory_as_jax_joins_them
eager_weak_operand_refused|framework/np/eager/_core.py|s/    found = host_values(x, weak=weak)/    found = host_values(x)/|tests/np/test_eager.py::test_weakly_typed_arrays_promote_as_jax_promotes_them
eager_weak_method_strong|framework/np/eager/_core.py|s/def host_operand(x: Any, weak: bool = False)/def host_operand(x: Any, weak: bool = True)/|tests/np/test_eager.py::test_weakly_typed_arrays_promote_as_jax_promotes_them
eager_rank_promotion_ignored|framework/np/eager/_core.py|s/    if not agree or len({o\[0\].ndim for o in operands}) > 1 and /    if not agree or False and /|tests/np/test_eager.py::test_jaxs_promotion_settings_hold
runner_blames_dispatch|tools/corpus/d2l.py|s#^_TRANSPARENT = ("/framework/run.py", "/framework/np/eager/")#_TRANSPARENT = ("/framework/run.py",)#|tests/tools/test_d2l_runner.py::test_a_failure_raised_through_the_operator_dispatch_is_placed_at_the_cell
threefry_rotation_wrong|framework/_threefry.py|s/(17, 29, 16, 24))  #/(17, 29, 16, 25))  #/|tests/test_threefry.py::test_keys_and_folded_keys_are_jax_randoms
threefry_fold_in_swapped|framework/_threefry.py|s/onp.zeros(1, _U32), onp.full(1, data, _U32))/onp.full(1, data, _U32), onp.zeros(1, _U32))/|tests/test_threefry.py::test_keys_and_folded_keys_are_jax_randoms
threefry_mantissa_wrong|framework/_threefry.py|s/    a >>= _U32(9)/    a >>= _U32(8)/|tests/test_threefry.py::test_flat_uniform_draws_are_jax_randoms_bit_for_bit
threefry_inside_traces|framework/_threefry.py|s/ or not _jax_compat.evaluates_eagerly():/:/|tests/test_threefry.py::test_a_concrete_key_inside_a_trace_is_folded_in_the_program
threefry_not_placed|framework/_threefry.py|s/    if like is not None and like.committed:/    if False:/|tests/test_threefry.py::test_a_folded_key_lands_where_the_key_is
draw_uniform_by_program|framework/_draw.py|s/    host = _host_pieces(kind, key, n, dtype)/    host = None/|tests/test_draw.py::test_host_draws_compile_nothing_and_land_where_the_key_is
draw_budget_ignored|framework/_draw.py|s/ or _host_drawn\[0\] >= HOST_VALUES:/:/|tests/test_draw.py::test_draws_of_many_shapes_share_a_few_programs
random_key_by_jax|framework/np/random.py|s/            base = _threefry.key(s)/            base = jax.random.key(s)/|tests/test_draw.py::test_a_fresh_process_seeds_draws_and_initialises_a_network_without_compiling
rnn_state_by_program|framework/gluon/rnn/rnn_layer.py|s/    if _jax_compat.evaluates_eagerly() and getattr(target, "platform", None) == "cpu":/    if False:/|tests/gluon/rnn/test_rnn_layers.py::test_begin_state_makes_zeros_of_new_batch_sizes_without_a_program
trainer_init_always_compiled|framework/gluon/trainer.py|s/        if all(leaf.ndim == 0 for leaf in jax.tree_util.tree_leaves(abstract)):/        if False:/|tests/gluon/test_trainer.py::test_a_state_of_scalars_is_made_without_a_program_and_slots_by_one
optimizer_scalars_by_program|framework/optimizer/base.py|s/    return jnp.asarray(onp.asarray(x, dtype), dtype)/    return jnp.asarray(x, dtype)/|tests/gluon/test_trainer.py::test_a_fresh_processs_first_training_step_compiles_only_the_step
crash_report_dropped|tests/crash_reports.py|s/    for last in sorted(directory.glob("\*.last")):/    for last in []:/|tests/test_crash_reports.py::test_a_segmentation_fault_is_reported_with_the_test_and_the_stack
crash_report_no_stack|tests/crash_reports.py|s/    faulthandler.enable(_worker_files\[0\], all_threads=True)/    pass/|tests/test_crash_reports.py::test_a_segmentation_fault_is_reported_with_the_test_and_the_stack
crash_report_files_left|tests/crash_reports.py|s/            os.unlink(f.name)/            pass/|tests/test_crash_reports.py::test_a_run_without_crashes_adds_nothing_and_leaves_no_files
replay_ignores_epoch|framework/gluon/block.py|s/last.structure is not tree or tree.epoch != _epoch\[0\]/last.structure is not tree/|tests/gluon/test_block_replay.py::test_a_hook_added_to_a_child_in_a_steady_loop_is_called
hook_no_bump|framework/gluon/block.py|s/return HookHandle(self._forward_hooks, hook, _bump)/return HookHandle(self._forward_hooks, hook)/|tests/gluon/test_block_replay.py::test_a_hook_added_to_a_child_in_a_steady_loop_is_called
hybridize_no_bump|framework/gluon/block.py|s/^        _bump()  # whether this tree/        pass  # whether this tree/|tests/gluon/test_block_replay.py::test_hybridizing_a_user_child_in_a_steady_loop_changes_how_it_runs
replay_ignores_training|framework/gluon/block.py|s/or last.training != mode.flags.training or/or/|tests/gluon/test_block_replay.py::test_the_training_flag_is_part_of_what_is_replayed
replay_skips_hooks|framework/gluon/block.py|s/^        out = None if self._forward_pre_hooks else self._replay(args)$/&\n        if out is not None: return out/|tests/gluon/test_block_replay.py::test_a_replayed_call_runs_its_own_forward_hooks
replay_in_pure_call|framework/gluon/block.py|s/if stack and stack\[-1\].values is not None:  # inside a pure call/if False:/|tests/gluon/test_block_replay.py::test_a_child_inside_a_pure_call_uses_the_given_values
replay_ignores_input_avals|framework/gluon/block.py|s/if type(a) is not kind or a.aval is not aval:/if type(a) is not kind:/|tests/gluon/test_block_replay.py::test_a_new_input_shape_or_parameter_dtype_takes_the_full_path
replay_ignores_param_avals|framework/gluon/block.py|s/if v is None or type(v) is Deferred or v.aval is not aval:/if v is None or type(v) is Deferred:/|tests/gluon/test_block_replay.py::test_a_new_input_shape_or_parameter_dtype_takes_the_full_path
split_extra_at_end|framework/gluon/utils.py|s/sizes = \[each + 1\] \* extras + \[each\] \* (num_slice - extras)/sizes = [each] * (num_slice - extras) + [each + 1] * extras/|tests/gluon/test_utils.py
split_places_on_first_device|framework/gluon/utils.py|s/for s, d in zip(slices, devices, strict=True)\]/for s, d in zip(slices, [devices[0]] * len(slices), strict=True)]/|tests/gluon/test_utils.py::test_device_arrays_and_host_arrays_go_where_ctx_list_says
fused_chain_length_unchecked|framework/gluon/_fused_step.py|s/        elif dev != device or len(chain) != len(sources):/        elif dev != device:/|tests/gluon/test_fused_step.py::test_a_parameter_only_one_slice_reads_gets_that_slices_gradient
global_rows_all_first|framework/parallel.py|s/lambda index: local\[index\])/lambda index: local[:1])/|tests/test_parallel.py::test_compiled_step_n_devices_equals_one_device_loop
split_aliases_host_buffer|framework/gluon/utils.py|s/return \[_device.host_to_device(onp.array(s) if owned else s, d)/return [_device.host_to_device(s, d)/|tests/gluon/test_utils.py::test_a_host_buffer_filled_again_does_not_change_the_loaded_batch
set_data_aliases_numpy|framework/gluon/parameter.py|s/        copy = jnp.array if isinstance(data, onp.ndarray) else jnp.asarray/        copy = jnp.asarray/|tests/gluon/test_block.py::test_set_data_copies_a_numpy_array_as_mxnet_does
parallel_aliases_host_batch|framework/parallel.py|s/        x = onp.array(x) if not isinstance(x, jax.Array) else x/        x = onp.asarray(x) if not isinstance(x, jax.Array) else x/|tests/test_parallel.py::test_a_batch_buffer_filled_again_leaves_the_step_its_batch
split_compiled_at_first_sight|framework/_compile.py|s/    if not _ASKED.first(desc)\[1\]:/    if False:/|tests/gluon/test_utils.py::test_an_array_already_there_is_cut_by_a_program_from_its_second_split_on
split_program_from_the_start|framework/gluon/utils.py|s/slice_in_dim(x, lo, hi, axis=axis)/slice_in_dim(x, 0, hi - lo, axis=axis)/|tests/gluon/test_utils.py
one_device_always_copies|framework/gluon/utils.py|s/return \[data if there else jax.device_put/return [jax.device_put/|tests/gluon/test_utils.py::test_one_device_keeps_an_array_already_there_and_places_the_rest
split_large_cpu_batch_copied|framework/gluon/utils.py|s/    if home.platform == "cpu" and math.prod(shape) \* data.dtype.itemsize >= _CPU_CUT_MAX_BYTES:/    if False:/|tests/gluon/test_utils.py::test_a_large_cpu_batch_is_read_in_place_and_compiles_nothing
CASES
exit $status
