#include "kiln/training/saving/checkpoint.h"

#include <cstdint>

#include "kiln/framework/core/error.h"
#include "kiln/framework/random/random.h"
#include "kiln/training/saving/atomic_write.h"
#include "kiln/training/saving/variable_groups.h"

namespace kiln::saving {
namespace {

constexpr const char* kKiln = "kiln";

layers::WeightGroup random_group(const CheckpointContents& contents) {
  return {"kiln/random_states", contents.random_states, "random_states"};
}

// A dataset of `count` integers (the generator's seed and draws: any int64 bits); floats are
// refused rather than converted (one out of int64's range has no value).
std::vector<int64_t> read_ints(const H5Group& group, const std::string& name, int64_t count) {
  const Tensor t = group.read(name);
  KILN_CHECK(t.numel() == count && !is_floating(t.dtype()), group.where(), "/", name, " must be ",
             count == 1 ? "one integer" : "a list of " + std::to_string(count) + " integers");
  return t.to_vector<int64_t>();
}

// epoch or step: one integer from 0 to `most`.
int64_t read_count(const H5Group& group, const std::string& name, int64_t most) {
  const int64_t v = read_ints(group, name, 1)[0];
  KILN_CHECK(v >= 0 && v <= most, group.where(), "/", name, " holds ", v, ", not a count");
  return v;
}

TrainingState read_state(const H5Group& kiln) {
  return {static_cast<int>(read_count(kiln, "epoch", INT32_MAX)),
          read_count(kiln, "step", INT64_MAX)};
}

void check_is_checkpoint(const H5Group& root) {
  KILN_CHECK(root.has_group(kKiln), root.where(),
             " is not a kiln checkpoint (no kiln/ group; a weights-only file loads with "
             "load_weights)");
}

}  // namespace

void save_checkpoint(const CheckpointContents& contents, const std::string& path,
                     const TrainingState& state, const std::string& run_config) {
  KILN_CHECK(contents.model.built, "save_checkpoint: model '", contents.model.name,
             "' has no weights yet");
  std::vector<layers::WeightGroup> groups = contents.model.groups;
  groups.push_back(contents.optimizer);
  groups.push_back(random_group(contents));
  const random::Generator& gen = random::default_generator();
  // Built in memory and written with checked system calls: a full disk is a clean error, where
  // HDF5 failing to write a file of its own left it open, to crash the process at exit.
  const H5File file = H5File::create_in_memory(path);
  H5Group root = file.root();
  write_groups(root, groups);
  H5Group kiln = root.group(kKiln);
  kiln.write("epoch", scalar(state.epoch, DType::i64, Device::cpu()));
  kiln.write("step", scalar(static_cast<double>(state.step), DType::i64, Device::cpu()));
  kiln.write("generator", from_vector<int64_t>(
                              {static_cast<int64_t>(gen.seed()), static_cast<int64_t>(gen.draws())},
                              Shape({2}), DType::i64, Device::cpu()));
  kiln.set_attr("model_config", contents.model_config);
  kiln.set_attr("run_config", run_config);
  write_file_atomically(path, file.image());
}

TrainingState load_checkpoint(const CheckpointContents& contents, const std::string& path) {
  const H5Group root = H5File::open(path).root();
  check_is_checkpoint(root);
  std::vector<StagedValue> staged = stage_groups(root, contents.model.groups, "weights for");
  for (const auto& [group, what] : {std::pair{contents.optimizer, "optimizer state for"},
                                    std::pair{random_group(contents), "random state for"}}) {
    std::vector<StagedValue> more = stage_groups(root, {group}, what);
    staged.insert(staged.end(), more.begin(), more.end());
  }
  const H5Group kiln = root.open_group(kKiln);
  const TrainingState state = read_state(kiln);
  const std::vector<int64_t> gen = read_ints(kiln, "generator", 2);  // seed, draws
  assign_all(staged);
  random::default_generator().set_state(static_cast<uint64_t>(gen[0]),
                                        static_cast<uint64_t>(gen[1]));
  return state;
}

CheckpointInfo read_checkpoint_info(const std::string& path) {
  const H5Group root = H5File::open(path).root();
  check_is_checkpoint(root);
  const H5Group kiln = root.open_group(kKiln);
  return {read_state(kiln), kiln.attr_string("model_config"), kiln.attr_string("run_config")};
}

}  // namespace kiln::saving
