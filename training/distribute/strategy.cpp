#include "kiln/training/distribute/strategy.h"

#include <algorithm>
#include <cstdlib>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/distributed/mpi_communicator.h"
#include "kiln/framework/distributed/nccl.h"
#include "kiln/framework/distributed/thread_group.h"
#include "kiln/framework/random/random.h"
#include "kiln/training/model/device_choice.h"

namespace kiln::distribute {
namespace {

thread_local StrategyPtr innermost;

// MirroredStrategy's YAML and Keras names.
bool is_mirrored(const std::string& name) {
  return name == "mirrored" || name == "MirroredStrategy";
}

Device parse_device(const std::string& name, const std::string& strategy) {
  try {
    const Device device = Device::parse(name);
    (void)backend_for(device);
    return device;
  } catch (const Error& e) {
    throw Error(detail::concat(strategy, ": device '", name, "': ", e.what()));
  }
}

// This process's index among the ranks on its machine.
int local_rank(int rank) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return rank;
}

// Every rank continues from rank 0's random state: the same initial weights, the same data
// shuffles (the shards split each global batch of one order), the same layer seeds.
void share_random_state(distributed::Communicator& communicator) {
  random::Generator& g = random::default_generator();
  const Tensor state =
      from_vector<int64_t>({static_cast<int64_t>(g.seed()), static_cast<int64_t>(g.draws())}, {2},
                           DType::i64, Device::cpu());
  communicator.broadcast(state, 0, "the random generator's state");
  const std::vector<int64_t> shared = state.to_vector<int64_t>();
  g.set_state(static_cast<uint64_t>(shared[0]), static_cast<uint64_t>(shared[1]));
}

// The device of the process at `rank`: its local rank's among `devices`, else its local rank's
// GPU, else the CPU.
Device replica_device(const std::vector<std::string>& devices, int rank,
                      const std::string& strategy) {
  const int local = local_rank(rank);
  if (!devices.empty())
    return parse_device(devices[static_cast<size_t>(local) % devices.size()], strategy);
  if (cuda_available()) {
    const int gpus = backend_for(Device::cuda(0)).device_count();
    return Device::cuda(local % gpus);
  }
  return Device::cpu();
}

// GPU replicas of several processes talk through NCCL (bootstrapped over MPI); others through
// the bootstrap communicator itself.
std::shared_ptr<distributed::Communicator> replica_communicator(
    const Device& device, const std::shared_ptr<distributed::Communicator>& bootstrap) {
  if (device.is_cuda() && bootstrap->size() > 1)
    return distributed::nccl_world(bootstrap, device.index);
  return bootstrap;
}

// MirroredStrategy's devices: those named, or every visible GPU, or the CPU.
std::vector<Device> mirrored_devices(const std::vector<std::string>& names) {
  std::vector<Device> devices;
  for (const std::string& name : names) {
    const Device d = parse_device(name, "MirroredStrategy");
    // As TensorFlow's: one replica per GPU (its stream and cuDNN and cuBLAS handles serve one
    // thread); the CPU may take several.
    KILN_CHECK(d.is_cpu() || std::find(devices.begin(), devices.end(), d) == devices.end(),
               "MirroredStrategy: ", d, " is named twice; a GPU takes one replica (only cpu may ",
               "repeat)");
    devices.push_back(d);
  }
  if (!devices.empty()) return devices;
  const int gpus = cuda_available() ? backend_for(Device::cuda(0)).device_count() : 0;
  for (int i = 0; i < gpus; ++i) devices.push_back(Device::cuda(i));
  if (devices.empty()) devices.push_back(choose_device("").device);
  return devices;
}

// Whether `devices` are all GPUs (distinct ones: mirrored_devices), which NCCL connects.
bool all_gpus(const std::vector<Device>& devices) {
  return std::all_of(devices.begin(), devices.end(), [](const Device& d) { return d.is_cuda(); });
}

// MirroredStrategy's replicas on `names`: one device alone, or a thread per device.
Strategy::Placement mirrored_placement(const std::vector<std::string>& names) {
  const std::vector<Device> devices = mirrored_devices(names);
  if (devices.size() == 1)
    return {devices[0], std::make_shared<distributed::LocalCommunicator>(), nullptr};
  KILN_CHECK(distributed::launched_ranks() == 1, "MirroredStrategy runs its ", devices.size(),
             " replicas as threads of one process, but mpirun started ",
             distributed::launched_ranks(), " processes; for a replica per process, use ",
             "MultiWorkerMirroredStrategy (distribute: {strategy: multi_worker})");
  const auto n = static_cast<int>(devices.size());
  std::vector<std::shared_ptr<distributed::Communicator>> host = distributed::thread_group(n);
  std::vector<std::shared_ptr<distributed::Communicator>> ranks = host;
  if (all_gpus(devices)) {
    std::vector<int> gpus;
    for (const Device& d : devices) gpus.push_back(d.index);
    ranks = distributed::nccl_group(host, gpus);
  }
  auto threads = std::make_shared<ReplicaThreads>(devices, ranks, std::move(host));
  return {devices[0], ranks[0], std::move(threads)};
}

// A process joining the other replicas: their random state, the collectives' communicator.
void join_replicas(Strategy& strategy) {
  share_random_state(strategy.communicator());
  // The collective ops of the traced steps reduce over these ranks.
  distributed::set_world(strategy.shared_communicator());
  log(LogLevel::info, strategy.class_name(), ": replica ", strategy.replica_id(), " of ",
      strategy.num_replicas_in_sync(), " on ", strategy.device(), " (",
      strategy.communicator().backend(), ")");
}

}  // namespace

