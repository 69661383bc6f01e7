#include "kiln/training/model/adapt_layers.h"

#include <functional>
#include <memory>
#include <optional>

#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/core/error.h"
#include "kiln/layers/preprocessing/adaptable.h"
#include "kiln/training/model/functional_graph.h"

namespace kiln {
namespace {

using Feed = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// What reaches `layer` from the model's inputs: the graph up to its (first) call in a
// functional model, the layers before it in a Sequential.
Feed feed_of(const Model& model, const layers::Layer& layer) {
  const layers::CallContext inference{};
  if (const FunctionalGraph* graph = model.functional_graph()) {
    for (const auto& record : graph->records())
      if (record->layer.get() == &layer) {
        auto upstream =
            std::make_shared<FunctionalGraph>(graph->inputs(), record->inputs, model.name());
        return [upstream, inference](const std::vector<Tensor>& x) {
          return upstream->run(x, inference).outputs;
        };
      }
    throw Error(detail::concat("adapt: layer '", layer.name(), "' is not called in model '",
                               model.name(), "'"));
  }
  const std::vector<layers::LayerPtr> all = model.layers();
  std::vector<layers::LayerPtr> before;
  for (const layers::LayerPtr& l : all) {
    if (l.get() == &layer) {
      return [before, inference](const std::vector<Tensor>& x) {
        std::vector<Tensor> h = x;
        for (const layers::LayerPtr& b : before) h = (*b)(h, inference);
        return h;
      };
    }
    before.push_back(l);
  }
  throw Error(detail::concat("adapt: layer '", layer.name(), "' of model '", model.name(),
                             "' is called by the model's own code; adapt it yourself"));
}

}  // namespace

std::vector<std::string> adapt_layers(Model& model, const datasets::Dataset& data) {
  std::vector<std::string> adapted;
  const size_t inputs = model.input_specs().empty() ? 1 : model.input_specs().size();
  for (const layers::LayerPtr& layer : model.layers()) {
    auto* adaptable = dynamic_cast<layers::Adaptable*>(layer.get());
    if (adaptable == nullptr || !adaptable->needs_adapt()) continue;
    const Feed feed = feed_of(model, *layer);
    const NoGradGuard no_grad;
    datasets::Iterator pass = data.iterator();
    adaptable->adapt([&]() -> std::optional<Tensor> {
      const std::optional<datasets::Element> batch = pass.next();
      if (!batch) return std::nullopt;
      KILN_CHECK(batch->size() >= inputs, "adapt: a batch has ", batch->size(),
                 " components, the model '", model.name(), "' takes ", inputs, " inputs");
      return feed({batch->begin(), batch->begin() + static_cast<ptrdiff_t>(inputs)}).at(0);
    });
    adapted.push_back(layer->name());
  }
  return adapted;
}

}  // namespace kiln
