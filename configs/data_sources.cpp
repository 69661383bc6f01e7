#include "kiln/configs/data_sources.h"

namespace kiln::configs {

const NamedRegistry<DataSource>& data_sources() {
  static const NamedRegistry<DataSource> registry = [] {
    NamedRegistry<DataSource> sources("data source");
    sources.add("fashion_mnist", fashion_mnist_source());
    sources.add("fortunes_language_id", fortunes_source());
    sources.add("csv", csv_source());
    sources.add("image_directory", image_directory_source());
    sources.add("text_directory", text_directory_source());
    sources.add("text_lines", text_lines_source());
    sources.add("npy", npy_source());
    sources.add("npz", npz_source());
    sources.add("hdf5", hdf5_source());
    sources.add("timeseries", timeseries_source());
    return sources;
  }();
  return registry;
}

}  // namespace kiln::configs
