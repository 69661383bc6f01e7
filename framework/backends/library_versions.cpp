#include "kiln/framework/backends/library_versions.h"

#include <oneapi/dnnl/dnnl.h>

#include "kiln/framework/core/error.h"

namespace kiln {

std::string LibraryVersion::to_string() const {
  return detail::concat(major, ".", minor, ".", patch);
}

bool LoadedLibrary::mismatched() const {
  return built.has_value() && loaded.has_value() && built->major != loaded->major;
}

std::vector<LoadedLibrary> library_versions() {
  const dnnl_version_t* onednn = dnnl_version();
  std::vector<LoadedLibrary> out{
      {"oneDNN", LibraryVersion{DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH},
       LibraryVersion{onednn->major, onednn->minor, onednn->patch}}};
  for (LoadedLibrary& l : detail::cuda_library_versions()) out.push_back(std::move(l));
  return out;
}

}  // namespace kiln
