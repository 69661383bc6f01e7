#include "kiln/training/distribute/strategy.h"

#include <cstdlib>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/distributed/mpi_communicator.h"
#include "kiln/framework/distributed/nccl.h"
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

// The ranks MirroredStrategy over `devices` trains with: this process alone for one device;
// for several, the processes mpirun started on this machine, one per device (kiln train starts
// them itself).
std::shared_ptr<distributed::Communicator> mirrored_bootstrap(
    const std::vector<std::string>& devices) {
  const int replicas = local_processes("mirrored", devices);
  if (replicas == 1) return std::make_shared<distributed::LocalCommunicator>();
  KILN_CHECK(distributed::launched_by_mpi(), "MirroredStrategy: ", replicas,
             " devices train as one process per device, each holding its copy of the variables "
             "(as PyTorch's DistributedDataParallel): `kiln train` starts them itself; a program "
             "of its own runs under `mpirun -np ",
             replicas, "`");
  const int ranks = distributed::launched_ranks();
  const char* local_size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  KILN_CHECK(ranks == replicas && (local_size == nullptr || std::atoi(local_size) == ranks),
             "MirroredStrategy: ", replicas, " devices need ", replicas,
             " processes on this machine, but mpirun started ", ranks,
             local_size == nullptr ? "" : detail::concat(" (", local_size, " here)"),
             "; across machines, use MultiWorkerMirroredStrategy");
  return distributed::mpi_world();
}

// MirroredStrategy's device: one of several local replicas' (replica_device), or the one
// device of a lone replica (the automatic choice when none is named).
Device mirrored_device(const std::vector<std::string>& devices,
                       const distributed::Communicator& bootstrap) {
  if (bootstrap.size() > 1) return replica_device(devices, bootstrap.rank(), "MirroredStrategy");
  return devices.empty() ? choose_device("").device : parse_device(devices[0], "MirroredStrategy");
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

Strategy::Strategy(Device device, std::shared_ptr<distributed::Communicator> communicator)
    : device_(device), communicator_(std::move(communicator)) {}

void Strategy::set_bucket_bytes(int64_t bytes) {
  KILN_CHECK(bytes > 0, class_name(), ": the gradient bucket size must be positive, got ", bytes);
  bucket_bytes_ = bytes;
}

OneDeviceStrategy::OneDeviceStrategy(const std::string& device)
    : Strategy(parse_device(device, "OneDeviceStrategy"),
               std::make_shared<distributed::LocalCommunicator>()) {}

int local_processes(const std::string& name, const std::vector<std::string>& devices) {
  if (!is_mirrored(name)) return 1;
  const int gpus = cuda_available() ? backend_for(Device::cuda(0)).device_count() : 0;
  return devices.empty() ? std::max(gpus, 1) : static_cast<int>(devices.size());
}

MirroredStrategy::MirroredStrategy(const std::vector<std::string>& devices)
    : MirroredStrategy(devices, mirrored_bootstrap(devices)) {}

MirroredStrategy::MirroredStrategy(const std::vector<std::string>& devices,
                                   const std::shared_ptr<distributed::Communicator>& bootstrap)
    : Strategy(mirrored_device(devices, *bootstrap),
               replica_communicator(mirrored_device(devices, *bootstrap), bootstrap)) {
  if (num_replicas_in_sync() > 1) join_replicas(*this);
}

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(const std::vector<std::string>& devices)
    : MultiWorkerMirroredStrategy(devices,
                                  distributed::launched_by_mpi()
                                      ? distributed::mpi_world()
                                      : std::make_shared<distributed::LocalCommunicator>()) {}

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(
    const std::vector<std::string>& devices,
    const std::shared_ptr<distributed::Communicator>& bootstrap)
    : Strategy(replica_device(devices, bootstrap->rank(), "MultiWorkerMirroredStrategy"),
               replica_communicator(
                   replica_device(devices, bootstrap->rank(), "MultiWorkerMirroredStrategy"),
                   bootstrap)) {
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
