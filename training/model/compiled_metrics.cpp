#include "kiln/training/model/compiled_metrics.h"

#include <set>

#include "kiln/framework/distributed/replica_context.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/training/distribute/replica_updates.h"
#include "kiln/training/metrics/registry.h"
#include "kiln/training/model/model.h"

namespace kiln {
namespace {

// A metric's log name, Keras's way: `prefix name`, or where that is taken `prefix name_1`, ... for
// a second metric of the name and `prefix weighted_name` for a weighted one.
std::string unique_metric_name(const std::string& prefix, const std::string& name, bool weighted,
                               std::set<std::string>& taken) {
  std::string base = prefix + name;
  if (taken.contains(base) && weighted) base = prefix + "weighted_" + name;
  std::string unique = base;
  for (int k = 1; taken.contains(unique); ++k) unique = base + "_" + std::to_string(k);
  taken.insert(unique);
  return unique;
}

// Keras applies an output's mask to metrics as a sample weight: masked steps weigh 0.
Tensor masked_weight(const Tensor& sample_weight, const Tensor& mask) {
  if (!mask.defined()) return sample_weight;
  const Tensor weight = ops::cast(mask, DType::f32);
  if (!sample_weight.defined()) return weight;
  Tensor per_sample = ops::cast(sample_weight, DType::f32);
  while (per_sample.rank() < weight.rank())
    per_sample = ops::expand_dims(per_sample, per_sample.rank());
  return weight * per_sample;
}

}  // namespace

CompiledMetrics::Resolved CompiledMetrics::resolve(const CompileOptions& options,
                                                   const Model& model,
                                                   const std::vector<Shape>& targets,
                                                   const std::vector<Shape>& predictions) {
  const bool several = targets.size() > 1;
  Resolved out;
  out.names = {"loss"};
  std::set<std::string> taken;
  for (const bool weighted : {false, true}) {
    for (const MetricArg& arg : weighted ? options.weighted_metrics : options.metrics) {
      for (size_t o = 0; o < targets.size(); ++o) {
        metrics::MetricPtr m = arg.metric && o == 0
                                   ? arg.metric
                                   : metrics::get(arg.metric ? arg.metric->name() : arg.name,
                                                  targets[o], predictions[o]);
        const std::string prefix = several ? model.output_name(o) + "_" : "";
        out.names.push_back(unique_metric_name(prefix, m->name(), weighted, taken));
        out.entries.push_back({o, std::move(m), weighted});
      }
    }
  }
  return out;
}

CompiledMetrics::CompiledMetrics()
    : loss_tracker_(std::make_shared<metrics::Mean>("loss")), names_{"loss"} {}

void CompiledMetrics::set(Resolved resolved) {
  entries_ = std::move(resolved.entries);
  names_ = std::move(resolved.names);
}

std::vector<Tensor> CompiledMetrics::update(const Tensor& loss, const std::vector<Tensor>& y,
                                            const std::vector<Tensor>& predictions,
                                            const std::vector<Tensor>& sample_weight,
                                            const std::vector<Tensor>& masks) {
  const bool several = distributed::replica_context().count > 1;
  const std::vector<Variable> synced = several ? variables() : std::vector<Variable>{};
  const std::vector<Tensor> before = distribute::values_before(synced);
  // The loss tracker averages batch losses weighted by batch size, as Keras's does.
  const Tensor batch_size = ops::size_of(y[0], {0}, DType::f32);
  if (several) {
    // A replica's loss is its share of the global batch's: weighed as the global batch's loss
    // times the replica's rows / the global rows, the replicas' updates add up to one device's.
    const Tensor global_size = distributed::global_sum(batch_size);
    loss_tracker_->update_values(ops::stop_gradient(loss) * global_size /
                                     ops::maximum(batch_size, ops::ones_like(batch_size)),
                                 batch_size);
  } else {
    loss_tracker_->update_values(ops::stop_gradient(loss), batch_size);
  }
  const Tensor sw = sample_weight.empty() ? Tensor() : sample_weight[0];
  for (const Entry& e : entries_) {
    const Tensor mask = e.output < masks.size() ? masks[e.output] : Tensor();
    e.metric->update_state(y[e.output], predictions[e.output],
                           e.weighted ? masked_weight(sw, mask) : masked_weight(Tensor(), mask));
  }
  distribute::sum_updates_over_replicas(synced, before);
  std::vector<Tensor> results{loss_tracker_->result()};
  for (const Entry& e : entries_) results.push_back(e.metric->result());
  return results;
}

void CompiledMetrics::reset() {
  loss_tracker_->reset_state();
  for (const Entry& e : entries_) e.metric->reset_state();
}

std::vector<Variable> CompiledMetrics::variables() const {
  std::vector<Variable> out = loss_tracker_->variables();
  for (const Entry& e : entries_)
    out.insert(out.end(), e.metric->variables().begin(), e.metric->variables().end());
  return out;
}

}  // namespace kiln