Strategy::Strategy(Placement placement)
    : device_(placement.device),
      communicator_(std::move(placement.communicator)),
      threads_(std::move(placement.threads)) {}

void Strategy::set_timeout(std::chrono::milliseconds timeout) {
  communicator_->set_timeout(timeout);
  if (threads_)
    for (int i = 1; i < threads_->size(); ++i) threads_->rank(i).set_timeout(timeout);
}

void Strategy::set_bucket_bytes(int64_t bytes) {
  KILN_CHECK(bytes > 0, class_name(), ": the gradient bucket size must be positive, got ", bytes);
  bucket_bytes_ = bytes;
}

OneDeviceStrategy::OneDeviceStrategy(const std::string& device)
    : Strategy({parse_device(device, "OneDeviceStrategy"),
                std::make_shared<distributed::LocalCommunicator>(), nullptr}) {}

MirroredStrategy::MirroredStrategy(const std::vector<std::string>& devices)
    : Strategy(mirrored_placement(devices)) {
  if (const ReplicaThreads* threads = replica_threads()) {
    std::string where;
    for (int i = 0; i < threads->size(); ++i)
      where += detail::concat(i == 0 ? "" : ", ", threads->device(i));
    log(LogLevel::info, "MirroredStrategy: ", threads->size(), " replicas in this process, on ",
        where, " (", threads->rank(0).backend(), ")");
  }
}

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(const std::vector<std::string>& devices)
    : MultiWorkerMirroredStrategy(devices,
                                  distributed::launched_by_mpi()
                                      ? distributed::mpi_world()
                                      : std::make_shared<distributed::LocalCommunicator>()) {}

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(
    const std::vector<std::string>& devices,
    const std::shared_ptr<distributed::Communicator>& bootstrap)
    : Strategy({replica_device(devices, bootstrap->rank(), "MultiWorkerMirroredStrategy"),
                replica_communicator(
                    replica_device(devices, bootstrap->rank(), "MultiWorkerMirroredStrategy"),
                    bootstrap),
                nullptr}) {
  join_replicas(*this);
}

StrategyScope::StrategyScope(StrategyPtr strategy)
    : previous_(innermost), device_(strategy->device()) {
  innermost = std::move(strategy);
}

StrategyScope::~StrategyScope() {
  innermost = std::move(previous_);
}

StrategyPtr current_strategy() {
  return innermost;
}

StrategyPtr make_strategy(const std::string& name, const std::vector<std::string>& devices) {
  if (name == "default" || name == "one_device" || name == "OneDeviceStrategy") {
    KILN_CHECK(devices.size() <= 1, "distribution strategy '", name, "' runs on one device, got ",
               devices.size());
    return devices.empty() ? nullptr : std::make_shared<OneDeviceStrategy>(devices[0]);
  }
  if (is_mirrored(name)) return std::make_shared<MirroredStrategy>(devices);
  if (name == "multi_worker" || name == "MultiWorkerMirroredStrategy")
    return std::make_shared<MultiWorkerMirroredStrategy>(devices);
  throw Error(detail::concat("unknown distribution strategy '", name,
                             "'; known: default, one_device, mirrored, multi_worker"));
}

}  // namespace kiln::distribute
